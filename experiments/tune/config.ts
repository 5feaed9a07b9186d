/**
 * `kind: tune` configs: the base experiment (env, options, one forward/recovery pair, one value
 * of max recovery iterations) plus the space to race over (`space`: any config field path ->
 * values), the race's settings (`race`) and an optional cost limit. Each candidate becomes an
 * end-to-end config: `options.<recovery option>` knobs go to the pair's options, `pair.<path>`
 * knobs into the pair (e.g. `pair.detector.minConfidence`), `maxRecoveryIterations` to the
 * config's one value, and any other path (e.g. a future `detector.preset`) into the config as
 * written; the runner's own validation then checks every candidate, naming the field.
 */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import { RecoveryOptionsSchema } from "@retrace-cua/core/episode";
import { checkKnobs, type Knob, type KnobValue, type TuneCandidate } from "@retrace-cua/evaluation/tune/space";
import { parseExperimentConfig, readConfigFile } from "../config/load.ts";
import type { EndToEndConfig } from "../config/schema.ts";

const value = z.union([z.number(), z.string(), z.boolean()]);

/**
 * The race's settings (`race:` in a tune config). Counts of seeds are per task: a round runs every task on
 * `seedsPerRound` new seeds.
 */
export const TuneRaceSchema = z
  .object({
    /** New seeds per round (each round adds tasks x seedsPerRound paired units). @default 2 */
    seedsPerRound: z.number().int().min(1).max(1000).default(2),
    /** Seeds every candidate runs before the first elimination test. @default 2 x seedsPerRound */
    firstTestAfterSeeds: z.number().int().min(1).max(10_000).optional(),
    /** Most seeds one batch runs; its survivors are then reported as tied at this budget. @default 40 */
    maxSeedsPerBatch: z.number().int().min(1).max(10_000).default(40),
    /** Most episodes the whole race runs. @default 5000 */
    maxEpisodes: z.number().int().min(1).max(1_000_000).default(5000),
    /** Family-wise level of each round's eliminations (Holm). @default 0.05 */
    alpha: z.number().gt(0).lt(1).default(0.05),
    /** Survivors within this many points of the best at 95% are tied (0.05 = 5 points). @default 0.05 */
    tieMargin: z.number().gt(0).lt(1).default(0.05),
    /** Candidates per batch (a smaller space is raced whole). @default 32 */
    batchSize: z.number().int().min(2).max(1000).default(32),
    /** Most batches. @default 1 when the space fits one batch, else 3 */
    batches: z.number().int().min(1).max(100).optional(),
    /** Survivors carried into the next batch. @default 2 */
    elites: z.number().int().min(0).max(100).default(2),
    /** First seed of the race (round seeds follow it). @default 0 */
    seedStart: z.number().int().min(0).max(1e12).default(0),
    /** Seed of the candidate sampler. @default 0 */
    seed: z.number().int().min(0).max(1e12).default(0),
  })
  .strict();

