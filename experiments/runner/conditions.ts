/**
 * Expanding a config into conditions (one setting of every knob) and conditions x tasks x seeds
 * into independent episode jobs, in one exact, deterministic order.
 */
import { PAPER_UNCONFIRMED_RESTORATION, type RecoveryOptionsInput } from "@retrace-cua/core/episode";
import { ConfigError } from "@retrace-cua/core/errors";
import {
  DEFAULT_MAX_RECOVERY_ITERATIONS,
  SWEEP_PRESETS,
  type EndToEndConfig,
  type ExperimentConfig,
  type PairSpec,
  type SweepConfig,
} from "../config/schema.ts";
import { resolveSettleMs } from "./settle.ts";
import { presetRecoveryParts } from "@retrace-cua/core/runtime/preset-recovery";

/** The config's common options with `settleMs` resolved for its environment (see settle.ts). */
function commonOptions(config: EndToEndConfig | SweepConfig): RecoveryOptionsInput {
  return { ...config.options, settleMs: resolveSettleMs(config)!.settleMs };
}

/**
 * The `unconfirmedRestoration` a condition runs with (recorded per condition in manifest.json); configs default to the
 * paper's (config/schema.ts).
 */
export function unconfirmedRestorationOf(condition: Condition): string {
  return condition.options.unconfirmedRestoration ?? PAPER_UNCONFIRMED_RESTORATION;
}

/** A scalar setting value. */
export type ParamValue = string | number | boolean;

/** One setting of an experiment: which agents, whether recovery runs, with which options. */
export interface Condition {
  /** Directory-safe id, unique within the experiment (e.g. `skilled.max-rec-3`). */
  id: string;
  pair: PairSpec;
  /** false = the no-recovery baseline (no detector at all). */
  recovery: boolean;
  /** Recovery options of this condition (common options plus its overrides). */
  options: RecoveryOptionsInput;
  /** The values that distinguish it, for tables and sweep charts. */
  params: Record<string, ParamValue>;
}

/** One independent episode to run. */
export interface EpisodeJob {
  /** Position in the expansion; results.jsonl is ordered by it. */
  index: number;
  /** `<condition>/<task>/<seed>` (+ `/k<i>` for continuations): the resume key. */
  key: string;
  condition: string;
  task: string;
  seed: number;
}

/** Resolve the seed list, shifted by the CLI's `--seed` base. */
export function resolveSeeds(seeds: ExperimentConfig["seeds"], base = 0): number[] {
  const list = Array.isArray(seeds) ? seeds : Array.from({ length: seeds.count }, (_, i) => seeds.start + i);
  const out = list.map((s) => s + base);
  const bad = out.find((s) => !Number.isSafeInteger(s));
  if (bad !== undefined)
    throw new ConfigError(
      `--seed: ${base} added to the config's seeds gives ${bad}, beyond the integers a seed can be; use a smaller --seed or smaller seeds`,
      { field: "seed" },
    );
  return out;
}

/**
 * Conditions of an end-to-end config: per pair, the baseline then each value of max recovery
 * iterations. A detection preset's recovery recipe is a default that fills only what the user did
 * not set: the pair's own value (its `maxRecoveryIterations` list, its `options`, its detector
 * spec's fields) > the config's explicit global value (`maxRecoveryIterations`, `options`) > the
 * preset's recipe > the runtime's default (the paper's; caps [1, 3, 5]).
 */
export function endToEndConditions(config: EndToEndConfig): Condition[] {
  if (config.maxRecoveryIterations) assertDistinct(config.maxRecoveryIterations, "maxRecoveryIterations", "value");
  config.pairs.forEach(
    (p, i) =>
      p.maxRecoveryIterations && assertDistinct(p.maxRecoveryIterations, `pairs.${i}.maxRecoveryIterations`, "value"),
  );
  assertDistinct(
    config.pairs.map((p) => p.name),
    "pairs",
    "pair name",
    (i) => `pairs.${i}.name`,
  );
  const out: Condition[] = [];
  const options = commonOptions(config);
  for (const pair of config.pairs) {
    // a detection preset's recovery recipe: under the config's explicit options and the pair's own
    const { fields, recipe } = presetRecoveryParts(pair.detector, `config.pairs.${config.pairs.indexOf(pair)}`);
    const { maxRecoveryIterations: _recipeCap, ...recipeRest } = recipe;
    const { maxRecoveryIterations: _fieldCap, ...fieldsRest } = fields;
    const own = { ...recipeRest, ...options, ...fieldsRest, ...pair.options };
    if (config.baseline && pair.baseline)
      out.push({
        id: `${pair.name}.no-recovery`,
        pair,
        recovery: false,
        options: { ...own, maxRecoveryIterations: 0 },
        params: { pair: pair.name, maxRecoveryIterations: 0 },
      });
    for (const cap of pairCaps(config, pair))
      out.push({
        id: `${pair.name}.max-rec-${cap}`,
        pair,
        recovery: true,
        options: { ...own, maxRecoveryIterations: cap },
        params: { pair: pair.name, maxRecoveryIterations: cap },
      });
  }
  assertUnique(out);
  return out;
}

