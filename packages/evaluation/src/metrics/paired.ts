/**
 * Paired comparisons of two conditions run on the same tasks and seeds: McNemar's exact test
 * (a binomial test on the discordant pairs) for success/failure outcomes, a seeded paired
 * bootstrap for any per-pair difference, and the one verdict rule every finding uses. Pairing
 * removes the task-to-task variance an unpaired two-proportion test keeps, and with `draws:
 * paired` (common random numbers) also the shared part of the model's sampling noise.
 * Provider-neutral; no I/O.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { createRng } from "@retrace-cua/core/rng";

/** Outcomes of two conditions on the same units (task x seed), tallied. */
export interface PairedCounts {
  /** Units both conditions ran (units either one lacks are left out). */
  n: number;
  /** Both succeeded. */
  both: number;
  /** Only `a` succeeded (discordant, in a's favour). */
  onlyA: number;
  /** Only `b` succeeded (discordant, in b's favour). */
  onlyB: number;
  /** Neither succeeded. */
  neither: number;
}

/** Tally paired success outcomes: units are the keys both maps hold. */
export function pairOutcomes(a: ReadonlyMap<string, boolean>, b: ReadonlyMap<string, boolean>): PairedCounts {
  const out: PairedCounts = { n: 0, both: 0, onlyA: 0, onlyB: 0, neither: 0 };
  for (const [unit, x] of a) {
    const y = b.get(unit);
    if (y === undefined) continue;
    out.n++;
    if (x && y) out.both++;
    else if (x) out.onlyA++;
    else if (y) out.onlyB++;
    else out.neither++;
  }
  return out;
}

/** P(X <= k) for X ~ Binomial(n, p), exactly (log space, fine for n in the thousands). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n || p <= 0) return 1;
  if (p >= 1) return 0;
  let logC = 0; // log C(n, 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    sum += Math.exp(logC + i * Math.log(p) + (n - i) * Math.log1p(-p));
  }
  return Math.min(1, sum);
}

/** P(X <= k) for X ~ Binomial(n, 1/2). */
export function binomialHalfCdf(k: number, n: number): number {
  return binomialCdf(k, n, 0.5);
}

/**
 * McNemar's exact test: two-sided p-value of `onlyA` vs `onlyB` discordant pairs under "either
 * side equally likely" (binomial, p = 1/2). 1 when there are no discordant pairs.
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  if (!Number.isInteger(onlyA) || !Number.isInteger(onlyB) || onlyA < 0 || onlyB < 0)
    throw new ConfigError(`mcnemarExact: need counts >= 0, got ${onlyA}, ${onlyB}`);
  const d = onlyA + onlyB;
  if (d === 0) return 1;
  return Math.min(1, 2 * binomialHalfCdf(Math.min(onlyA, onlyB), d));
}

/**
 * Fewest discordant pairs with which McNemar's exact test can reach p < 0.05 at all
 * (2 * 0.5^6 = 0.031; with 5, the most lopsided split gives 0.0625).
 */
export const MIN_DISCORDANT = 6;

/** A paired bootstrap of the mean of per-unit differences. */
export interface PairedBootstrap {
  /** Units. */
  n: number;
  /** Mean difference. */
  mean: number;
  /** Percentile 95% interval of the mean. */
  lo: number;
  hi: number;
  /** Two-sided p-value: twice the share of resampled means on the far side of 0 (at most 1). */
  p: number;
}

/**
 * Resample units with replacement (seeded: the same input and seed give the same numbers) and
 * report the mean difference, its percentile 95% interval and a two-sided p-value.
 */
