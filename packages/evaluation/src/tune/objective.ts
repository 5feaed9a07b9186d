/**
 * What a race maximises, and the statistics each objective is judged by: an episode's outcome, the
 * score a candidate is ranked by (success rate, or successes per unit of cost), the paired bootstrap
 * of success per cost, the one-sided z-test of a cost cap, the paired tie test on success, and the
 * objective in words. Pure: no I/O, no race state (the racing tuner in ./race.ts calls these).
 */
import { normalCdf, Z95 } from "../metrics/wilson.ts";
import type { Rng } from "@retrace-cua/core/rng";

/** What a race maximises. */
export type RaceObjective = "success" | "success-per-cost";

/** Paired bootstrap resamples of a success-per-cost comparison. */
export const RATIO_BOOTSTRAP = 1000;

/** One candidate's outcome on one unit. */
export interface UnitOutcome {
  success: boolean;
  /** Cost of the episode (tokens or USD; 0 for simulated agents). */
  cost: number;
}

export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

/** Successes per unit of cost of a candidate on the given unit indices (all, when none given). */
export function successPerCost(o: readonly UnitOutcome[], idx?: readonly number[]): number {
  let s = 0,
    c = 0;
  if (idx)
    for (const i of idx) {
      s += Number(o[i].success);
      c += o[i].cost;
    }
  else
    for (const x of o) {
      s += Number(x.success);
      c += x.cost;
    }
  return c > 0 ? s / c : 0;
}

/** The score a candidate is ranked by under `objective` (most is best). */
export function objectiveScore(o: readonly UnitOutcome[], objective: RaceObjective): number {
  return objective === "success-per-cost"
    ? successPerCost(o)
    : o.filter((x) => x.success).length / Math.max(1, o.length);
}

/**
 * Paired bootstrap draws of the relative gap (best - other) / best in success per cost, over the shared units
 * (`RATIO_BOOTSTRAP` draws from `rng`).
 */
export function bootstrapRatioGaps(b: readonly UnitOutcome[], o: readonly UnitOutcome[], rng: Rng): number[] {
  const n = b.length;
  const idx = new Array<number>(n);
  const gaps: number[] = [];
  for (let k = 0; k < RATIO_BOOTSTRAP; k++) {
    for (let i = 0; i < n; i++) idx[i] = Math.floor(rng.next() * n);
    const rb = successPerCost(b, idx),
      ro = successPerCost(o, idx);
    gaps.push(rb > 0 ? (rb - ro) / rb : ro > 0 ? -1 : 0);
  }
  return gaps;
}

/** One-sided z-test of "mean cost per episode <= cap" on a candidate's per-unit costs: the p-value. */
export function costTest(costs: readonly number[], cap: number): number {
  const m = mean(costs);
  const sd = Math.sqrt(
    Math.max(0, mean(costs.map((c) => c * c)) - m * m) * (costs.length / Math.max(1, costs.length - 1)),
  );
  if (sd === 0) return m > cap ? 0 : 1;
  return 1 - normalCdf((m - cap) / (sd / Math.sqrt(costs.length)));
}

/** The paired success gap of `o` to `b` is below `margin` at 95% (one-sided upper bound). */
export function successGapBelow(b: readonly UnitOutcome[], o: readonly UnitOutcome[], margin: number): boolean {
  const d = o.map((x, i) => Number(b[i].success) - Number(x.success));
  const m = mean(d);
  const v = mean(d.map((x) => x * x)) - m * m;
  return m + Z95 * Math.sqrt(Math.max(v, 1e-12) / d.length) < margin;
}

/**
 * The objective in words, e.g. "success rate, mean cost at most 4000 tokens per episode". `kind` names the cost unit of
 * a success-per-cost race.
 */
export function objectiveText(
  r: { objective: RaceObjective; costLimit?: number },
  costUnit: string,
  kind?: string,
): string {
  const unit = costUnit === "usd" ? "USD" : "tokens";
  const what =
    r.objective === "success-per-cost"
      ? (kind === "success-per-1k-tokens"
          ? "success per 1k tokens"
          : kind === "success-per-usd"
            ? "success per USD"
            : `success per ${unit}`) + " (paired bootstrap, Holm)"
      : "success rate (McNemar, Holm)";
  return `${what}${r.costLimit !== undefined ? `, mean cost at most ${r.costLimit} ${unit} per episode (one-sided z-test, Holm)` : ""}`;
}
