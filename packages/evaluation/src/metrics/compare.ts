/**
 * Choosing between conditions honestly: the best setting by success rate, its interval, and
 * whether its lead over the runner-up is beyond noise.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { twoProportionPValue, type Proportion } from "./wilson.ts";

/** One candidate setting and its measured success rate. */
export interface Candidate {
  label: string;
  rate: Proportion;
  /** Tie-breaker: lower is better (e.g. cost per episode). */
  cost?: number;
}

/** The recommendation for a set of candidates. */
export interface Recommendation {
  best: Candidate;
  runnerUp?: Candidate;
  /** Two-sided p-value of best vs runner-up (two-proportion z-test). */
  pValue: number;
  /** True when the best's lead is not significant at `alpha` or the intervals overlap. */
  withinNoise: boolean;
  /** Candidates statistically indistinguishable from the best (p >= alpha), best included. */
  tiedWithBest: string[];
  /** One plain sentence for reports. */
  text: string;
}

/** Pick the best candidate (highest rate, then lowest cost, then input order). */
export function recommend(candidates: readonly Candidate[], alpha = 0.05): Recommendation {
  if (candidates.length === 0) throw new ConfigError("recommend: no candidates");
  const order = candidates
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.rate.rate - a.c.rate.rate || (a.c.cost ?? 0) - (b.c.cost ?? 0) || a.i - b.i)
    .map((x) => x.c);
  const best = order[0];
  const runnerUp = order[1];
  const pValue = runnerUp ? twoProportionPValue(best.rate, runnerUp.rate) : 1;
  const overlap = runnerUp ? runnerUp.rate.hi >= best.rate.lo : true;
  const withinNoise = runnerUp ? pValue >= alpha || overlap : true;
  const tiedWithBest = order
    .filter((c) => c === best || twoProportionPValue(best.rate, c.rate) >= alpha)
    .map((c) => c.label);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const head = `${best.label}: ${pct(best.rate.rate)} [95% CI ${pct(best.rate.lo)}-${pct(best.rate.hi)}, n=${best.rate.n}]`;
  let text: string;
  if (!runnerUp) text = `${head}; only one setting was measured.`;
  else if (withinNoise)
    text = `${head}. Within noise: the runner-up ${runnerUp.label} (${pct(runnerUp.rate.rate)}) is not distinguishable (p=${pValue.toFixed(2)}); ${tiedWithBest.length} of ${candidates.length} settings are statistically tied with the best - run more seeds to separate them.`;
  else
    text = `${head}. It beats the runner-up ${runnerUp.label} (${pct(runnerUp.rate.rate)}) beyond noise (p=${pValue.toFixed(3)}).`;
  return { best, runnerUp, pValue, withinNoise, tiedWithBest, text };
}