export const TuneConfigSchema = z
  .object({
    kind: z.literal("tune"),
    /** Knob path -> values. */
    space: z.record(z.string(), z.array(value).min(1).max(1000)),
    race: TuneRaceSchema.default(TuneRaceSchema.parse({})),
    /** Objective: success rate, with at most this mean cost per episode (tokens or USD). @default no limit */
    costLimit: z
      .union([z.object({ tokens: z.number().positive() }).strict(), z.object({ usd: z.number().positive() }).strict()])
      .optional(),
    /**
     * What the race maximises: success rate (default), optionally under a cap on the mean tokens or
     * USD per episode, or success per USD / per 1k tokens. @default { kind: success }
     */
    objective: z
      .object({
        kind: z.enum(["success", "success-per-usd", "success-per-1k-tokens"]).default("success"),
        maxTokensPerEpisode: z.number().positive().optional(),
        maxUsdPerEpisode: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    /** The forward/recovery pair every candidate runs (as in a sweep config). */
    pair: z.record(z.string(), z.unknown()),
    /** Max recovery iterations of every candidate (make it a knob to race it). @default 3 */
    maxRecoveryIterations: z.number().int().min(0).max(100).default(3),
  })
  .passthrough();

export type TuneRace = z.output<typeof TuneRaceSchema>;

/** What a race maximises. */
export type TuneObjectiveKind = "success" | "success-per-usd" | "success-per-1k-tokens";

/** A loaded tune config. */
export interface TuneConfig {
  name: string;
  knobs: Knob[];
  race: TuneRace;
  costLimit?: { tokens: number } | { usd: number };
  /** What the race maximises (`objective.kind`). */
  objective: TuneObjectiveKind;
  /** The base experiment as written (kind end-to-end, one pair, no seeds): candidates patch it. */
  base: Record<string, unknown>;
  /** The base config, validated (tasks, env, options resolved). */
  parsed: EndToEndConfig;
  source: string;
}

/** Rest of a tune config: the fields an end-to-end config has. */
const TUNE_ONLY = ["kind", "space", "race", "costLimit", "objective", "pair", "maxRecoveryIterations"];

/** Validate a parsed tune config object (space entries from `--knob` flags override the file's). */
export function parseTuneConfig(raw: unknown, source = "config", extraKnobs: Knob[] = []): TuneConfig {
  const r = TuneConfigSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue.path.map(String).join(".");
    const message =
      issue.code === "unrecognized_keys"
        ? `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`
        : issue.message;
    throw new ConfigError(
      `${source}${field ? "." + field : ""}: ${message}${field === "kind" ? " (a tune config has kind: tune; see experiments/configs/tune-freeze-budget.yaml)" : ""}`,
      { field },
    );
  }
  const t = r.data;
  const rest = Object.fromEntries(
    Object.entries(raw as Record<string, unknown>).filter(([k]) => !TUNE_ONLY.includes(k)),
  );
  if ("seeds" in rest)
    throw new ConfigError(
      `${source}.seeds: a tune config chooses its seeds round by round; set race.seedStart instead`,
      { field: "seeds" },
    );
  const base = {
    ...rest,
    kind: "end-to-end",
    pairs: [t.pair],
    maxRecoveryIterations: [t.maxRecoveryIterations],
    baseline: false,
  };
  const fromFile: Knob[] = Object.entries(t.space).map(([path, values]) => ({ path: normalizePath(path), values }));
  const knobs = [
    ...fromFile.filter((k) => !extraKnobs.some((e) => e.path === k.path)),
    ...extraKnobs.map((k) => ({ ...k, path: normalizePath(k.path) })),
  ];
  checkKnobs(knobs, `${source}.space`);
  const parsed = parseExperimentConfig({ ...base, seeds: [t.race.seedStart] }, source) as EndToEndConfig;
  const costLimit = objectiveCostLimit(t.objective, t.costLimit, source);
  const config: TuneConfig = {
    name: String(rest.name ?? "tune"),
    knobs,
    race: t.race,
    ...(costLimit && { costLimit }),
    objective: t.objective?.kind ?? "success",
    base,
    parsed,
    source,
  };
  // Every value of every knob is checked up front, one at a time over the base, naming the knob.
  for (const k of knobs)
    k.values.forEach((v, i) => {
      try {
        candidateConfig(config, [{ id: "check", setting: { [k.path]: v } }], [t.race.seedStart]);
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        throw new ConfigError(
          `${source}.space.${k.path}.${i}: value ${JSON.stringify(v)} does not make a valid config (${msg.replace(/^[^:]*:\s*/, "")})`,
          { field: `space.${k.path}` },
        );
      }
    });
  return config;
}

/** The cost cap an objective (or the older `costLimit` field) sets; one cap, in the objective's cost unit. */
function objectiveCostLimit(
  o: z.output<typeof TuneConfigSchema>["objective"],
  legacy: TuneConfig["costLimit"],
  source: string,
): TuneConfig["costLimit"] {
  const caps = [
    o?.maxTokensPerEpisode !== undefined && "maxTokensPerEpisode",
    o?.maxUsdPerEpisode !== undefined && "maxUsdPerEpisode",
    legacy && "costLimit",
  ].filter(Boolean);
  if (caps.length > 1)
    throw new ConfigError(`${source}.objective: give one cost cap, not ${caps.join(" and ")}`, { field: "objective" });
  const cap: TuneConfig["costLimit"] =
    legacy ??
    (o?.maxTokensPerEpisode !== undefined
      ? { tokens: o.maxTokensPerEpisode }
      : o?.maxUsdPerEpisode !== undefined
        ? { usd: o.maxUsdPerEpisode }
        : undefined);
  if (cap && o?.kind === "success-per-usd" && "tokens" in cap)
    throw new ConfigError(
      `${source}.objective: success-per-usd measures cost in USD; cap it with maxUsdPerEpisode, not a token cap`,
      { field: "objective.maxTokensPerEpisode" },
    );
  if (cap && o?.kind === "success-per-1k-tokens" && "usd" in cap)
    throw new ConfigError(
      `${source}.objective: success-per-1k-tokens measures cost in tokens; cap it with maxTokensPerEpisode, not a USD cap`,
      { field: "objective.maxUsdPerEpisode" },
    );
  return cap;
}

/** Load a tune config file (.yaml, .yml, .json). */
export function loadTuneConfig(file: string, extraKnobs: Knob[] = []): TuneConfig {
  return parseTuneConfig(readConfigFile(file), file, extraKnobs);
}

/** `freezeWindow` (a bare recovery option) -> `options.freezeWindow`; `retryCap`-free paths as given. */
export function normalizePath(path: string): string {
  if (!path.includes(".") && path in RecoveryOptionsSchema.shape && path !== "maxRecoveryIterations")
    return `options.${path}`;
  if (path === "options.maxRecoveryIterations") return "maxRecoveryIterations";
  return path;
}

/** Whether a knob changes the pair (so candidates differing only there share one run as pairs). */
export function isPairKnob(path: string): boolean {
  if (path.startsWith("pair.")) return true;
  const m = /^options\.([A-Za-z0-9_]+)$/.exec(path);
  return !!m && m[1] !== "settleMs";
}

/** The config-level part of a candidate's setting (candidates with the same one run together). */
export function groupKey(setting: Record<string, KnobValue>): string {
  return JSON.stringify(Object.entries(setting).filter(([p]) => !isPairKnob(p)));
}

/** Pair name of a candidate in its group's run. */
export function pairNameOf(config: TuneConfig, c: TuneCandidate): string {
  return `${String((config.base.pairs as Array<{ name?: unknown }>)[0].name ?? "pair")}-${c.id}`;
}

/**
 * The end-to-end config that runs `candidates` (all of one group: same config-level knobs) on
 * `seeds`: one pair per candidate, no baseline. Validated; a ConfigError names the field.
 */
export function candidateConfig(
  config: TuneConfig,
  candidates: readonly TuneCandidate[],
  seeds: number[],
): EndToEndConfig {
  const raw = structuredClone(config.base) as Record<string, unknown>;
  const pair0 = (raw.pairs as Array<Record<string, unknown>>)[0];
  const pairs: Array<Record<string, unknown>> = [];
  for (const c of candidates) {
    const pair = structuredClone(pair0);
    pair.name = pairNameOf(config, c);
    for (const [path, v] of Object.entries(c.setting)) {
      if (path.startsWith("pair.")) setPath(pair, path.slice(5).split("."), v);
      else if (isPairKnob(path)) setPath(pair, ["options", path.slice(8)], v);
    }
    pairs.push(pair);
  }
  for (const [path, v] of Object.entries(candidates[0]?.setting ?? {})) {
    if (isPairKnob(path)) continue;
    if (path === "maxRecoveryIterations") raw.maxRecoveryIterations = [v];
    else setPath(raw, path.split("."), v);
  }
  raw.pairs = pairs;
  raw.seeds = seeds;
  return parseExperimentConfig(raw, config.source) as EndToEndConfig;
}

function setPath(target: Record<string, unknown>, parts: string[], v: KnobValue): void {
  let at = target;
  for (const p of parts.slice(0, -1)) {
    const next = at[p];
    if (next === undefined) at[p] = {};
    else if (typeof next !== "object" || next === null || Array.isArray(next))
      throw new ConfigError(
        `${parts.join(".")}: ${p} is not an object, so it has no field ${parts[parts.length - 1]}`,
        { field: parts.join(".") },
      );
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]] = v;
}
