/**
 * Experiment configs (JSON or YAML), validated with zod. Three kinds:
 * - `ideal-recovery`: the paper's Section 4 / Appendix B.1 (Success@K per recovery step R);
 * - `end-to-end`: Section 6 / Appendix B.2 (no recovery vs recovery with max recovery iterations);
 * - `sweep`: any recovery option over a list of values, alone or as a grid, crossed with max recovery iterations.
 */
import { z } from "zod";
import {
  MAX_RECOVERY_ITERATIONS,
  MAX_SETTLE_MS,
  PAPER_UNCONFIRMED_RESTORATION,
  RecoveryOptionsSchema,
  UNCONFIRMED_RESTORATION,
  type RecoveryOptions,
} from "@retrace-cua/core/episode";
import { RECOVERY_STEP_STRATEGIES } from "@retrace-cua/core/selector";
import { DRAWS_MODES } from "@retrace-cua/models/models/draws";

/**
 * An agent component (`{ kind: sim | model | stagnation | loop, ... }`); each kind's fields are checked by
 * experiments/agents.
 */
export { AgentSpecSchema, type AgentSpec } from "../agents/spec.ts";
import { AgentSpecSchema } from "../agents/spec.ts";

/**
 * A zod check that a list holds each value once; the issue names the first repeated value and its
 * positions (a repeated task, cap or seed would otherwise run its episodes several times and keep one).
 */
function listedOnce(what: string, hint: string) {
  return (list: readonly unknown[], ctx: z.RefinementCtx) => {
    const first = new Map<string, number>();
    for (let i = 0; i < list.length; i++) {
      const key = JSON.stringify(list[i]);
      const j = first.get(key);
      if (j === undefined) first.set(key, i);
      else
        return ctx.addIssue({
          code: "custom",
          message: `${what} ${key} is listed twice (positions ${j} and ${i}); ${hint}`,
        });
    }
  };
}
/** Most tasks one run takes (OSWorld has 369; a bigger list is a mistake or several runs). */
export const MAX_TASKS = 10_000;

/** Which environment and which of its tasks. */
export const EnvSpecSchema = z
  .object({
    /** Environment kind: simdesk, x11, docker, browser or osworld. @default "simdesk" */
    kind: z.string().min(1).default("simdesk"),
    /** osworld: the control server's URL (e.g. http://127.0.0.1:5000). */
    url: z.string().url().optional(),
    /** osworld: an OSWorld `evaluation_examples` folder. @default ../shared/osworld-tasks */
    tasksDir: z.string().min(1).optional(),
    /**
     * osworld: an OSWorld checkout (put on PYTHONPATH): tasks whose metrics need OSWorld's Python evaluators run
     * through it when they import. @default none (such tasks are skipped)
     */
    osworldPath: z.string().min(1).optional(),
    /** osworld: the Python with OSWorld's requirements, used with `osworldPath`. @default "python3" */
    python: z.string().min(1).optional(),
    /**
     * osworld, with `osworldPath`: `retrace` scores natively where it can (OSWorld's code runs the
     * set-up steps, getters and metrics retrace lacks); `osworld` scores every task by OSWorld's own
     * `DesktopEnv.evaluate`. @default "retrace"
     */
    osworldEvaluator: z.enum(["retrace", "osworld"]).optional(),
    /** osworld: host port of the desktop's Chromium debugging endpoint, for OSWorld's Chrome getters. @default 9222 */
    chromiumPort: z.number().int().min(1).max(65535).optional(),
    /**
     * browser: a task file (YAML/JSON) of the user's own web apps (packages/browser/src/tasks/file.ts),
     * relative to the working directory; omitted = the built-in web-app suite.
     */
    tasksFile: z.string().min(1).optional(),
    /** Task ids, in order; omitted = every task of the environment. */
    tasks: z
      .array(z.string().min(1))
      .min(1)
      .max(MAX_TASKS, `at most ${MAX_TASKS} tasks per run`)
      .superRefine(listedOnce("task", "list each task once"))
      .optional(),
    /** Keep at most this many tasks (after `tasks`), for quick runs. */
    limit: z.number().int().min(1).max(MAX_TASKS, `at most ${MAX_TASKS} tasks per run`).optional(),
    /** Keep this many tasks spread evenly over the list (after `tasks`), for quick but representative runs. */
    sample: z.number().int().min(1).max(MAX_TASKS, `at most ${MAX_TASKS} tasks per run`).optional(),
  })
  .strict();