export function pairedBootstrap(
  diffs: readonly number[],
  options: { iterations?: number; seed?: number | string } = {},
): PairedBootstrap {
  const n = diffs.length;
  if (n === 0) return { n, mean: 0, lo: 0, hi: 0, p: 1 };
  const iterations = options.iterations ?? 10_000;
  const rng = createRng(options.seed ?? 0, "paired-bootstrap");
  const mean = diffs.reduce((s, d) => s + d, 0) / n;
  const means = new Float64Array(iterations);
  for (let i = 0; i < iterations; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += diffs[rng.int(0, n - 1)];
    means[i] = s / n;
  }
  means.sort();
  const at = (q: number) => means[Math.min(iterations - 1, Math.max(0, Math.floor(q * iterations)))];
  const below = means.filter((m) => m <= 0).length / iterations;
  const above = means.filter((m) => m >= 0).length / iterations;
  const p = mean === 0 ? 1 : Math.min(1, 2 * (mean > 0 ? below : above));
  return { n, mean, lo: at(0.025), hi: at(0.975), p };
}

/** What a paired test says about a claim that `a` beats `b`. */
export type VerdictKind = "holds" | "direction-only" | "not-in-direction" | "does-not-hold" | "cannot-tell";

/** A claim's verdict with the numbers behind it. */
export interface PairedVerdict {
  kind: VerdictKind;
  /** Two-sided p-value of the paired test (absent for cannot-tell). */
  p?: number;
  /** The test: "McNemar exact" or "paired bootstrap". */
  test: string;
  /** Paired units. */
  n: number;
  /** Discordant pairs (McNemar): a's wins and b's wins. */
  onlyA?: number;
  onlyB?: number;
  /** Set when `p` is adjusted for multiple comparisons (then `kind` follows the adjusted p). */
  correction?: MultipleComparisons;
  /**
   * The clusters the test counted ("tasks", "trajectories"), when the verdict is a cluster-level
   * test: units that share a cluster are not independent, so `n`, `onlyA`, `onlyB` count clusters.
   */
  clusters?: string;
  /** The unit-level test beside a cluster-level verdict (shown, labelled; it does not decide). */
  unitLevel?: PairedVerdict;
}

/** A multiple-comparison adjustment of a verdict's p-value. */
export interface MultipleComparisons {
  method: "Holm";
  /** Comparisons in the family (untestable ones included: the adjustment is conservative). */
  m: number;
  /**
   * The family in words, with its size: "3 settings of max recovery iterations"; nested corrections read "3 settings of
   * max recovery iterations, then 2 pairs".
   */
  family: string;
  /** The p-value before adjustment. */
  rawP: number;
}

/**
 * Holm's step-down adjustment (Holm 1979): sort the m p-values ascending, multiply the i-th
 * smallest (1-based) by m - i + 1, cap at 1, and make the sequence non-decreasing. Returns the
 * adjusted p-values in the input order. Controls the family-wise error rate at alpha when each
 * adjusted p is compared with alpha.
 */
