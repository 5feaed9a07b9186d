/**
 * Binomial proportions with Wilson score intervals: the success-rate numbers every report shows.
 * Provider-neutral; no I/O.
 */
import { ConfigError } from "@retrace-cua/core/errors";

/** A success rate with its confidence interval. */
export interface Proportion {
  successes: number;
  n: number;
  /** successes / n, or 0 when n = 0. */
  rate: number;
  /** Lower and upper Wilson bounds (0 and 1 when n = 0). */
  lo: number;
  hi: number;
}

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval for `successes` out of `n` (default 95%). Unlike the normal
 * approximation it stays inside [0, 1] and is sensible for small n and rates near 0 or 1.
 */
export function wilsonInterval(successes: number, n: number, z: number = Z95): Proportion {
  if (!Number.isInteger(successes) || !Number.isInteger(n) || successes < 0 || n < 0 || successes > n)
    throw new ConfigError(`wilsonInterval: need integers 0 <= successes <= n, got ${successes}/${n}`);
  if (n === 0) return { successes, n, rate: 0, lo: 0, hi: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const margin = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { successes, n, rate: p, lo: Math.max(0, center - margin), hi: Math.min(1, center + margin) };
}

/** Wilson interval of a list of booleans. */
export function proportionOf(outcomes: readonly boolean[], z: number = Z95): Proportion {
  return wilsonInterval(outcomes.filter(Boolean).length, outcomes.length, z);
}

/**
 * Two-proportion z-test (pooled), two-sided p-value. Used to say whether two conditions differ
 * beyond noise. Returns 1 when either side is empty or the pooled rate is 0 or 1.
 */
export function twoProportionPValue(
  a: Pick<Proportion, "successes" | "n">,
  b: Pick<Proportion, "successes" | "n">,
): number {
  if (a.n === 0 || b.n === 0) return 1;
  const pooled = (a.successes + b.successes) / (a.n + b.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  if (se === 0) return 1;
  const z = Math.abs(a.successes / a.n - b.successes / b.n) / se;
  return 2 * (1 - normalCdf(z));
}

/** Standard normal CDF (Abramowitz-Stegun 7.1.26 erf approximation, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * (Math.abs(x) / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
