/**
 * An error-step detector backed by any chat model (provider neutral, through packages/core/src/model.ts).
 * It shows the model the task, the observation-action history and the newest screenshot (laid
 * out the paper's way, or cache-friendly for the production preset: `layout`) and asks
 * for `{ off_track, error_step, reason, confidence }`. Invalid replies are re-asked a bounded
 * number of times with the validation error; after that, and on timeouts or transport errors,
 * it returns `noDetection(..., failure)`: never a spurious recovery, never a throw.
 */
import { z } from "zod";
import { noDetection, type Detection, type DetectorInput, type ErrorDetector } from "@retrace-cua/core/detector";
import { renderPrompt } from "@retrace-cua/core/prompt";
import { joinPromptRefs } from "./prompt-refs.ts";
import { logger } from "@retrace-cua/core/logger";
import {
  callFields,
  imagesField,
  maxReasksField,
  parseOptions,
  requireModel,
  roleCall,
  type JsonRoleOptions,
} from "./options.ts";
import errorDetectorSystem from "@retrace-cua/core/prompts/error-detector-system";
import errorDetectorSystemCautious from "@retrace-cua/core/prompts/error-detector-system-cautious";
import errorDetectorUser from "@retrace-cua/core/prompts/error-detector-user";
import errorDetectorTask from "@retrace-cua/core/prompts/error-detector-task";
import errorDetectorQuestion from "@retrace-cua/core/prompts/error-detector-question";
import type { ChatContentPart } from "@retrace-cua/core/model";
import type { Observation } from "@retrace-cua/core/observation";
import { askForJson } from "./json-reply.ts";
import { describeActions, historyParts } from "./history.ts";
import { linearizeAxTree, observationParts, OBSERVATION_TYPES, type ObservationType } from "../policies/observation.ts";

/** The reply contract of the detector prompt. */
export const DetectorReplySchema = z
  .object({
    off_track: z.boolean(),
    error_step: z.number().int().nullable(),
    reason: z.string(),
    confidence: z.number().min(0).max(1),
  })
  .refine((r) => !r.off_track || r.error_step !== null, {
    message: "error_step must be an integer when off_track is true",
    path: ["error_step"],
  });

export type DetectorReply = z.infer<typeof DetectorReplySchema>;

/**
 * Options of {@link createLlmErrorDetector} (paper: one shared detector model, e.g. Qwen3.6-Plus over OpenRouter).
 * Defaults: temperature 0.7 (paper), detail "auto", maxTokens 1024, name "llm-detector".
 */
export interface LlmErrorDetectorOptions extends JsonRoleOptions {
  /** How many past screenshots to attach besides the current one. @default 3 */
  historyImages?: number;
  /** Characters of each step's raw response to include. @default 0 */
  responseChars?: number;
  /**
   * What the judge is told to do when unsure: "neutral" = nothing (the default; the paper's detector
   * is not told to lean either way), "cautious" = say on track (retrace's variant,
   * packages/core/src/prompts/error-detector-system-cautious.ts). @default "neutral"
   */
  stance?: DetectorStance;
  /** What is shown of each screen: screenshot, linearized accessibility tree, or both. @default "screenshot" */
  observation?: ObservationType;
  /**
   * How the request is laid out. "paper": the paper's prompt (error-detector.user), the whole
   * action history and the last `historyImages` screens. "cached" (the production preset): a
   * stable system + task prefix, then the append-only history (every step's action line, and
   * for the last `historySteps` steps the screen each one left), then the question, so that a
   * provider's prefix cache hits from one judge call to the next. @default "paper"
   */
  layout?: DetectorLayout;
  /**
   * layout "cached": steps whose screens are shown (k). The window's start moves in jumps of k
   * steps, so it shows the last k to 2k-1 screens and consecutive requests share their history
   * prefix; `historyImages` is not used. @default 3
   */
  historySteps?: number;
  /** Downscale every screenshot sent so that neither side exceeds this many pixels (sharp). @default the stored size */
  imageMaxSide?: number;
  /**
   * layout "cached", with accessibility trees: show the screen each step left as the tree's changed
   * lines (`- ` removed, `+ ` added) instead of the full tree; the window's first screen and the
   * current screen stay full. @default false
   */
  treeDiff?: boolean;
  /**
   * With `treeDiff`: show at most this many changed lines per screen, half of them removed lines
   * and half added (a window switch changes dozens of lines; its first lines name the windows),
   * then one line saying how many were left out. Cuts the judge's tokens on big screen changes.
   * @default all lines (the production preset: 4, `PRODUCTION_DETECTION`)
   */
  treeDiffMaxLines?: number;
}

