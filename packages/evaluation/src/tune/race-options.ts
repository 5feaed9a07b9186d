/**
 * The racing tuner's options (./race.ts): what each knob means, its default, and the checks that reject an
 * impossible race before it starts (each error names the `tune.race.*` field and how to fix it).
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { RaceObjective } from "./objective.ts";

/** Options of {@link createRace}. */
export interface RaceOptions {
  /** Family-wise significance level of each round's eliminations (Holm). @default 0.05 */
  alpha?: number;
  /** Units (task x seed) each round adds for every survivor. */
  unitsPerRound: number;
  /** Units every candidate of a batch runs before the first elimination test. @default unitsPerRound */
  firstTestAfter?: number;
  /** Most units one batch runs; then its survivors are reported as tied at this budget. */
  maxUnitsPerBatch: number;
  /** Most episodes the whole race may run (a round that would exceed it is not started). */
  maxEpisodes: number;
  /**
   * Survivors whose paired success gap to the best is, at 95%, below this (a share, 0.05 = 5 points) are tied. @default
   * 0.05
   */
  tieMargin?: number;
  /** Candidates per batch (a space this small or smaller is raced whole, as one batch). @default 32 */
  batchSize?: number;
  /** Most batches. @default 1 when the space fits one batch, else 3 */
  batches?: number;
  /** Survivors of a batch carried into the next one. @default 2 */
  elites?: number;
  /**
   * Most mean cost per episode (tokens or USD, as the outcomes give it). A candidate whose mean cost
   * is significantly above it (one-sided z-test on its per-unit costs, Holm over the round's
   * survivors) is eliminated; at the end, survivors whose mean cost is above it (not significantly)
   * leave too, so the winner and tied set respect the cap. @default none
   */
  costLimit?: number;
  /**
   * What the race maximises: `success` (success rate; McNemar eliminations) or `success-per-cost`
   * (successes per unit of cost over the shared units; paired bootstrap eliminations). @default "success"
   */
  objective?: RaceObjective;
  /** Seed of the sampler. */
  seed: number | string;
}

/** {@link RaceOptions} with every default filled in (the seed apart). */
export type ResolvedRaceOptions = Required<Omit<RaceOptions, "costLimit" | "seed">> & Pick<RaceOptions, "costLimit">;

/** Fill in the defaults of `options` for a space of `size` candidates. */
export function resolveRaceOptions(options: RaceOptions, size: number): ResolvedRaceOptions {
  const batchSize = options.batchSize ?? 32;
  return {
    alpha: options.alpha ?? 0.05,
    unitsPerRound: options.unitsPerRound,
    firstTestAfter: options.firstTestAfter ?? options.unitsPerRound,
    maxUnitsPerBatch: options.maxUnitsPerBatch,
    maxEpisodes: options.maxEpisodes,
    tieMargin: options.tieMargin ?? 0.05,
    batchSize,
    batches: options.batches ?? (size <= batchSize ? 1 : 3),
    elites: options.elites ?? 2,
    costLimit: options.costLimit,
    objective: options.objective ?? "success",
  };
}

/** Throw a ConfigError naming the field when the resolved options cannot make a race. */
export function checkRaceOptions(o: ResolvedRaceOptions): void {
  const int = (name: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min)
      throw new ConfigError(`tune.race.${name}: expected an integer >= ${min}, got ${v}`, {
        field: `tune.race.${name}`,
      });
  };
  int("unitsPerRound", o.unitsPerRound, 1);
  int("firstTestAfter", o.firstTestAfter, 1);
  int("maxUnitsPerBatch", o.maxUnitsPerBatch, o.unitsPerRound);
  int("maxEpisodes", o.maxEpisodes, 1);
  int("batchSize", o.batchSize, 2);
  int("batches", o.batches, 1);
  int("elites", o.elites, 0);
  if (o.elites >= o.batchSize)
    throw new ConfigError(
      `tune.race.elites: ${o.elites} elites leave no room for new candidates in batches of ${o.batchSize}; use fewer elites`,
      { field: "tune.race.elites" },
    );
  if (!(o.alpha > 0 && o.alpha < 1))
    throw new ConfigError(`tune.race.alpha: expected a level between 0 and 1 (e.g. 0.05), got ${o.alpha}`, {
      field: "tune.race.alpha",
    });
  if (!(o.tieMargin > 0 && o.tieMargin < 1))
    throw new ConfigError(
      `tune.race.tieMargin: expected a share between 0 and 1 (0.05 = 5 points), got ${o.tieMargin}`,
      { field: "tune.race.tieMargin" },
    );
  if (o.objective !== "success" && o.objective !== "success-per-cost")
    throw new ConfigError(
      `tune.race.objective: expected "success" or "success-per-cost", got ${JSON.stringify(o.objective)}`,
      { field: "tune.race.objective" },
    );
  if (o.costLimit !== undefined && !(o.costLimit > 0))
    throw new ConfigError(`tune.race.costLimit: expected a positive cost per episode, got ${o.costLimit}`, {
      field: "tune.race.costLimit",
    });
}
