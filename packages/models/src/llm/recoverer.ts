/**
 * The explicit recovery sub-agent backed by a model: the forward agent (same backbone, same action
 * format: pyautogui, UI-TARS, OpenAI computer use or Anthropic computer use, built by the same
 * adapter as the forward agent) with the recovery system prefix and recovery instruction prefix
 * prepended to its default prompts (paper App. A.2; a text-action pair and a computer-tool pair,
 * one file each in packages/core/src/prompts/). Before its own conversation it is shown the TARGET screenshot and the
 * chosen recovery context (history 0-E / 0-R, none, or the contextualizer's summary); its own
 * steps of this attempt are its conversation. It ends the attempt by answering
 * {@link RESTORED_TOKEN} (or DONE; a tool agent answering without a tool call). Unusable output is
 * a recorded failure of that step, never a crash; model output is parsed, never run.
 */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatContentPart, ChatModel } from "@retrace-cua/core/model";
import type { PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import type { RecoveryDecision, RecoveryInput, RecoveryPolicy } from "@retrace-cua/core/recovery";
import { logger } from "@retrace-cua/core/logger";
import recoverySystemPrefix from "@retrace-cua/core/prompts/recovery-system-prefix";
import recoveryInstructionPrefix from "@retrace-cua/core/prompts/recovery-instruction-prefix";
import recoveryInstructionPrefixStable from "@retrace-cua/core/prompts/recovery-instruction-prefix-stable";
import recoverySystemPrefixTool from "@retrace-cua/core/prompts/recovery-system-prefix-tool";
import recoveryInstructionPrefixTool from "@retrace-cua/core/prompts/recovery-instruction-prefix-tool";
import type { AgentFormatSpec } from "../policies/format.ts";
import type { PromptFraming } from "../policies/framing.ts";
import { historyParts } from "./history.ts";
import { observationParts } from "../policies/observation.ts";
import { framedAgent, proposeGuarded } from "./framed-agent.ts";
import { agentCallFields, imagesField, parseOptions, type LlmCallSettings } from "./options.ts";
import { readRecoveryReply } from "./reply-actions.ts";

/** The word the recovery agent answers, alone, when the TARGET state is reached. */
export const RESTORED_TOKEN = "RESTORED";

/**
 * Options of {@link createLlmRecoveryPolicy}. Call settings left unset are the agent's own (else detail "auto",
 * maxTokens 3000); name "llm-recoverer"; a timed-out call is a recorded model-error step.
 */
export interface LlmRecoveryPolicyOptions extends LlmCallSettings {
  /**
   * The recovery agent's backbone and action format. Pass the forward agent's own spec to get the
   * paper's setup (App. B.2: same backbone, different prompts and step budget). @default { format: actionFormat, model
   * }
   */
  agent?: AgentFormatSpec;
  /** Shorthand for `agent: { format: actionFormat, model }` (chat formats). */
  model?: ChatModel;
  /** Action format of the shorthand. @default "pyautogui" */
  actionFormat?: "pyautogui" | "uitars";
  /** Screenshots of the recovery-context history to attach (most recent first). @default 3 */
  historyImages?: number;
  /** Screenshots of this attempt's earlier recovery steps to attach. @default 1 */
  recoveryImages?: number;
  /** Characters of each past step's raw response shown in the context. @default 0 */
  responseChars?: number;
  /** Sampling temperature. @default the agent's, else 0.7 (paper: the forward model's own) */
  temperature?: number;
  /**
   * Request layout. "paper": the paper's instruction prefix, with the steps left in it, on every
   * turn. "cached": the same instruction without anything that changes within an attempt
   * (`recovery.instruction-prefix-stable`), the steps left told on the current turn only, so the
   * calls of one attempt share their prefix (system, TARGET, context, earlier turns) in a
   * provider's prefix cache. Chat formats (pyautogui, uitars) only. @default "paper"
   */
  layout?: "paper" | "cached";
}

const OptionsSchema = z
  .object({
    actionFormat: z.enum(["pyautogui", "uitars"]).default("pyautogui"),
    historyImages: imagesField(3),
    recoveryImages: imagesField(1),
    responseChars: z.number().int().min(0).default(0),
    layout: z.enum(["paper", "cached"]).default("paper"),
    ...agentCallFields("llm-recoverer"),
  })
  .strict();

const CONTEXT_NOTES: Record<RecoveryInput["context"]["kind"], (n: number) => string> = {
  "0-E": (n) =>
    `Below is the earlier run's history up to the current screen (${n} step(s): the wrong step and every step after it included), so you can see what changed after the TARGET state.`,
  "0-R": (n) =>
    `Below is the earlier run's history up to the TARGET state (${n} step(s)), so you can see how the TARGET state came about.`,
  none: () => "No history of the earlier run is given; rely on the TARGET screenshot.",
  contextualized: () =>
    "Below is a briefing describing the TARGET state and how it came about, including changes a screenshot cannot show.",
};

const stepsLeft = (input: RecoveryInput) => Math.max(0, input.budget.max - input.budget.used);

/** The explicit recovery policy, in the agent's action format. */
export function createLlmRecoveryPolicy(options: LlmRecoveryPolicyOptions): RecoveryPolicy {
  const { agent, model, ...rest } = options ?? ({} as LlmRecoveryPolicyOptions);
  const o = parseOptions(OptionsSchema, rest, "createLlmRecoveryPolicy");
  if (!agent && !model)
    throw new ConfigError(
      'createLlmRecoveryPolicy: option "agent" (the forward agent spec) or "model" (a ChatModel) is required',
      { field: "agent" },
    );
  const spec: AgentFormatSpec =
    agent ?? ({ format: o.actionFormat, model: model!, temperature: 0.7, maxTokens: 3000 } as AgentFormatSpec);
  const tool = spec.format === "openai-cua" || spec.format === "anthropic";
  if (tool && o.layout === "cached")
    throw new ConfigError(
      `createLlmRecoveryPolicy: layout "cached" is for the chat formats (pyautogui, uitars); format ${spec.format} keeps its own layout (remove layout)`,
      { field: "layout" },
    );
  const cached = o.layout === "cached";
  const [systemPrefix, instructionPrefix] = tool
    ? [recoverySystemPrefixTool, recoveryInstructionPrefixTool]
    : [recoverySystemPrefix, cached ? recoveryInstructionPrefixStable : recoveryInstructionPrefix];
  const policy = framedAgent(
    spec,
    { historyImages: o.recoveryImages, detail: o.detail, temperature: o.temperature, maxTokens: o.maxTokens },
    "createLlmRecoveryPolicy",
  );
  const prompt = `${promptRef(systemPrefix)}+${promptRef(instructionPrefix)}`;
  // The agent's observation type (chat formats) applies to the TARGET and the context's screens too.
  const observation = spec.format === "pyautogui" || spec.format === "uitars" ? spec.observation : undefined;

  function framing(input: RecoveryInput): PromptFraming {
    const { context, target } = input;
    const preamble: ChatContentPart[] = [
      { type: "text", text: `TARGET screenshot (the state just before step ${target.step}):` },
      ...observationParts(target.observation, observation, o.detail),
    ];
    if ((context.kind === "0-E" || context.kind === "0-R") && context.history.length > 0) {
      preamble.push({ type: "text", text: `Earlier run, steps 0 to ${context.history.length - 1}:` });
      preamble.push(
        ...historyParts(context.history, {
          images: o.historyImages,
          detail: o.detail,
          responseChars: o.responseChars,
          observation,
        }),
      );
    } else if (context.kind === "contextualized") {
      preamble.push({
        type: "text",
        text: `Briefing on the TARGET state:\n${context.summary?.trim() || "(no briefing available)"}`,
      });
    }
    const contextCount = context.kind === "0-E" || context.kind === "0-R" ? context.history.length : 0;
    const vars = {
      target_step: target.step,
      error_step: input.errorStep,
      context_note: CONTEXT_NOTES[context.kind](contextCount),
      restored_token: RESTORED_TOKEN,
    };
    if (tool) {
      return {
        prompt,
        role: "recoverer",
        systemPrefix: renderPrompt(systemPrefix, { restored_token: RESTORED_TOKEN }),
        instructionPrefix: renderPrompt(recoveryInstructionPrefixTool, { ...vars, steps_left: stepsLeft(input) }),
        preamble,
      };
    }
    return {
      prompt,
      role: "recoverer",
      systemPrefix: renderPrompt(systemPrefix, { restored_token: RESTORED_TOKEN }),
      instructionPrefix: cached
        ? renderPrompt(recoveryInstructionPrefixStable, { ...vars, budget: input.budget.max })
        : renderPrompt(recoveryInstructionPrefix, { ...vars, steps_left: stepsLeft(input) }),
      preamble,
      // layout "cached": the one part of the instruction that changes per call, at the end of the current turn only.
      ...(cached && { currentSuffix: `Recovery action steps left: ${stepsLeft(input)} of ${input.budget.max}.` }),
    };
  }

  return {
    name: o.name,
    async propose(input: RecoveryInput): Promise<RecoveryDecision> {
      const forwardInput: Omit<PolicyInput, "signal"> = {
        task: input.task,
        history: input.recoveryHistory,
        observation: input.observation,
        step: input.recoveryHistory.length,
        tick: input.tick,
        blobs: input.blobs,
      };
      const decision: PolicyDecision = await proposeGuarded(policy, forwardInput, framing(input), {
        timeoutMs: o.timeoutMs,
        signal: input.signal,
      });
      if (decision.failure?.kind === "model-error")
        logger.warn({ recoverer: o.name, error: decision.failure.message }, "recovery model call failed");
      return readRecoveryReply(decision, RESTORED_TOKEN);
    },
  };
}
