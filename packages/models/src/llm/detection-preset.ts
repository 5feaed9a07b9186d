/**
 * Detection presets: one name for a whole detector setup, the same on every path (withRecovery and
 * the graph, the LangChain middleware, the SDK integrations, experiment configs).
 *
 * - `paper`: the paper's detector (App. B.2): asked after every forward step with the whole action
 *   history, the last `historyImages` screens and the current screen (createLlmErrorDetector with
 *   its defaults; the prompt is the paper preset's, byte-identical).
 * - `production`: the same judge sized for cost: the cascade gates (packages/core/src/detectors/cascade.ts) in
 *   front of it, so it is asked only when a cheap gate opens; a window of the last `historySteps`
 *   steps instead of the whole history; screenshots downscaled to `imageMaxSide`; accessibility
 *   trees as diffs (`treeDiff`); and the cache-friendly request layout (`layout: "cached"`: stable
 *   system + task prefix, append-only history, the question last).
 *
 * `model` is the judge's own chat model, so it can be cheaper than the policy's.
 */
import { z } from "zod";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import { createCascadeDetector, parseCascadeGates, type CascadeGateSpec } from "@retrace-cua/core/detectors/cascade";
import { ConfigError } from "@retrace-cua/core/errors";
import { createLlmErrorDetector, type LlmErrorDetectorOptions } from "./detector.ts";
import { requireModel } from "./options.ts";

/** The detection presets. */
export const DETECTION_PRESETS = ["paper", "production"] as const;
export type DetectionPreset = (typeof DETECTION_PRESETS)[number];

/**
 * The gates of the production preset: a step that did nothing, a loop (fires on its own), a big
 * screen change, every 2nd step as a safety net, and the step before the episode ends. (Every 6th
 * step until each judge call was made cheaper, a shorter window and tree diffs capped at 4 lines:
 * the cheaper calls pay for the denser net at the same watching cost; docs/cost.md, "Detector levers".)
 */
export const PRODUCTION_GATES: CascadeGateSpec[] = [
  { kind: "no-effect" },
  { kind: "loop" },
  { kind: "visual-change" },
  { kind: "every-k", k: 2 },
  { kind: "before-done" },
];

/**
 * The production preset's context defaults (each one overridable): the screens of the last 2 steps (2 to 3 shown), tree
 * diffs of at most 4 lines.
 */
export const PRODUCTION_DETECTION = {
  historySteps: 2,
  imageMaxSide: 768,
  treeDiff: true,
  treeDiffMaxLines: 4,
  gates: PRODUCTION_GATES,
} as const;

/** A detector given by preset: `{ preset: "production", model: judgeChatModel }`. */
export interface DetectionPresetOptions extends Omit<LlmErrorDetectorOptions, "layout"> {
  /** "paper" (every step, whole history) or "production" (gated, windowed, cache-friendly). */
  preset: DetectionPreset;
  /** production only: the cascade gates in front of the judge. @default PRODUCTION_GATES */
  gates?: CascadeGateSpec[];
  /**
   * The recovery recipe that comes with the preset (packages/core/src/runtime/preset-recovery.ts): recovery
   * attempts per episode, under a `maxRecoveryIterations` option of the caller's own.
   * @default 1 (production), the runtime's 3 (paper)
   */
  maxRecoveryIterations?: number;
  /**
   * Recovery steps per attempt, under a `recoveryBudget` option of the caller's own (a path whose
   * restore routine is yours, the LangChain middleware, takes it from you: `recoverWithPolicy({ recoveryBudget })`).
   * @default 5 (production), the runtime's 10 (paper)
   */
  recoveryBudget?: number;
}

/**
 * The production preset's recovery recipe (1 attempt of at most 5 steps, ended early when the recovery agent repeats
 * itself: `onRecoveryRepeat` "stop"; once it is spent, a stuck agent ends the episode: `onStuck` "stop"; the caller's
 * own options override them), defined with its resolver in
 * packages/core/src/runtime/preset-recovery.ts.
 */
export { PRODUCTION_RECOVERY } from "@retrace-cua/core/runtime/preset-recovery";

/** Options only the production preset takes. */
const PRODUCTION_ONLY = ["gates", "historySteps", "treeDiff", "treeDiffMaxLines"] as const;

/** Build the detector of a preset; a bad field throws one ConfigError line naming it. */
export function createDetectionPreset(options: DetectionPresetOptions, where = "detector"): ErrorDetector {
  if (!options || typeof options !== "object")
    throw new ConfigError(`${where}: expected { preset: "paper" | "production", model: ChatModel }`, { field: where });
  const { preset, gates, maxRecoveryIterations: _cap, recoveryBudget: _budget, ...rest } = options;
  const p = z.enum(DETECTION_PRESETS).safeParse(preset);
  if (!p.success)
    throw new ConfigError(`${where}.preset: expected "paper" or "production", got ${JSON.stringify(preset)}`, {
      field: `${where}.preset`,
    });
  requireModel(rest.model, `${where} (preset ${preset})`);
  if (preset === "paper") {
    const extra = PRODUCTION_ONLY.find((k) => (options as unknown as Record<string, unknown>)[k] !== undefined);
    if (extra)
      throw new ConfigError(
        `${where}.${extra}: only the production preset takes "${extra}" (the paper preset is the paper's every-step detector)`,
        { field: `${where}.${extra}` },
      );
    return createLlmErrorDetector(rest);
  }
  const { gates: _defaultGates, ...context } = PRODUCTION_DETECTION;
  const judge = createLlmErrorDetector({ ...context, ...rest, layout: "cached" });
  return createCascadeDetector({ detector: judge, gates: parseCascadeGates(gates ?? PRODUCTION_GATES) });
}

/** Whether a value is a preset spec (rather than an ErrorDetector). */
export function isDetectionPresetSpec(v: unknown): v is DetectionPresetOptions {
  return !!v && typeof v === "object" && "preset" in v && typeof (v as { detect?: unknown }).detect !== "function";
}

/** A `detector` option as every path takes it: an ErrorDetector, or a preset spec built here. */
export function resolveDetectorOption(value: ErrorDetector | DetectionPresetOptions, where: string): ErrorDetector;
export function resolveDetectorOption(
  value: ErrorDetector | DetectionPresetOptions | undefined,
  where: string,
): ErrorDetector | undefined;
export function resolveDetectorOption(
  value: ErrorDetector | DetectionPresetOptions | undefined,
  where: string,
): ErrorDetector | undefined {
  return isDetectionPresetSpec(value) ? createDetectionPreset(value, where) : value;
}
