/**
 * Option schemas of the simulated (seeded, model-free) components, validated once at the factory
 * boundary. Numbers out of range fail with a ConfigError naming the field.
 */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import { SLIP_KINDS, type SimDeskTask, type SimGroundTruth, type SlipKind } from "@retrace-cua/core/ground-truth";

const probability = z.number().min(0).max(1);
const seed = z.union([z.number().int(), z.string()]);

/** Relative weights per slip kind; missing kinds weigh 0 when a mix is given. */
export type SlipMix = Partial<Record<SlipKind, number>>;

/**
 * Default slip mix of the forward policy: mostly visible slips (misclick, wrong item, typo),
 * fewer skipped steps and latent mistakes, rare premature DONE.
 */
export const DEFAULT_SLIP_MIX: Readonly<Record<SlipKind, number>> = Object.freeze({
  misclick: 0.25,
  typo: 0.2,
  "wrong-item": 0.25,
  skip: 0.1,
  "premature-done": 0.05,
  latent: 0.15,
});

const slipMixSchema = z
  .object(
    Object.fromEntries(SLIP_KINDS.map((k) => [k, z.number().min(0).optional()])) as Record<
      SlipKind,
      z.ZodOptional<z.ZodNumber>
    >,
  )
  .strict()
  .refine((m) => Object.values(m).some((w) => (w ?? 0) > 0), { message: "needs at least one positive weight" });

export const SimForwardOptionsSchema = z.object({
  seed: seed.default(0),
  slipRate: probability.default(0.1),
  slipMix: slipMixSchema.optional(),
  noticeRate: probability.default(0.05),
});

export const SimRecoveryOptionsSchema = z.object({
  seed: seed.default(0),
  skill: probability,
  falseDoneRate: probability.optional(),
  forwardBias: probability.default(0.5),
  harmRate: probability.default(0),
  assumeRestoredRate: probability.default(0),
  overUndoRate: probability.default(0),
  contextEffects: z
    .object({
      errorInference: probability.default(0.75),
      targetInference: probability.default(0.7),
      summaryFidelity: probability.default(0.9),
      blindFalseDone: z.number().min(1).max(10).default(2),
    })
    .strict()
    .default({ errorInference: 0.75, targetInference: 0.7, summaryFidelity: 0.9, blindFalseDone: 2 }),
});

export const SimPerturbationOptionsSchema = z.object({
  seed: seed.default(0),
  preferStateChanging: z.boolean().default(true),
});

export const SimDetectorOptionsSchema = z.object({
  seed: seed.default(0),
  recall: probability.default(0.9),
  falsePositiveRate: probability.default(0.02),
  localisationNoise: probability.default(0.1),
});

export const SimSelectorOptionsSchema = z.object({
  seed: seed.default(0),
  accuracy: probability.default(0.8),
});

/** Validate `input` against `schema`; on failure throw one ConfigError naming the first bad field. */
export function parseSimOptions<S extends z.ZodType>(factory: string, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.map(String).join(".");
  throw new ConfigError(`${factory}: option "${field || "(options)"}" is invalid: ${issue.message}`, {
    field: field || undefined,
  });
}

/** Check the non-numeric inputs a simulated component needs (a SimDesk task, a ground truth). */
export function requireTask(factory: string, task: SimDeskTask | undefined): SimDeskTask {
  if (!task || typeof task.id !== "string" || !Array.isArray(task.plan)) {
    throw new ConfigError(
      `${factory}: option "task" must be a SimDesk task with an id and a plan (one of SIMDESK_TASKS)`,
      { field: "task" },
    );
  }
  return task;
}

export function requireGroundTruth(factory: string, gt: SimGroundTruth | undefined): SimGroundTruth {
  if (!gt || typeof gt.planIndexOf !== "function" || typeof gt.nextRestorativeAction !== "function") {
    throw new ConfigError(`${factory}: option "groundTruth" must be a SimDesk ground truth (SimGroundTruth)`, {
      field: "groundTruth",
    });
  }
  return gt;
}

/** The stateId of an observation, or a ConfigError: simulated components need SimDesk observations. */
export function requireStateId(factory: string, stateId: string | undefined, what: string): string {
  if (!stateId) {
    throw new ConfigError(
      `${factory}: ${what} has no stateId; simulated components only run on SimDesk (a ground-truth environment)`,
      {
        field: "observation.stateId",
      },
    );
  }
  return stateId;
}

/** Compact "k=v" list for labels, e.g. `slipRate=0.1, noticeRate=0.05`. */
export function formatParams(params: Record<string, unknown>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(", ");
}

/**
 * A component interface as the simulated one implements it: `simulated` is always true, and `label` describes its
 * configuration for reports.
 */
export type Simulated<T> = T & { readonly simulated: true; readonly label: string };

/** A simulated component: `{ name, simulated: true, label, ...members }`. */
export function simulated<M extends object>(
  name: string,
  label: string,
  members: M,
): Simulated<M & { readonly name: string }> {
  return { name, simulated: true, label, ...members };
}

/** Round to 3 decimals (confidences, and rates derived for labels). */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