/** Detector request layouts: see {@link LlmErrorDetectorOptions.layout}. */
export const DETECTOR_LAYOUTS = ["paper", "cached"] as const;
export type DetectorLayout = (typeof DETECTOR_LAYOUTS)[number];

/** Detector stances: see {@link LlmErrorDetectorOptions.stance}. */
export const DETECTOR_STANCES = ["neutral", "cautious"] as const;
export type DetectorStance = (typeof DETECTOR_STANCES)[number];

const OptionsSchema = z
  .object({
    stance: z.enum(DETECTOR_STANCES).default("neutral"),
    maxReasks: maxReasksField(),
    historyImages: imagesField(3),
    responseChars: z.number().int().min(0).default(0),
    observation: z.enum(OBSERVATION_TYPES).default("screenshot"),
    layout: z.enum(DETECTOR_LAYOUTS).default("paper"),
    historySteps: z.number().int().min(1).max(50).default(3),
    imageMaxSide: z.number().int().min(64).max(8192).optional(),
    treeDiff: z.boolean().default(false),
    treeDiffMaxLines: z.number().int().min(2).max(10_000).optional(),
    ...callFields({ name: "llm-detector", temperature: 0.7 }),
  })
  .strict();

/** An LLM error-step detector. */
export function createLlmErrorDetector(options: LlmErrorDetectorOptions): ErrorDetector {
  const { model, ...rest } = options;
  requireModel(model, "createLlmErrorDetector");
  const o = parseOptions(OptionsSchema, rest, "createLlmErrorDetector");
  const system = o.stance === "cautious" ? errorDetectorSystemCautious : errorDetectorSystem;
  const cached = o.layout === "cached";
  const prompt = cached
    ? joinPromptRefs(system, errorDetectorTask, errorDetectorQuestion)
    : joinPromptRefs(system, errorDetectorUser);
  const sized = (parts: ChatContentPart[]) =>
    o.imageMaxSide ? parts.map((p) => (p.type === "image" ? { ...p, maxSide: o.imageMaxSide } : p)) : parts;
  return {
    name: o.name,
    latency: "model",
    ...(model.endpoint !== undefined && { endpoint: model.endpoint }),
    async detect(input: DetectorInput): Promise<Detection> {
      const t = input.history.length;
      if (t === 0) return { ...noDetection("no steps taken yet"), prompt };
      const lastStep = t - 1;
      const schema = DetectorReplySchema.refine(
        (r) => !r.off_track || (r.error_step! >= 0 && r.error_step! <= lastStep),
        {
          message: `error_step must be between 0 and ${lastStep}`,
          path: ["error_step"],
        },
      );
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
            content: cached
              ? cachedLayout(input, o, sized)
              : [
                  {
                    type: "text",
                    text: renderPrompt(errorDetectorUser, {
                      instruction: input.task.instruction,
                      step_count: t,
                      last_step: lastStep,
                    }),
                  },
                  ...sized(
                    historyParts(input.history, {
                      images: o.historyImages,
                      detail: o.detail,
                      responseChars: o.responseChars,
                      observation: o.observation,
                    }),
                  ),
                  { type: "text", text: `Current screen (after step ${lastStep}):` },
                  ...sized(observationParts(input.observation, o.observation, o.detail)),
                ],
          },
        ],
      });
      if (!reply.value) {
        // The runtime logs it (packages/core/src/runtime/detection.ts: per step until recovery is degraded, then once).
        logger.debug(
          { detector: o.name, step: input.step, failure: reply.failure },
          "detector failed; treating as no detection",
        );
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

/**
 * The first step the cached layout shows for a history of `t` steps: a multiple of k, leaving k to 2k-1 steps (all of
 * them while t < 2k).
 */
export function windowStart(t: number, k: number): number {
  return t < 2 * k ? 0 : k * Math.floor((t - k) / k);
}

/**
 * The changed lines between two linearized trees (header line left out), or "(no change)". With
 * `maxLines`, at most that many: the first removed and the first added lines (half each; a side
 * with fewer leaves its share to the other), then `(N more changed lines not shown)`.
 */
export function treeDiffText(before: string, after: string, maxLines?: number): string {
  const a = before.split("\n").slice(1);
  const b = after.split("\n").slice(1);
  const inA = new Set(a);
  const inB = new Set(b);
  const removed = a.filter((l) => !inB.has(l)).map((l) => `- ${l}`);
  const added = b.filter((l) => !inA.has(l)).map((l) => `+ ${l}`);
  const total = removed.length + added.length;
  if (total === 0) return "(no change)";
  if (maxLines === undefined || total <= maxLines) return [...removed, ...added].join("\n");
  const keepRemoved = Math.min(removed.length, Math.max(Math.ceil(maxLines / 2), maxLines - added.length));
  const keepAdded = Math.min(added.length, maxLines - keepRemoved);
  return [
    ...removed.slice(0, keepRemoved),
    ...added.slice(0, keepAdded),
    `(${total - keepRemoved - keepAdded} more changed lines not shown)`,
  ].join("\n");
}

type CachedOptions = {
  historySteps: number;
  observation: ObservationType;
  detail: "low" | "high" | "auto";
  treeDiff: boolean;
  treeDiffMaxLines?: number;
};

/**
 * The user message of the cached layout: the task (stable), every step's action line, and for the
 * window's steps the screen each one left (append-only: a new step only adds at the end, until the
 * window's start jumps by k), then the question, the only text that changes from call to call.
 * The screens of the window are screenshots (downscaled) or full trees; with `treeDiff`, a tree is
 * shown as the lines the step changed, the current screen included (the cheapest view of what each
 * action did; the judge never gets a full tree then).
 */
function cachedLayout(
  input: DetectorInput,
  o: CachedOptions,
  sized: (parts: ChatContentPart[]) => ChatContentPart[],
): ChatContentPart[] {
  const { history } = input;
  const t = history.length;
  const start = windowStart(t, o.historySteps);
  const screen = (obs: Observation) => sized(observationParts(obs, o.observation, o.detail));
  const trees = o.observation !== "screenshot";
  const tree = (obs: Observation) => (trees && obs.axTree ? linearizeAxTree(obs.axTree) : undefined);
  const parts: ChatContentPart[] = [
    { type: "text", text: renderPrompt(errorDetectorTask, { instruction: input.task.instruction }) },
  ];
  for (let i = 0; i < t; i++) {
    parts.push({ type: "text", text: `Step ${i} action: ${describeActions(history[i])}` });
    if (i < start) continue;
    const before = history[i].observation;
    const after = i + 1 < t ? history[i + 1].observation : input.observation;
    const [tb, ta] = [tree(before), tree(after)];
    if (o.treeDiff && tb !== undefined && ta !== undefined) {
      const image = o.observation === "screenshot_a11y_tree" ? screen(after).filter((p) => p.type === "image") : [];
      parts.push(
        { type: "text", text: `Screen after step ${i} (changed lines of the accessibility tree):` },
        ...image,
        { type: "text", text: treeDiffText(tb, ta, o.treeDiffMaxLines) },
      );
    } else {
      parts.push({ type: "text", text: `Screen after step ${i}:` }, ...screen(after));
    }
  }
  parts.push({
    type: "text",
    text: renderPrompt(errorDetectorQuestion, { step_count: t, first_shown: start, last_step: t - 1 }),
  });
  return parts;
}
