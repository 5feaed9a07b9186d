/**
 * Recovery-step selector for strategy "llm", backed by any chat model. Asks for
 * `{ recovery_step, reason }` with 0 <= recovery_step <= E; invalid replies are re-asked a bounded
 * number of times, then it falls back to R = max(0, E-1) and says so in `failure`.
 */
import { z } from "zod";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import type { RecoveryStepSelector, Selection, SelectorInput } from "@retrace-cua/core/selector";
import { logger } from "@retrace-cua/core/logger";
import recoveryStepSelector from "@retrace-cua/core/prompts/recovery-step-selector";
import { askForJson } from "./json-reply.ts";
import { historyParts } from "./history.ts";
import {
  callFields,
  imagesField,
  maxReasksField,
  parseOptions,
  requireModel,
  roleCall,
  type JsonRoleOptions,
} from "./options.ts";

/** The reply contract of the selector prompt (the range 0..E is checked per call). */
export const SelectorReplySchema = z.object({
  recovery_step: z.number().int(),
  reason: z.string(),
});

/**
 * Options of {@link createLlmStepSelector} (paper: the detector's backbone). Defaults: temperature 0.7, detail "auto",
 * maxTokens 1024, name "llm-selector"; a failure falls back to E-1.
 */
export interface LlmStepSelectorOptions extends JsonRoleOptions {
  /** How many of the screenshots up to and including step E to attach. @default 3 */
  historyImages?: number;
}

const OptionsSchema = z
  .object({
    maxReasks: maxReasksField(),
    historyImages: imagesField(3),
    ...callFields({ name: "llm-selector", temperature: 0.7 }),
  })
  .strict();

/** An LLM recovery-step selector. */
export function createLlmStepSelector(options: LlmStepSelectorOptions): RecoveryStepSelector {
  const { model, ...rest } = options;
  requireModel(model, "createLlmStepSelector");
  const o = parseOptions(OptionsSchema, rest, "createLlmStepSelector");
  const prompt = promptRef(recoveryStepSelector);
  return {
    name: o.name,
    async select(input: SelectorInput): Promise<Selection> {
      const E = input.errorStep;
      const fallback = Math.max(0, E - 1);
      if (E <= 0) return { step: 0, reason: "the error is at step 0; only the initial state precedes it", prompt };
      const schema = SelectorReplySchema.refine((r) => r.recovery_step >= 0 && r.recovery_step <= E, {
        message: `recovery_step must be between 0 and ${E}`,
        path: ["recovery_step"],
      });
      // Steps 0..E: the selector sees up to and including the wrong action.
      const shown = input.history.slice(0, E + 1);
      const reply = await askForJson({
        model,
        role: "selector",
        prompt,
        schema,
        ...roleCall(o),
        signal: input.signal,
        messages: [
          {
            role: "system",
            content: renderPrompt(recoveryStepSelector, {
              instruction: input.task.instruction,
              error_step: E,
              error_reason: input.detection.reason || "(none given)",
            }),
          },
          {
            role: "user",
            content: [
              { type: "text", text: `The run, steps 0 to ${E}:` },
              ...historyParts(shown, { images: o.historyImages, detail: o.detail }),
            ],
          },
        ],
      });
      if (!reply.value) {
        logger.warn({ selector: o.name, errorStep: E, failure: reply.failure }, "selector failed; falling back to E-1");
        return {
          step: fallback,
          reason: `fell back to E-1 = ${fallback} because the selector failed`,
          failure: `${reply.failure}; fell back to E-1 = ${fallback}`,
          usage: reply.usage,
          prompt,
        };
      }
      return { step: reply.value.recovery_step, reason: reply.value.reason, usage: reply.usage, prompt };
    },
  };
}