export type EnvSpec = z.output<typeof EnvSpecSchema>;

/**
 * Largest seed magnitude (10^15). A config's seeds are shifted by `--seed` (same bound), so every
 * resolved seed stays a safe integer (below 2^53 ~ 9.007e15); a seed of 2^53-1 used to fail after
 * the first result was written.
 */
export const MAX_SEED = 1_000_000_000_000_000;
const seedValue = z
  .number()
  .int()
  .min(-MAX_SEED, `seeds are integers from -${MAX_SEED} to ${MAX_SEED}`)
  .max(MAX_SEED, `seeds are integers from -${MAX_SEED} to ${MAX_SEED}`);

/** Most seeds one run takes (a bigger study is several runs; 10^8 seeds used to end in a RangeError). */
export const MAX_SEEDS = 10_000;

/** Seeds: an explicit list (each seed once) or `{ count, start }`. */
export const SeedsSchema = z.union([
  z
    .array(seedValue)
    .min(1)
    .max(MAX_SEEDS, `at most ${MAX_SEEDS} seeds per run; split a bigger study into several runs`)
    .superRefine(
      listedOnce("each seed may appear once (a repeated seed would silently run once): seed", "list distinct seeds"),
    ),
  z
    .object({
      count: z
        .number()
        .int()
        .min(1)
        .max(MAX_SEEDS, `at most ${MAX_SEEDS} seeds per run; split a bigger study into several runs`),
      start: seedValue.default(0),
    })
    .strict(),
]);

/** A list of `maxRecoveryIterations` values (each a cap on recovery attempts per episode), each listed once. */
const caps = (min: number) =>
  z
    .array(
      z
        .number()
        .int()
        .min(min)
        .max(MAX_RECOVERY_ITERATIONS, `at most ${MAX_RECOVERY_ITERATIONS} recovery attempts (the paper uses 1, 3, 5)`),
    )
    .min(1)
    .max(20, "at most 20 values of max recovery iterations per run")
    .superRefine(listedOnce("max recovery iterations", "list each value once"));

/**
 * Per-pair recovery options: only the fields written (no defaults filled in, or they would
 * override the config's `options`); `settleMs` is not per pair, and a pair's own `maxRecoveryIterations` is a list of
 * its own.
 */
const pairOptionsShape = RecoveryOptionsSchema.omit({ settleMs: true, maxRecoveryIterations: true }).shape;
const PairOptionsPatch = z
  .object(
    Object.fromEntries(
      Object.entries(pairOptionsShape).map(([k, v]) => [
        k,
        (v as unknown as z.ZodDefault<z.ZodType>).removeDefault().optional(),
      ]),
    ),
  )
  .strict() as unknown as z.ZodType<Partial<Omit<RecoveryOptions, "settleMs" | "maxRecoveryIterations">>>;

/** A forward policy plus the components that recover it. */
export const PairSpecSchema = z
  .object({
    /** Short name used in condition ids (letters, digits, - and _). */
    name: z.string().regex(/^[A-Za-z0-9_-]+$/, "use letters, digits, - and _ only"),
    forward: AgentSpecSchema,
    /** The recovery sub-agent; defaults to the forward agent's profile (same backbone, as in B.2). */
    recovery: AgentSpecSchema.optional(),
    detector: AgentSpecSchema.optional(),
    selector: AgentSpecSchema.optional(),
    /** Writes the contextualized recovery context; defaults to the recovery agent's backbone when it is a model. */
    summarizer: AgentSpecSchema.optional(),
    /** Optional: confirms a restored state. */
    verifier: AgentSpecSchema.optional(),
    /**
     * Run this pair's no-recovery baseline (when the config asks for baselines). Pairs sharing a forward policy need
     * only one. @default true
     */
    baseline: z.boolean().default(true),
    /**
     * Recovery options of this pair's conditions, over the config's `options`:
     * how retrace's variants (e.g. `minConfidence: 0.5`, `transition: detailed`) run beside the
     * paper's defaults in one run. `settleMs` stays per config (it is recorded per run) and
     * `maxRecoveryIterations` per condition (the pair's own list below). @default none
     */
    options: PairOptionsPatch.optional(),
    /**
     * This pair's own max recovery iterations, one condition per value, instead of the config's
     * `maxRecoveryIterations` (e.g. a production recipe with a cap of 1 beside the paper's 3 in one
     * run). @default the config's list
     */
    maxRecoveryIterations: caps(1).optional(),
  })
  .strict();
