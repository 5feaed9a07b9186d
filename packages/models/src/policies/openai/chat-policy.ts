/**
 * The loop every screenshot-in, text-out chat agent shares (OSWorld's default agent style):
 * a system prompt; older steps as one text summary; the last N steps as user turns with their
 * screenshot followed by the model's own answer; then the notice (e.g. the post-restoration
 * transition string) and the current screenshot. The vendor format plugs in as a
 * {@link ChatPolicyFormat}; unusable answers and failed model calls become recorded, counted
 * failures of the step. Cancellation (AbortSignal) is the only thing that throws from a model call.
 * Under a {@link PromptFraming} (recovery, perturbation) the prefixes go before the system prompt
 * and the step text, and the preamble (e.g. the TARGET screenshot) is a user turn after the system.
 */
import { formatAction, type Action } from "@retrace-cua/core/action";
import { AdapterError } from "@retrace-cua/core/errors";
import type { ChatContentPart, ChatMessage, ChatModel } from "@retrace-cua/core/model";
import type { HistoryEntry, PolicyDecision, PolicyFailure, PolicyInput } from "@retrace-cua/core/policy";
import { toPolicyFailure } from "../../actions/errors.ts";
import {
  framedPromptRef,
  prefixed,
  type ChatPolicyStats,
  type FramablePolicy,
  type PromptFraming,
} from "../framing.ts";
import { observationParts, type ObservationType } from "../observation.ts";

export type { ChatPolicyStats } from "../framing.ts";

/** What differs between chat agents: prompts and the answer format. */
export interface ChatPolicyFormat {
  /** `id@version` of the prompts, recorded with every call. */
  prompt: string;
  /** The system message. */
  system(input: PolicyInput): string;
  /** The text sent with each screenshot (current and past turns). */
  stepText(input: PolicyInput): string;
  /** Actions from the model's answer; throws ActionFormatError on unusable output. */
  parse(response: string, input: PolicyInput): Action[];
}

/** Options shared by the chat-model policies. */
export interface ChatPolicyOptions {
  /** The chat model (createOpenAIChatModel, createLangChainChatModel, possibly withCache). */
  model: ChatModel;
  /** Name in records. @default the format's default name */
  name?: string;
  /** The last this-many past steps are shown with their screenshots and answers; older ones as text. @default 3 */
  historyImages?: number;
  /** At most this many older steps in the text summary (the most recent ones). @default 50 */
  historyTextSteps?: number;
  /** Image detail hint sent with screenshots. @default "high" */
  detail?: "low" | "high" | "auto";
  /** Max output tokens per answer. @default 1500 */
  maxTokens?: number;
  /** Sampling temperature. @default 0.7 */
  temperature?: number;
  /**
   * What the model is shown of each screen (OSWorld's observation types): the screenshot, the
   * linearized accessibility tree, or both. @default "screenshot"
   */
  observation?: ObservationType;
}

/** A ForwardPolicy with counters that can also answer under a framing. */
export interface ChatPolicy extends FramablePolicy {
  readonly stats: ChatPolicyStats;
}

/** Build the message list for one decision (exported for tests). */
export function buildChatMessages(
  input: PolicyInput,
  format: ChatPolicyFormat,
  o: Required<Pick<ChatPolicyOptions, "historyImages" | "historyTextSteps" | "detail">> &
    Pick<ChatPolicyOptions, "observation">,
  framing?: PromptFraming,
): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: prefixed(framing?.systemPrefix, format.system(input)) }];
  if (framing?.preamble?.length) messages.push({ role: "user", content: framing.preamble });
  const history = input.history;
  const recentFrom = Math.max(0, history.length - o.historyImages);
  const older = history.slice(Math.max(0, recentFrom - o.historyTextSteps), recentFrom);
  if (older.length) {
    const skipped = recentFrom - older.length;
    const lines = older.map((e) => `Step ${e.step}: ${describe(e)}`);
    messages.push({
      role: "user",
      content: `Earlier steps${skipped ? ` (the first ${skipped} not shown)` : ""}, screenshots omitted:\n${lines.join("\n")}`,
    });
    messages.push({ role: "assistant", content: "Understood." });
  }
  const step = prefixed(framing?.instructionPrefix, format.stepText(input));
  for (const e of history.slice(recentFrom)) {
    messages.push({
      role: "user",
      content: [{ type: "text", text: step }, ...observationParts(e.observation, o.observation, o.detail)],
    });
    messages.push({ role: "assistant", content: e.response?.trim() ? e.response : describe(e) });
  }
  const current: ChatContentPart[] = [];
  if (input.notice) current.push({ type: "text", text: input.notice });
  current.push({ type: "text", text: step }, ...observationParts(input.observation, o.observation, o.detail));
  if (framing?.currentSuffix) current.push({ type: "text", text: framing.currentSuffix });
  messages.push({ role: "user", content: current });
  return messages;
}

function describe(e: HistoryEntry): string {
  return e.actions.length ? e.actions.map(formatAction).join("; ") : "(no usable action)";
}

/** Create a chat-model policy for a format. */
export function createChatPolicy(
  options: ChatPolicyOptions,
  format: ChatPolicyFormat,
  defaultName: string,
): ChatPolicy {
  const o = {
    historyImages: options.historyImages ?? 3,
    historyTextSteps: options.historyTextSteps ?? 50,
    detail: options.detail ?? "high",
    observation: options.observation ?? "screenshot",
  };
  const stats: ChatPolicyStats = { calls: 0, failures: {} };
  const fail = (failure: PolicyFailure, rest: Partial<PolicyDecision> = {}): PolicyDecision => {
    stats.failures[failure.kind] = (stats.failures[failure.kind] ?? 0) + 1;
    return { actions: [], failure, ...rest };
  };
  return {
    name: options.name ?? `${defaultName}:${options.model.model}`,
    stats,
    async propose(input: PolicyInput, framing?: PromptFraming): Promise<PolicyDecision> {
      const messages = buildChatMessages(input, format, o, framing);
      stats.calls++;
      let res;
      try {
        res = await options.model.complete({
          role: framing?.role ?? "policy",
          prompt: framedPromptRef(framing, format.prompt),
          messages,
          maxTokens: options.maxTokens ?? 1500,
          temperature: options.temperature ?? 0.7,
          signal: input.signal,
        });
      } catch (err) {
        if (input.signal?.aborted) throw err;
        if (err instanceof AdapterError) return fail({ kind: "model-error", message: err.message });
        throw err;
      }
      try {
        return { actions: format.parse(res.text, input), response: res.text, usage: [res.usage] };
      } catch (err) {
        return fail(toPolicyFailure(err), { response: res.text, usage: [res.usage] });
      }
    },
  };
}
