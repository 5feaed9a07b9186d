/**
 * Planning a race before paying for it: how many paired (task, seed) units McNemar's exact test
 * needs to detect a gain of `gain` (a share: 0.1 = 10 points) over a baseline success rate with
 * the asked power, and what that costs in episodes, tokens, dollars and time. Pure: no I/O.
 *
 * The discordance (share of units where exactly one of the two succeeds) decides the test's power.
 * From a pilot it is measured; from a baseline rate alone it is assumed from independent outcomes,
 * p0 (1 - p1) + p1 (1 - p0), which overstates it when outcomes are paired (shared tasks and seeds
 * make them agree more), so the plan is then conservative.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { binomialCdf, binomialHalfCdf } from "../metrics/paired.ts";
import { normalCdf } from "../metrics/wilson.ts";

/** What {@link planRace} takes. */
export interface PlanInput {
  /** Baseline success rate (0..1). */
  baseline: number;
  /** The gain to detect, as a share (0.1 = 10 points). */
  gain: number;
  /**
   * Measured discordance from a pilot: share of units where only the better one succeeded, and only the baseline.
   * Overrides the independence assumption.
   */
  pilot?: { onlyBetter: number; onlyBaseline: number };
  /**
   * Candidates in the race; each round's family is the others against the best (Holm: the first test runs at alpha /
   * (candidates - 1)). @default 2
   */
  candidates?: number;
  /** @default 0.05 */
  alpha?: number;
  /** @default 0.8 */
  power?: number;
  /** Mean tokens per episode (pilot or estimate). @default 0 */
  tokensPerEpisode?: number;
  /** Mean USD per episode. @default 0 */
  usdPerEpisode?: number;
  /** Mean wall-clock seconds per episode. @default 0 */
  secondsPerEpisode?: number;
  /** Episodes running at once. @default 1 */
  workers?: number;
}

/** The plan. */
export interface RacePlan {
  /** Paired units one comparison needs (exact McNemar power >= `power`). */
  units: number;
  /** The exact power at `units`. */
  power: number;
  /** Share of discordant units assumed, and where it comes from. */
  discordance: number;
  discordanceSource: "pilot" | "independence (conservative)";
  /** Per-test level after the Holm worst case. */
  testAlpha: number;
  /** Episodes of a full grid at that many units (the race's upper bound). */
  gridEpisodes: number;
  /** Tokens, USD, seconds of the grid bound. */
  tokens: number;
  usd: number;
  seconds: number;
}

/** Most units a plan searches (beyond it the gain is too small to detect at any sensible cost). */
export const MAX_PLAN_UNITS = 100_000;

/** Exact power of McNemar's two-sided exact test at level `alpha` on `n` units (one-direction rejections only). */
export function mcnemarPower(n: number, pBetter: number, pBaseline: number, alpha: number): number {
  const pd = pBetter + pBaseline;
  if (pd <= 0) return 0;
  const q = pBaseline / pd; // P(a discordant unit favours the baseline)
  let power = 0;
  let k = -1; // largest minority count that rejects at this number of discordant units
  for (let d = 1; d <= n; d++) {
    while (2 * binomialHalfCdf(k + 1, d) < alpha) k++;
    if (k < 0) continue;
    const pD = Math.exp(logBinomPmf(d, n, pd));
    if (pD < 1e-15) continue;
    power += pD * binomialCdf(k, d, q);
  }
  return Math.min(1, power);
}

function logBinomPmf(k: number, n: number, p: number): number {
  if (p >= 1) return k === n ? 0 : -Infinity;
  return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

/** log Gamma (Lanczos, g = 7). */
function lgamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Connor's (1987) normal-approximation sample size for McNemar's test: the exact search starts here. */
function connorUnits(pd: number, delta: number, alpha: number, power: number): number {
  const za = inverseNormal(1 - alpha / 2);
  const zb = inverseNormal(power);
  return Math.ceil((za * Math.sqrt(pd) + zb * Math.sqrt(Math.max(0, pd - delta * delta))) ** 2 / (delta * delta));
}

function inverseNormal(p: number): number {
  let lo = -10,
    hi = 10;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Plan a race (see the module comment). Throws ConfigError on a bad input, naming the flag. */
export function planRace(input: PlanInput): RacePlan {
  const alpha = input.alpha ?? 0.05;
  const target = input.power ?? 0.8;
  const candidates = input.candidates ?? 2;
  const { baseline: p0, gain } = input;
  if (!(p0 >= 0 && p0 < 1))
    throw new ConfigError(`--baseline: expected a success rate in [0, 1), got ${p0}`, { field: "baseline" });
  if (!(gain > 0 && p0 + gain <= 1))
    throw new ConfigError(
      `--gain: expected a gain in points above 0 that keeps the rate at most 100% (baseline ${(100 * p0).toFixed(0)}%), got ${(100 * gain).toFixed(1)} points`,
      { field: "gain" },
    );
  if (!(alpha > 0 && alpha < 1))
    throw new ConfigError(`--alpha: expected a level between 0 and 1, got ${alpha}`, { field: "alpha" });
  if (!(target > 0 && target < 1))
    throw new ConfigError(`--power: expected a power between 0 and 1 (e.g. 0.8), got ${target}`, { field: "power" });
  if (!Number.isInteger(candidates) || candidates < 2)
    throw new ConfigError(`--candidates: expected an integer >= 2, got ${candidates}`, { field: "candidates" });
  const p1 = p0 + gain;
  let pBetter: number, pBaseline: number;
  let source: RacePlan["discordanceSource"];
  if (input.pilot) {
    ({ onlyBetter: pBetter, onlyBaseline: pBaseline } = input.pilot);
    if (!(pBetter >= 0 && pBaseline >= 0 && pBetter + pBaseline <= 1 && pBetter > pBaseline))
      throw new ConfigError(
        `--pilot: expected shares only-better > only-baseline >= 0 summing to at most 1, got ${pBetter}, ${pBaseline}`,
        { field: "pilot" },
      );
    source = "pilot";
  } else {
    pBetter = p1 * (1 - p0);
    pBaseline = p0 * (1 - p1);
    source = "independence (conservative)";
  }
  const testAlpha = alpha / (candidates - 1);
  let n = Math.max(1, connorUnits(pBetter + pBaseline, pBetter - pBaseline, testAlpha, target));
  if (n > MAX_PLAN_UNITS)
    throw new ConfigError(
      `--gain: detecting ${(100 * gain).toFixed(1)} points needs more than ${MAX_PLAN_UNITS} paired units; plan for a larger gain`,
      { field: "gain" },
    );
  // The exact test is a little less powerful than the approximation: walk up to the exact answer.
  let power = mcnemarPower(n, pBetter, pBaseline, testAlpha);
  const step = Math.max(1, Math.ceil(n / 50));
  while (power < target && n < MAX_PLAN_UNITS) {
    n += step;
    power = mcnemarPower(n, pBetter, pBaseline, testAlpha);
  }
  const gridEpisodes = n * candidates;
  const workers = Math.max(1, input.workers ?? 1);
  return {
    units: n,
    power,
    discordance: pBetter + pBaseline,
    discordanceSource: source,
    testAlpha,
    gridEpisodes,
    tokens: gridEpisodes * (input.tokensPerEpisode ?? 0),
    usd: gridEpisodes * (input.usdPerEpisode ?? 0),
    seconds: (gridEpisodes * (input.secondsPerEpisode ?? 0)) / workers,
  };
}