export function holmAdjust(ps: readonly number[]): number[] {
  for (const p of ps)
    if (!(p >= 0 && p <= 1)) throw new ConfigError(`holmAdjust: p-values must lie in [0, 1], got ${p}`);
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/**
 * Holm-correct a family of verdicts (each with its own paired test): p-values are adjusted over
 * all of them (a "cannot tell" verdict counts as p = 1), and each verdict's kind is re-derived
 * from its adjusted p in its own direction. A family of one is returned unchanged.
 */
export function holmVerdicts(verdicts: readonly PairedVerdict[], family: string, alpha = 0.05): PairedVerdict[] {
  if (verdicts.length < 2) return [...verdicts];
  const adjusted = holmAdjust(verdicts.map((v) => v.p ?? 1));
  return verdicts.map((v, i) => {
    if (v.p === undefined || v.kind === "cannot-tell") return v;
    const lead =
      v.onlyA !== undefined ? v.onlyA - (v.onlyB ?? 0) : v.kind === "holds" || v.kind === "direction-only" ? 1 : -1;
    const rawP = v.correction?.rawP ?? v.p;
    const text = `${verdicts.length} ${family}`;
    return {
      ...v,
      p: adjusted[i],
      kind: directionKind(lead, adjusted[i], alpha),
      correction: {
        method: "Holm",
        m: verdicts.length,
        family: v.correction ? `${v.correction.family}, then ${text}` : text,
        rawP,
      },
    };
  });
}

/**
 * The one rule: HOLDS only when the paired test gives p < alpha in the claim's direction
 * (`a` better than `b`); DOES NOT HOLD only when the opposite direction is significant;
 * otherwise "direction only" (the right way, within noise) or "not in the claim's direction";
 * "cannot tell" when fewer than {@link MIN_DISCORDANT} discordant pairs make p < 0.05 impossible.
 */
export function mcnemarVerdict(counts: PairedCounts, alpha = 0.05): PairedVerdict {
  const base = { test: "McNemar exact", n: counts.n, onlyA: counts.onlyA, onlyB: counts.onlyB };
  if (counts.onlyA + counts.onlyB < MIN_DISCORDANT) return { kind: "cannot-tell", ...base };
  const p = mcnemarExact(counts.onlyA, counts.onlyB);
  return { kind: directionKind(counts.onlyA - counts.onlyB, p, alpha), p, ...base };
}

/** Per-unit differences `a - b` (1, 0 or -1) of two success maps, on the units both hold. */
export function pairedDifferences(
  a: ReadonlyMap<string, boolean>,
  b: ReadonlyMap<string, boolean>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [unit, x] of a) {
    const y = b.get(unit);
    if (y !== undefined) out.set(unit, Number(x) - Number(y));
  }
  return out;
}

/** Each cluster's summed unit differences (the quantity {@link clusterSignVerdict} tests), by cluster id. */
export function clusterSums(
  diffs: ReadonlyMap<string, number>,
  clusterOf: (unit: string) => string,
): Map<string, number> {
  const sum = new Map<string, number>();
  for (const [unit, d] of diffs) sum.set(clusterOf(unit), (sum.get(clusterOf(unit)) ?? 0) + d);
  return sum;
}

/**
 * A sign test on cluster-level differences: each cluster's units' differences `a - b` are summed;
 * a cluster with a positive sum counts for `a` (`onlyA`), a negative one for `b`, zero is a tie;
 * then the exact binomial test and the one rule ({@link mcnemarVerdict}: cannot tell below
 * {@link MIN_DISCORDANT} deciding clusters). Units of one cluster (a task's seeds, a trajectory's
 * samples) share what makes them succeed, so only clusters are independent.
 */
export function clusterSignVerdict(
  diffs: ReadonlyMap<string, number>,
  clusterOf: (unit: string) => string,
  clusters: string,
  alpha = 0.05,
): PairedVerdict {
  const d = [...clusterSums(diffs, clusterOf).values()];
  const counts = {
    n: d.length,
    both: 0,
    onlyA: d.filter((x) => x > 0).length,
    onlyB: d.filter((x) => x < 0).length,
    neither: d.filter((x) => x === 0).length,
  };
  return { ...mcnemarVerdict(counts, alpha), test: `sign test over ${clusters} (cluster level)`, clusters };
}

/** The same rule on a paired bootstrap of differences `a - b` (cannot tell below `minN` units). */
export function bootstrapVerdict(boot: PairedBootstrap, minN = 10, alpha = 0.05): PairedVerdict {
  const base = { test: "paired bootstrap", n: boot.n };
  if (boot.n < minN) return { kind: "cannot-tell", ...base };
  return { kind: directionKind(boot.mean, boot.p, alpha), p: boot.p, ...base };
}

/** The verdict kind of a test with direction `lead` (> 0: the claim's way) and p-value `p`. */
export function directionKind(lead: number, p: number, alpha = 0.05): VerdictKind {
  if (p < alpha) return lead > 0 ? "holds" : "does-not-hold";
  return lead > 0 ? "direction-only" : "not-in-direction";
}