export type PairSpec = z.output<typeof PairSpecSchema>;

// settleMs has no default here: when a config leaves it out, the runner uses the environment's
// (experiments/runner/settle.ts: osworld 10 s as in the paper, others 0).
// unconfirmedRestoration defaults to the paper's "claim-recovered" here: an experiment reproduces
// the paper unless its config says otherwise (the library's default is "disclose-and-keep").
// Only the fields written, like a pair's `options` (zod's partial() would fill in every default,
// and a default here would override a detection preset's recovery recipe: experiments/runner/conditions.ts).
const optionsShape = Object.fromEntries(
  Object.entries(RecoveryOptionsSchema.shape).map(([k, v]) => [
    k,
    (v as unknown as z.ZodDefault<z.ZodType>).removeDefault?.().optional() ?? (v as z.ZodType).optional(),
  ]),
);
const OptionsPatch = z
  .object({
    ...optionsShape,
    settleMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_SETTLE_MS, `at most ${MAX_SETTLE_MS} ms (one minute) after each action (OSWorld waits 10000)`)
      .optional(),
    unconfirmedRestoration: z.enum(UNCONFIRMED_RESTORATION).default(PAPER_UNCONFIRMED_RESTORATION),
  })
  .strict() as unknown as z.ZodType<
  Partial<RecoveryOptions> & { unconfirmedRestoration: RecoveryOptions["unconfirmedRestoration"] },
  Partial<z.input<typeof RecoveryOptionsSchema>>
>;
const common = {
  /** Experiment name, used in reports. */
  name: z.string().min(1),
  env: EnvSpecSchema.default({ kind: "simdesk" }),
  seeds: SeedsSchema.default({ count: 3, start: 0 }),
  /** Recovery options shared by every condition (each condition may override some). */
  options: OptionsPatch.default({ unconfirmedRestoration: PAPER_UNCONFIRMED_RESTORATION }),
  /** Re-run an episode this many times when the environment fails. @default 2 */
  envRetries: z.number().int().min(0).max(20, "at most 20 re-runs of an episode").default(2),
  /**
   * Wall-clock deadline per episode in ms: an episode still running then is aborted and recorded
   * (stopReason "aborted"), so a hung server costs minutes, not hours. @default 1800000 (30 min)
   */
  episodeTimeoutMs: z.number().int().min(1000).max(86_400_000).default(1_800_000),
  /**
   * How model agents of different conditions draw (packages/models/src/models/draws.ts). `paired`: two
   * conditions of a run share draws while their requests are the same (common random numbers:
   * they diverge only where the conditions make them), compared with paired tests. `independent`:
   * the condition is part of every draw identity, so conditions never share an answer.
   * Simulated agents always pair (their draws depend on task, seed and tick). @default "paired"
   */
  draws: z.enum(DRAWS_MODES).default("paired"),
};

export const IdealRecoveryConfigSchema = z
  .object({
    kind: z.literal("ideal-recovery"),
    ...common,
    forward: AgentSpecSchema,
    detector: AgentSpecSchema,
    /** Needed for the "llm" strategy. */
    selector: AgentSpecSchema.optional(),
    /** Writes the contextualized recovery context (model runs). */
    summarizer: AgentSpecSchema.optional(),
    /** Recovery steps R to compare. @default all four */
    strategies: z
      .array(z.enum(RECOVERY_STEP_STRATEGIES))
      .min(1)
      .superRefine(listedOnce("strategy", "list each strategy once"))
      .default([...RECOVERY_STEP_STRATEGIES]),
    /** Continuations per failed run and strategy (Success@1..K). @default 5 */
    k: z.number().int().min(1).max(20).default(5),
    /** Keep at most this many failed runs. */
    maxInstances: z.number().int().min(1).max(1_000_000, "at most 1000000 failed runs").optional(),
    /**
     * A failed run in which the detector finds no error: `last-step` keeps it with E = its last
     * step (the paper's rule: App. B.1 excludes only instances whose action replay fails);
     * `exclude` leaves it out of the continuations (retrace's earlier behaviour). Either way the
     * count is in summary.json (`ideal.exclusions`). @default "last-step"
     */
    noErrorFound: z.enum(["last-step", "exclude"]).default("last-step"),
    /**
     * What `options.maxForwardSteps` bounds in a continuation: `from-restore` gives the forward
     * agent that many steps after R (the paper's reading: max_steps is the forward agent's budget
     * and the prefix is replayed "before the forward agent resumes", App. B.1); `total` counts the
     * replayed prefix against it (a continuation from R = 44 of 50 gets 6 steps). @default "from-restore"
     */
    continuationBudget: z.enum(["from-restore", "total"]).default("from-restore"),
    /**
     * A failed run with fewer than `k` usable continuations in some strategy (its action replay
     * failed): `exclude` leaves the whole run out of every strategy's Success@K (the paper, App.
     * B.1: "after excluding instances where action replay fails"; one denominator for every curve
     * and K); `score-available` scores each strategy on the continuations it has (retrace's
     * earlier rule: R=0 never replays, so its denominator differed). @default "exclude"
     */
    incompleteInstances: z.enum(["exclude", "score-available"]).default("exclude"),
  })
  .strict();