/**
 * A pair's max recovery iterations: its own list, else its detector spec's own cap, else the
 * config's explicit list, else its detection preset's recipe cap, else the default [1, 3, 5].
 */
export function pairCaps(config: EndToEndConfig, pair: EndToEndConfig["pairs"][number]): number[] {
  const { fields, recipe } = presetRecoveryParts(pair.detector);
  const one = (cap: number | undefined) => (cap !== undefined ? [cap] : undefined);
  return (
    pair.maxRecoveryIterations ??
    one(fields.maxRecoveryIterations) ??
    config.maxRecoveryIterations ??
    one(recipe.maxRecoveryIterations) ?? [...DEFAULT_MAX_RECOVERY_ITERATIONS]
  );
}

/** The parameter lists of a sweep: the preset's, then `params` (which override). */
export function sweepParams(config: Pick<SweepConfig, "preset" | "params">): Record<string, ParamValue[]> {
  const base: Record<string, ParamValue[]> = config.preset
    ? Object.fromEntries(Object.entries(SWEEP_PRESETS[config.preset]).map(([k, v]) => [k, [...v]]))
    : {};
  return { ...base, ...config.params };
}

/** Conditions of a sweep: settings (grid or one-at-a-time) x max recovery iterations, plus an optional baseline. */
export function sweepConditions(config: SweepConfig): Condition[] {
  assertDistinct(config.maxRecoveryIterations, "maxRecoveryIterations", "value");
  const params = sweepParams(config);
  for (const [name, values] of Object.entries(params)) assertDistinct(values, `params.${name}`, "value");
  const names = Object.keys(params);
  const lengths = names.map((n) => params[n].length);
  const count =
    (config.mode === "grid" ? lengths.reduce((p, n) => p * n, 1) : lengths.reduce((p, n) => p + n, 0)) *
    config.maxRecoveryIterations.length;
  if (count > MAX_CONDITIONS)
    throw new ConfigError(
      `config.params: the sweep makes ${count} conditions, more than ${MAX_CONDITIONS}; use mode "each" or fewer values`,
      { field: "params" },
    );
  let settings: Array<Record<string, ParamValue>>;
  if (config.mode === "grid") {
    settings = [{}];
    for (const name of names) settings = settings.flatMap((s) => params[name].map((v) => ({ ...s, [name]: v })));
  } else {
    settings = names.flatMap((name) => params[name].map((v) => ({ [name]: v })));
  }
  const out: Condition[] = [];
  // a detection preset's recovery budget under the config's explicit options and the pair's own
  // (the caps are the sweep's own axis)
  const { fields, recipe } = presetRecoveryParts(config.pair.detector, "config.pair");
  const { maxRecoveryIterations: _recipeCap, ...recipeRest } = recipe;
  const { maxRecoveryIterations: _fieldCap, ...fieldsRest } = fields;
  const options = { ...recipeRest, ...commonOptions(config), ...fieldsRest, ...config.pair.options };
  if (config.baseline)
    out.push({
      id: "no-recovery",
      pair: config.pair,
      recovery: false,
      options: { ...options, maxRecoveryIterations: 0 },
      params: { maxRecoveryIterations: 0 },
    });
  for (const setting of settings)
    for (const cap of config.maxRecoveryIterations) {
      const p: Record<string, ParamValue> = { ...setting, maxRecoveryIterations: cap };
      out.push({
        id: settingId(p),
        pair: config.pair,
        recovery: true,
        options: { ...options, ...(p as RecoveryOptionsInput) },
        params: p,
      });
    }
  assertUnique(out);
  return out;
}

/** Most conditions one run may have (a grid sweep multiplies its lists). */
export const MAX_CONDITIONS = 1_000;

