/**
 * The explicit recovery sub-agent backed by a chat model: the forward model (same backbone) with
 * the recovery system prefix and recovery instruction prefix prepended to its default pyautogui
 * prompts, shown the TARGET screenshot, the chosen recovery context (history 0-E / 0-R, none, or
 * the contextualizer's summary), the steps of this attempt so far and the current screenshot.
 * It ends the attempt early by answering {@link RESTORED_TOKEN} (or DONE). Unusable output is a
 * recorded failure of that step, never a crash; model code is parsed, never run.
 */
import { z } from "zod";
import type { ChatContentPart, ChatMessage, ChatModel } from "../../src/model.ts";
import { renderPrompt } from "../../src/prompt.ts";
import type { RecoveryDecision, RecoveryInput, RecoveryPolicy } from "../../src/recovery.ts";
import { logger } from "../../src/logger.ts";
import recoverySystemPrefix from "../../prompts/recovery-system-prefix.ts";
import recoveryInstructionPrefix from "../../prompts/recovery-instruction-prefix.ts";
import forwardSystem from "../../prompts/forward-pyautogui-system.ts";
import forwardStep from "../../prompts/forward-pyautogui-step.ts";
import { callModel } from "./call.ts";
import { historyParts, screenshotPart } from "./history.ts";
import { callFields, imagesField, parseOptions, requireModel } from "./options.ts";
import { joinPromptRefs } from "./prompt-refs.ts";
import { decideFromReply, defaultActionParser, type ActionParser } from "./reply-actions.ts";

/** The word the recovery agent answers, alone, when the TARGET state is reached. */
export const RESTORED_TOKEN = "RESTORED";

/** Options of {@link createLlmRecoveryPolicy}. */
export interface LlmRecoveryPolicyOptions {
  /** The forward model's backbone (the paper uses the same one for forward and recovery). */
  model: ChatModel;
  /** Action space the model writes. Only "pyautogui" for now. @default "pyautogui" */
  actionFormat?: "pyautogui";
  /** Screenshots of the recovery-context history to attach (most recent first). @default 3 */
  historyImages?: number;
  /** Screenshots of this attempt's earlier recovery steps to attach. @default 1 */
  recoveryImages?: number;
  /** Image detail hint. @default "auto" */
  detail?: "low" | "high" | "auto";
  /** Characters of each past step's raw response shown in the context. @default 0 */
  responseChars?: number;
  /** Sampling temperature (paper: the forward model's own, e.g. 0.7). @default 0.7 */
  temperature?: number;
  /** Max output tokens. @default 3000 */
  maxTokens?: number;
  /** Per-call time limit in ms. @default undefined (the backend's timeout) */
  timeoutMs?: number;
  /** Converter from the model's reply to actions; throws ActionFormatError on unusable output. @default the pyautogui converter */
  parseActions?: ActionParser;
  /** Name in records. @default "llm-recoverer" */
  name?: string;
}

const OptionsSchema = z
  .object({
    actionFormat: z.literal("pyautogui").default("pyautogui"),
    historyImages: imagesField(3),
    recoveryImages: imagesField(1),
    responseChars: z.number().int().min(0).default(0),
    ...callFields({ name: "llm-recoverer", temperature: 0.7, maxTokens: 3000 }),
  })
  .strict();

const CONTEXT_NOTES: Record<RecoveryInput["context"]["kind"], (n: number) => string> = {
  "0-E": (n) => `Below is the earlier run's history up to the wrong step (${n} step(s)), so you can see what changed after the TARGET state.`,
  "0-R": (n) => `Below is the earlier run's history up to the TARGET state (${n} step(s)), so you can see how the TARGET state came about.`,
  none: () => "No history of the earlier run is given; rely on the TARGET screenshot.",
  contextualized: () => "Below is a briefing describing the TARGET state and how it came about, including changes a screenshot cannot show.",
};

/** The explicit recovery policy. */
export function createLlmRecoveryPolicy(options: LlmRecoveryPolicyOptions): RecoveryPolicy {
  const { model, parseActions, ...rest } = options;
  requireModel(model, "createLlmRecoveryPolicy");
  const o = parseOptions(OptionsSchema, rest, "createLlmRecoveryPolicy");
  const parse = parseActions ?? defaultActionParser;
  const prompt = joinPromptRefs(recoverySystemPrefix, forwardSystem, recoveryInstructionPrefix, forwardStep);

  function messages(input: RecoveryInput): ChatMessage[] {
    const { context, target } = input;
    const system =
      renderPrompt(recoverySystemPrefix, { restored_token: RESTORED_TOKEN }) +
      "\n\n" +
      renderPrompt(forwardSystem, { screen_width: input.observation.width, screen_height: input.observation.height });
    const parts: ChatContentPart[] = [
      { type: "text", text: `TARGET screenshot (the state just before step ${target.step}):` },
      screenshotPart(target.observation, o.detail),
    ];
    if ((context.kind === "0-E" || context.kind === "0-R") && context.history.length > 0) {
      parts.push({ type: "text", text: `Earlier run, steps 0 to ${context.history.length - 1}:` });
      parts.push(...historyParts(context.history, { images: o.historyImages, detail: o.detail, responseChars: o.responseChars }));
    } else if (context.kind === "contextualized") {
      parts.push({ type: "text", text: `Briefing on the TARGET state:\n${context.summary?.trim() || "(no briefing available)"}` });
    }
    if (input.recoveryHistory.length > 0) {
      parts.push({ type: "text", text: "Recovery actions you already took in this attempt (numbered within the attempt):" });
      parts.push(...historyParts(input.recoveryHistory, { images: o.recoveryImages, detail: o.detail }));
    }
    const stepsLeft = Math.max(0, input.budget.max - input.budget.used);
    const contextCount = context.kind === "0-E" || context.kind === "0-R" ? context.history.length : 0;
    parts.push({
      type: "text",
      text:
        renderPrompt(recoveryInstructionPrefix, {
          target_step: target.step,
          error_step: input.errorStep,
          context_note: CONTEXT_NOTES[context.kind](contextCount),
          steps_left: stepsLeft,
          restored_token: RESTORED_TOKEN,
        }) +
        "\n\n" +
        renderPrompt(forwardStep, { instruction: input.task.instruction }),
    });
    parts.push({ type: "text", text: "CURRENT screenshot:" }, screenshotPart(input.observation, o.detail));
    return [
      { role: "system", content: system },
      { role: "user", content: parts },
    ];
  }

  return {
    name: o.name,
    async propose(input: RecoveryInput): Promise<RecoveryDecision> {
      const res = await callModel(
        model,
        { role: "recoverer", prompt, messages: messages(input), temperature: o.temperature, maxTokens: o.maxTokens },
        { timeoutMs: o.timeoutMs, signal: input.signal },
      );
      if (!res.ok) {
        logger.warn({ recoverer: o.name, error: res.error }, "recovery model call failed");
        return { actions: [], failure: { kind: "model-error", message: res.error } };
      }
      const decision = decideFromReply(res.response.text, {
        parse,
        screen: { width: input.observation.width, height: input.observation.height },
        restoredToken: RESTORED_TOKEN,
        doneMeansRestored: true,
      });
      return { ...decision, response: res.response.text, usage: [res.response.usage] };
    },
  };
}