export const EndToEndConfigSchema = z
  .object({
    kind: z.literal("end-to-end"),
    ...common,
    pairs: z.array(PairSpecSchema).min(1).max(100, "at most 100 pairs per run"),
    /**
     * Max recovery iterations compared against no recovery, one condition per value. Left out, a
     * pair with a detection preset runs its recipe's cap (production: 1) and any other pair
     * [1, 3, 5]; written, it applies to every pair without a list of its own
     * (experiments/runner/conditions.ts `pairCaps`). @default [1, 3, 5] ({@link DEFAULT_MAX_RECOVERY_ITERATIONS})
     */
    maxRecoveryIterations: caps(1).optional(),
    /** Include the no-recovery baseline per pair. @default true */
    baseline: z.boolean().default(true),
  })
  .strict();

/**
 * An end-to-end config's max recovery iterations when neither the config, the pair nor its detection preset sets them.
 */
export const DEFAULT_MAX_RECOVERY_ITERATIONS: readonly number[] = [1, 3, 5];

/** Named sweep presets (the issue's first-class sweeps). */
export const SWEEP_PRESETS = {
  "freeze-window": { freezeWindow: [0, 1, 3, 5, 10] },
  "recovery-budget": { recoveryBudget: [1, 3, 5, 10, 20] },
} as const;

export const SweepConfigSchema = z
  .object({
    kind: z.literal("sweep"),
    ...common,
    pair: PairSpecSchema,
    /** A preset to start from; `params` entries override or extend it. */
    preset: z.enum(Object.keys(SWEEP_PRESETS) as [keyof typeof SWEEP_PRESETS]).optional(),
    /** Recovery option name -> values to try. */
    params: z
      .record(
        z.string(),
        z
          .array(z.union([z.number(), z.string(), z.boolean()]))
          .min(1)
          .max(100, "at most 100 values per parameter")
          .superRefine(listedOnce("value", "list each value once")),
      )
      .default({}),
    /** "grid" = every combination; "each" = vary one parameter at a time around `options`. @default "grid" */
    mode: z.enum(["grid", "each"]).default("grid"),
    /** Max recovery iterations crossed with every setting (formerly `retryCap`). @default [1, 3, 5] */
    maxRecoveryIterations: caps(0).default([1, 3, 5]),
    /** Include a no-recovery baseline condition. @default true */
    baseline: z.boolean().default(true),
  })
  .strict();

export const ExperimentConfigSchema = z.discriminatedUnion("kind", [
  IdealRecoveryConfigSchema,
  EndToEndConfigSchema,
  SweepConfigSchema,
]);

export type IdealRecoveryConfig = z.output<typeof IdealRecoveryConfigSchema>;
export type EndToEndConfig = z.output<typeof EndToEndConfigSchema>;
export type SweepConfig = z.output<typeof SweepConfigSchema>;
/** A validated experiment config with defaults resolved. */
export type ExperimentConfig = z.output<typeof ExperimentConfigSchema>;
/** A config as written by the user. */
export type ExperimentConfigInput = z.input<typeof ExperimentConfigSchema>;

/**
 * Old field names of each config kind (old -> new), accepted with a deprecation warning until the
 * next release (experiments/config/load.ts renames them before validating).
 */
export const DEPRECATED_CONFIG_FIELDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  sweep: { retryCap: "maxRecoveryIterations" },
};
