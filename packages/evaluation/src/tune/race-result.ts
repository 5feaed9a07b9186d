/**
 * The race's answer: why each candidate left, how each batch ended, every candidate's standing (success with a Wilson
 * interval, mean cost with a normal interval), and the decision and eliminations in words. The racing tuner (./race.ts)
 * fills these in; reports and the CLI read them. Pure: no I/O.
 */
import { wilsonInterval, Z95, type Proportion } from "../metrics/wilson.ts";
import { mean, type RaceObjective, type UnitOutcome } from "./objective.ts";
import type { TuneCandidate } from "./space.ts";

/** Why a candidate left the race. */
export interface Elimination {
  batch: number;
  round: number;
  /** Units it had run when it left. */
  units: number;
  reason: "worse" | "over-cost" | "not-carried";
  /** The candidate it lost to (reason "worse"). */
  against?: string;
  /**
   * Reason "worse": McNemar's exact p (objective success) or the paired bootstrap p (success per
   * cost) against `against`; reason "over-cost": the one-sided z-test's p that its mean cost is
   * at most the limit. Raw and Holm-adjusted over the round's family.
   */
  p?: number;
  pAdjusted?: number;
  /** Family size of the Holm adjustment. */
  family?: number;
  /** Reason "over-cost" at the end of the race: its mean cost is above the limit, not significantly. */
  atEnd?: boolean;
}

/** How a batch (and the race) ended. */
export type StopReason = "one-left" | "tied" | "max-units" | "budget" | "none-within-cost";

/** A candidate's standing. */
export interface CandidateStanding {
  id: string;
  setting: TuneCandidate["setting"];
  /** Success over the units it ran in its last batch, with a Wilson 95% interval. */
  success: Proportion;
  /** Mean cost per episode, with a normal 95% interval. */
  cost: { mean: number; low: number; high: number };
  /** Episodes it ran in the whole race. */
  episodes: number;
  batches: number[];
  eliminated?: Elimination;
}

export interface BatchRecord {
  batch: number;
  candidates: string[];
  from: number;
  /** Units run so far. */
  units: number;
  rounds: number;
  end?: { reason: StopReason; survivors: string[] };
}

/** The race's answer. */
export interface RaceResult {
  /** The one winner, or undefined when the race ends with a tied set. */
  winner?: string;
  /** Survivors of the last batch, best first (the tied set when there is no single winner). */
  survivors: string[];
  reason: StopReason;
  episodes: number;
  /** Episodes a full grid of the same candidates would run on as many units as the longest batch. */
  gridEpisodes: number;
  spaceSize: number;
  alpha: number;
  tieMargin: number;
  objective: RaceObjective;
  costLimit?: number;
  batches: BatchRecord[];
  candidates: CandidateStanding[];
  /** One plain sentence: what was decided, with what confidence. */
  decision: string;
}

/** A candidate's record inside a race. */
export interface RaceEntry {
  candidate: TuneCandidate;
  /** Outcomes in the last batch it ran, by unit offset from that batch's `from`. */
  outcomes: UnitOutcome[];
  episodes: number;
  batches: number[];
  eliminated?: Elimination;
}

/** A candidate's standing from its record. */
export function standing(e: RaceEntry): CandidateStanding {
  const o = e.outcomes;
  const costs = o.map((x) => x.cost);
  const m = mean(costs);
  const sd = Math.sqrt(Math.max(0, mean(costs.map((c) => c * c)) - m * m));
  const half = costs.length ? (Z95 * sd) / Math.sqrt(costs.length) : 0;
  return {
    id: e.candidate.id,
    setting: e.candidate.setting,
    success: wilsonInterval(o.filter((x) => x.success).length, o.length),
    cost: { mean: m, low: Math.max(0, m - half), high: m + half },
    episodes: e.episodes,
    batches: [...e.batches],
    ...(e.eliminated && { eliminated: { ...e.eliminated } }),
  };
}

function pct(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}

/** One plain sentence: what the race decided, with what confidence. */
export function decisionText(
  winner: string | undefined,
  survivors: string[],
  reason: StopReason,
  candidates: CandidateStanding[],
  alpha: number,
  tieMargin: number,
  units: number,
  objective: RaceObjective,
  costLimit: number | undefined,
): string {
  const by = new Map(candidates.map((c) => [c.id, c]));
  const worse = candidates.filter((c) => c.eliminated?.reason === "worse");
  const maxP = worse.length ? Math.max(...worse.map((c) => c.eliminated!.pAdjusted!)) : undefined;
  const test = objective === "success-per-cost" ? "paired bootstrap of success per cost" : "McNemar exact";
  const over = candidates.filter((c) => c.eliminated?.reason === "over-cost");
  const lost = `${worse.length} candidate(s) eliminated as worse (${test}, Holm-adjusted${maxP !== undefined ? `, largest adjusted p = ${maxP.toPrecision(2)}` : ""} < ${alpha})${costLimit !== undefined ? `, ${over.length} as over the cost limit of ${costLimit} per episode (one-sided z-test, Holm; or mean above it at the end)` : ""}`;
  if (reason === "none-within-cost") return `no candidate stayed within the cost limit; ${lost}`;
  if (winner) {
    const w = by.get(winner)!;
    return `winner ${winner} (${pct(w.success.rate)} success on ${w.success.n} paired units, 95% CI ${pct(w.success.lo)}-${pct(w.success.hi)}): every other candidate left the race (${lost}); family-wise error of each round's eliminations at most ${alpha}`;
  }
  const why =
    reason === "tied"
      ? `statistically tied: each is within ${pct(tieMargin)} of the best${objective === "success-per-cost" ? "'s success per cost (relative gap)" : ""} at 95%`
      : reason === "budget"
        ? "the episode budget is spent before they could be separated"
        : `the batch's ${units} units are spent before they could be separated`;
  return `${survivors.length} candidates remain (${survivors.join(", ")}): ${why}; ${lost}; run more units (see --plan) to separate them`;
}

/** Why a candidate left, in words (with its p-values). */
export function eliminationText(e: Elimination): string {
  const where = `batch ${e.batch}, round ${e.round} (${e.units} units)`;
  if (e.reason === "worse")
    return `eliminated in ${where} against ${e.against}: p = ${e.pAdjusted!.toPrecision(2)} (Holm over ${e.family}; raw ${e.p!.toPrecision(2)})`;
  if (e.reason === "over-cost") {
    if (e.atEnd)
      return `left at the end of ${where}: mean cost above the limit (not significantly${e.p !== undefined ? `, p = ${e.p.toPrecision(2)}` : ""})`;
    return `eliminated in ${where}: over the cost limit${e.pAdjusted !== undefined ? `, p = ${e.pAdjusted.toPrecision(2)} (one-sided, Holm over ${e.family}; raw ${e.p!.toPrecision(2)})` : ""}`;
  }
  return `not carried past batch ${e.batch}`;
}
