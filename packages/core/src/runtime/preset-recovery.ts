/**
 * The recovery half of a detection preset (issue 40, docs/cost.md "Recovery levers"): the
 * `production` preset also sets how much a recovery may spend, so every path that takes
 * `detector: { preset: "production" }` (withRecovery and the graph, the LangChain middleware, the
 * SDK integrations, experiment configs) runs the same recipe. The paper preset sets nothing: its
 * recovery is the runtime's defaults (the paper's: 3 attempts, 10 recovery steps each).
 *
 * Precedence, on every path: the caller's own option > the preset spec's field > the preset's
 * recipe > the runtime's default. In experiment configs: a pair's own value (its
 * `maxRecoveryIterations` list, its `options`, its detector spec's fields) > the config's explicit
 * global value (`maxRecoveryIterations`, `options`) > the recipe > the runtime's default. Values are checked with the
 * runtime's bounds and messages
 * (`detector.maxRecoveryIterations`).
 */
import { z } from "zod";
import { RecoveryOptionsSchema, type RecoveryOptions } from "../episode.ts";
import { optionError } from "./options.ts";

/**
 * The recovery knobs a detection preset's recipe sets. A preset spec's own fields are the first two
 * (`detector.maxRecoveryIterations` / `detector.recoveryBudget`); `onRecoveryRepeat` and `onStuck` are the caller's options.
 */
export const PRESET_RECOVERY_KNOBS = [
  "maxRecoveryIterations",
  "recoveryBudget",
  "onRecoveryRepeat",
  "onStuck",
] as const;
export type PresetRecoveryKnob = (typeof PRESET_RECOVERY_KNOBS)[number];
/** What a preset sets about recovery. */
export type PresetRecovery = Partial<Pick<RecoveryOptions, PresetRecoveryKnob>>;

/**
 * The production preset's recovery recipe, measured on the stand-in (docs/cost.md, "Recovery
 * levers"): one recovery attempt per episode (the paper: 3) of at most 5 recovery steps (the
 * paper: 10), and an attempt whose sub-agent repeats itself (the same actions again on a screen it
 * already stood on) ends there, unconfirmed (the paper: it runs until its budget is spent); once
 * that attempt is spent, a forward agent stuck on one no-effect step (the same actions 3 times on
 * an unchanged screen) ends the episode, stop reason "stuck" (the paper: it runs to the step cap).
 */
export const PRODUCTION_RECOVERY: Readonly<Required<PresetRecovery>> = {
  maxRecoveryIterations: 1,
  recoveryBudget: 5,
  onRecoveryRepeat: "stop",
  onStuck: "stop",
};

const FieldsSchema = z.object({
  maxRecoveryIterations: RecoveryOptionsSchema.shape.maxRecoveryIterations.removeDefault().optional(),
  recoveryBudget: RecoveryOptionsSchema.shape.recoveryBudget.removeDefault().optional(),
});

/** A detection preset's recovery knobs in two parts: the spec's own fields, and the preset's recipe under them. */
export interface PresetRecoveryParts {
  /**
   * What the spec itself sets (`detector.maxRecoveryIterations` / `detector.recoveryBudget`): the caller's own choice.
   */
  fields: PresetRecovery;
  /**
   * The preset's recipe ({@link PRODUCTION_RECOVERY} for production, {} for paper): a default under every explicit
   * value.
   */
  recipe: PresetRecovery;
}

/**
 * A `detector` option's recovery knobs, split into the spec's own fields and the preset's recipe
 * (both {} for an ErrorDetector or a spec without `preset`). Experiment configs need the split: a
 * config's explicit global `options` / `maxRecoveryIterations` sit between the two. A bad value
 * throws one ConfigError line naming `detector.<field>`.
 */
export function presetRecoveryParts(detector: unknown, where = "recovery options"): PresetRecoveryParts {
  if (
    !detector ||
    typeof detector !== "object" ||
    !("preset" in detector) ||
    typeof (detector as { detect?: unknown }).detect === "function"
  )
    return { fields: {}, recipe: {} };
  const d = detector as Record<string, unknown>;
  const own = FieldsSchema.safeParse({
    maxRecoveryIterations: d.maxRecoveryIterations,
    recoveryBudget: d.recoveryBudget,
  });
  if (!own.success) {
    const issue = own.error.issues[0];
    throw optionError(where, { ...issue, path: ["detector", ...issue.path] });
  }
  const fields = Object.fromEntries(Object.entries(own.data).filter(([, v]) => v !== undefined)) as PresetRecovery;
  return { fields, recipe: d.preset === "production" ? { ...PRODUCTION_RECOVERY } : {} };
}

/**
 * The recovery knobs a `detector` option implies: {} for an ErrorDetector or the paper preset
 * without fields of its own; the production preset's {@link PRODUCTION_RECOVERY} under the spec's
 * own `maxRecoveryIterations` / `recoveryBudget` (each path uses only the knobs it takes). A bad value throws one ConfigError line naming
 * `detector.<field>`.
 */
export function presetRecoveryDefaults(detector: unknown, where = "recovery options"): PresetRecovery {
  const { fields, recipe } = presetRecoveryParts(detector, where);
  return { ...recipe, ...fields };
}
