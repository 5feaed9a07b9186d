/**
 * The recovery-target contextualizer: a chat model summarises the observation-action history up
 * to the recovery target into a short briefing (target state + transitions to it), the
 * "contextualized" recovery context. If the model fails, the briefing falls back to the plain
 * list of actions to the target, so recovery still gets the transitions (and the failure is logged).
 */
import { z } from "zod";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import type { Summarizer } from "@retrace-cua/core/recovery";
import type { TaskSpec } from "@retrace-cua/core/task";
import type { ChatModel } from "@retrace-cua/core/model";
import type { ModelUsage } from "@retrace-cua/core/usage";
import { logger } from "@retrace-cua/core/logger";
import contextualizer from "@retrace-cua/core/prompts/recovery-target-contextualizer";
import { askForText } from "./json-reply.ts";
import { describeActions, historyParts, screenshotPart } from "./history.ts";
import { callFields, imagesField, parseOptions, requireModel, roleCall, type LlmCallSettings } from "./options.ts";

/**
 * Options of {@link createLlmSummarizer} (paper: a strong model at temperature 0 with 1024 max tokens). Defaults:
 * temperature 0, detail "auto", maxTokens 1024, name "llm-summarizer"; a failure briefs with the action list.
 */
export interface LlmSummarizerOptions extends LlmCallSettings {
  /** The backbone chat model. */
  model: ChatModel;
  /** Screenshots of the history to attach besides the target one. @default 3 */
  historyImages?: number;
}

const OptionsSchema = z
  .object({
    historyImages: imagesField(3),
    ...callFields({ name: "llm-summarizer", temperature: 0 }),
  })
  .strict();

/** Which steps a history up to target R covers, in words, with R-1 computed ("steps 0 to 8" for R = 9). */
export function stepsShownText(targetStep: number): string {
  if (targetStep <= 0) return "no steps (the TARGET is the initial state)";
  if (targetStep === 1) return "step 0";
  return `steps 0 to ${targetStep - 1}`;
}

/** The briefing used when the model is unavailable: the actions up to the target, one per line. */
export function fallbackSummary(history: readonly HistoryEntry[], targetStep: number): string {
  if (history.length === 0)
    return `TARGET STATE: the initial state of the task (step ${targetStep}); no actions had been taken.`;
  const lines = history.map((e) => `- step ${e.step}: ${describeActions(e)}`);
  return `TARGET STATE: the state just before step ${targetStep} (see the TARGET screenshot).\nHOW IT GOT THERE:\n${lines.join("\n")}`;
}

/** An LLM state-transition summarizer. */
export function createLlmSummarizer(options: LlmSummarizerOptions): Summarizer {
  const { model, ...rest } = options;
  requireModel(model, "createLlmSummarizer");
  const o = parseOptions(OptionsSchema, rest, "createLlmSummarizer");
  const prompt = promptRef(contextualizer);
  return {
    name: o.name,
    async summarize(input: {
      task: TaskSpec;
      history: readonly HistoryEntry[];
      target: { step: number; observation: Observation };
      blobs: BlobReader;
      signal?: AbortSignal;
    }): Promise<{ summary: string; usage?: ModelUsage[]; prompt?: string }> {
      const reply = await askForText({
        model,
        role: "summarizer",
        prompt,
        ...roleCall(o),
        signal: input.signal,
        messages: [
          {
            role: "user",
            content: [
              {
                type: "text",
                text: renderPrompt(contextualizer, {
                  instruction: input.task.instruction,
                  target_step: input.target.step,
                  steps_shown: stepsShownText(input.target.step),
                }),
              },
              ...historyParts(input.history, { images: o.historyImages, detail: o.detail }),
              { type: "text", text: `TARGET screenshot (the state just before step ${input.target.step}):` },
              screenshotPart(input.target.observation, o.detail),
            ],
          },
        ],
      });
      if (reply.value === undefined) {
        logger.warn(
          { summarizer: o.name, error: reply.failure },
          "summarizer failed; using the action list as the briefing",
        );
        return { summary: fallbackSummary(input.history, input.target.step), usage: reply.usage, prompt };
      }
      return { summary: reply.value, usage: reply.usage, prompt };
    },
  };
}
