/**
 * An error-step detector backed by any chat model (provider neutral, through src/model.ts).
 * It shows the model the task, the observation-action history and the newest screenshot and asks
 * for `{ off_track, error_step, reason, confidence }`. Invalid replies are re-asked a bounded
 * number of times with the validation error; after that, and on timeouts or transport errors,
 * it returns `noDetection(..., failure)`: never a spurious recovery, never a throw.
 */
import { z } from "zod";
import { noDetection, type Detection, type DetectorInput, type ErrorDetector } from "../../src/detector.ts";
import { renderPrompt } from "../../src/prompt.ts";
import { joinPromptRefs } from "./prompt-refs.ts";
import { logger } from "../../src/logger.ts";
import { callFields, imagesField, maxReasksField, parseOptions, requireModel, roleCall, type JsonRoleOptions } from "./options.ts";
import errorDetectorSystem from "../../prompts/error-detector-system.ts";
import errorDetectorSystemCautious from "../../prompts/error-detector-system-cautious.ts";
import errorDetectorUser from "../../prompts/error-detector-user.ts";
import { askForJson } from "./json-reply.ts";
import { historyParts } from "./history.ts";
import { observationParts, OBSERVATION_TYPES, type ObservationType } from "../policies/observation.ts";

/** The reply contract of the detector prompt. */
export const DetectorReplySchema = z
  .object({
    off_track: z.boolean(),
    error_step: z.number().int().nullable(),
    reason: z.string(),
    confidence: z.number().min(0).max(1),
  })
  .refine((r) => !r.off_track || r.error_step !== null, { message: "error_step must be an integer when off_track is true", path: ["error_step"] });

export type DetectorReply = z.infer<typeof DetectorReplySchema>;

/** Options of {@link createLlmErrorDetector} (paper: one shared detector model, e.g. Qwen3.6-Plus over OpenRouter). Defaults: temperature 0.7 (paper), detail "auto", maxTokens 1024, name "llm-detector". */
export interface LlmErrorDetectorOptions extends JsonRoleOptions {
  /** How many past screenshots to attach besides the current one. @default 3 */
  historyImages?: number;
  /** Characters of each step's raw response to include. @default 0 */
  responseChars?: number;
  /**
   * What the judge is told to do when unsure: "neutral" = nothing (the default; the paper's detector
   * is not told to lean either way), "cautious" = say on track (retrace's variant,
   * prompts/error-detector-system-cautious.ts). @default "neutral"
   */
  stance?: DetectorStance;
  /** What is shown of each screen: screenshot, linearized accessibility tree, or both. @default "screenshot" */
  observation?: ObservationType;
}

/** Detector stances: see {@link LlmErrorDetectorOptions.stance}. */
export const DETECTOR_STANCES = ["neutral", "cautious"] as const;
export type DetectorStance = (typeof DETECTOR_STANCES)[number];

const OptionsSchema = z.object({
  stance: z.enum(DETECTOR_STANCES).default("neutral"),
  maxReasks: maxReasksField(),
  historyImages: imagesField(3),
  responseChars: z.number().int().min(0).default(0),
  observation: z.enum(OBSERVATION_TYPES).default("screenshot"),
  ...callFields({ name: "llm-detector", temperature: 0.7 }),
}).strict();

/** An LLM error-step detector. */
export function createLlmErrorDetector(options: LlmErrorDetectorOptions): ErrorDetector {
  const { model, ...rest } = options;
  requireModel(model, "createLlmErrorDetector");
  const o = parseOptions(OptionsSchema, rest, "createLlmErrorDetector");
  const system = o.stance === "cautious" ? errorDetectorSystemCautious : errorDetectorSystem;
  const prompt = joinPromptRefs(system, errorDetectorUser);
  return {
    name: o.name,
    latency: "model",
    ...(model.endpoint !== undefined && { endpoint: model.endpoint }),
    async detect(input: DetectorInput): Promise<Detection> {
      const t = input.history.length;
      if (t === 0) return { ...noDetection("no steps taken yet"), prompt };
      const lastStep = t - 1;
      const schema = DetectorReplySchema.refine((r) => !r.off_track || (r.error_step! >= 0 && r.error_step! <= lastStep), {
        message: `error_step must be between 0 and ${lastStep}`,
        path: ["error_step"],
      });
      const reply = await askForJson({
        model,
        role: "detector",
        prompt,
        schema,
        ...roleCall(o),
        signal: input.signal,
        messages: [
          { role: "system", content: renderPrompt(system, {}) },
          {
            role: "user",
            content: [
              { type: "text", text: renderPrompt(errorDetectorUser, { instruction: input.task.instruction, step_count: t, last_step: lastStep }) },
              ...historyParts(input.history, { images: o.historyImages, detail: o.detail, responseChars: o.responseChars, observation: o.observation }),
              { type: "text", text: `Current screen (after step ${lastStep}):` },
              ...observationParts(input.observation, o.observation, o.detail),
            ],
          },
        ],
      });
      if (!reply.value) {
        // The runtime logs it (src/runtime/detection.ts: per step until recovery is degraded, then once).
        logger.debug({ detector: o.name, step: input.step, failure: reply.failure }, "detector failed; treating as no detection");
        return { ...noDetection("detector failed; no recovery triggered", reply.failure), usage: reply.usage, prompt };
      }
      const v = reply.value;
      return {
        isError: v.off_track,
        errorStep: v.off_track ? v.error_step : null,
        reason: v.reason,
        confidence: v.confidence,
        usage: reply.usage,
        prompt,
      };
    },
  };
}