/**
 * A list meant to hold distinct values: the first repeat is a ConfigError naming the field and the
 * value (a repeated cap or value would make two conditions with the same id).
 */
function assertDistinct(
  values: readonly unknown[],
  field: string,
  what: string,
  fieldOf?: (i: number) => string,
): void {
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    const k = JSON.stringify(v);
    const first = seen.get(k);
    if (first !== undefined) {
      const at = fieldOf ? fieldOf(i) : `${field}.${i}`;
      throw new ConfigError(
        `config.${at}: ${field} has a duplicate ${what} ${k} (items ${first} and ${i}); list each ${what} once`,
        { field: at },
      );
    }
    seen.set(k, i);
  });
}

/** Conditions of an end-to-end or sweep config. */
export function conditionsOf(config: EndToEndConfig | SweepConfig): Condition[] {
  return config.kind === "end-to-end" ? endToEndConditions(config) : sweepConditions(config);
}

/**
 * Most episodes one run may plan (issue 41): the plan (job list, resume keys, results index) is
 * held in memory, ~1 KB per episode all told, so 10 000 seeds x 10 000 tasks x 2 100 conditions
 * ran the process out of memory. Checked arithmetically, before any list is built.
 */
export const MAX_PLAN_EPISODES = 1_000_000;

/** How many episodes a config plans over `taskCount` tasks, by arithmetic alone (nothing is allocated). */
export function planEpisodeCount(config: ExperimentConfig, taskCount: number): { episodes: number; parts: string } {
  const seeds = Array.isArray(config.seeds) ? config.seeds.length : config.seeds.count;
  let conditions: number;
  if (config.kind === "end-to-end") {
    conditions = config.pairs.reduce(
      (n, p) => n + (config.baseline && p.baseline ? 1 : 0) + pairCaps(config, p).length,
      0,
    );
  } else if (config.kind === "sweep") {
    const lengths = Object.values(sweepParams(config)).map((v) => v.length);
    conditions =
      (config.mode === "grid" ? lengths.reduce((p, n) => p * n, 1) : lengths.reduce((p, n) => p + n, 0)) *
        config.maxRecoveryIterations.length +
      (config.baseline ? 1 : 0);
  } else {
    // forward runs, then at most one continuation per failed run, strategy and k
    const forward = taskCount * seeds;
    const failed = Math.min(forward, config.maxInstances ?? forward);
    const episodes = forward + failed * config.strategies.length * config.k;
    return {
      episodes,
      parts: `${taskCount} task(s) x ${seeds} seed(s) forward runs + up to ${failed} failed run(s) x ${config.strategies.length} strategies x k ${config.k}`,
    };
  }
  return {
    episodes: conditions * taskCount * seeds,
    parts: `${conditions} condition(s) x ${taskCount} task(s) x ${seeds} seed(s)`,
  };
}

/** Refuse a plan above {@link MAX_PLAN_EPISODES} with one line giving its size. */
export function checkPlanSize(config: ExperimentConfig, taskCount: number): void {
  const { episodes, parts } = planEpisodeCount(config, taskCount);
  if (episodes > MAX_PLAN_EPISODES)
    throw new ConfigError(
      `config: the run plans ${episodes.toLocaleString("en-US")} episodes (${parts}), more than ${MAX_PLAN_EPISODES.toLocaleString("en-US")} per run; split it into several runs (fewer seeds, tasks, pairs or retry caps)`,
      { field: "seeds" },
    );
}

/** Conditions x tasks x seeds, condition-major, in input order. */
export function expandJobs(
  conditions: readonly string[],
  tasks: readonly string[],
  seeds: readonly number[],
): EpisodeJob[] {
  const jobs: EpisodeJob[] = [];
  for (const condition of conditions)
    for (const task of tasks)
      for (const seed of seeds)
        jobs.push({ index: jobs.length, key: `${condition}/${task}/${seed}`, condition, task, seed });
  return jobs;
}

/** `freezeWindow=5,maxRecoveryIterations=3` (directory-safe). */
export function settingId(params: Record<string, ParamValue>): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${String(v).replace(/[^A-Za-z0-9._-]/g, "_")}`)
    .join(",");
}

function assertUnique(conditions: Condition[]): void {
  const seen = new Set<string>();
  for (const c of conditions) {
    if (seen.has(c.id))
      throw new ConfigError(`config.pairs: duplicate condition id ${c.id}; give every pair its own name`, {
        field: "pairs",
      });
    seen.add(c.id);
  }
}
