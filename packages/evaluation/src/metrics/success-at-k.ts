/**
 * Success@K (the paper's Section 4 / Appendix B.1): for each instance, K continuations are drawn
 * from the same recovery state; an instance counts as solved at K when at least one of its first K
 * continuations succeeded.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { wilsonInterval, type Proportion } from "./wilson.ts";

/**
 * What happens to an instance with fewer usable continuations than the curve needs (a failed
 * action replay drops a continuation): `exclude` leaves the whole instance out (the paper, App.
 * B.1: "after excluding instances where action replay fails"), so every point of a curve has the
 * same denominator; `score-available` scores it on the continuations it has (retrace's earlier
 * rule: its Success@K then counts fewer draws than K).
 */
export type IncompleteInstances = "exclude" | "score-available";

/** Options of {@link successAtK} and {@link successAtKCurve}. */
export interface SuccessAtKOptions {
  /** @default "exclude" (the paper's rule) */
  incomplete?: IncompleteInstances;
}

/**
 * Success@K over instances, each a list of usable continuation outcomes in draw order. Under the
 * default `incomplete: "exclude"` an instance with fewer than K of them is left out; under
 * `score-available` it is scored on all it has (an instance with none is always left out).
 */
export function successAtK(
  instances: readonly (readonly boolean[])[],
  k: number,
  options: SuccessAtKOptions = {},
): Proportion {
  if (!Number.isInteger(k) || k < 1) throw new ConfigError(`successAtK: K must be a positive integer, got ${k}`);
  const need = (options.incomplete ?? "exclude") === "exclude" ? k : 1;
  const usable = instances.filter((c) => c.length >= need);
  const solved = usable.filter((c) => c.slice(0, k).some(Boolean)).length;
  return wilsonInterval(solved, usable.length);
}

/**
 * Success@K for K = 1..maxK, as one curve. Under `exclude` (default) only instances with maxK
 * usable continuations count, at every K: one denominator for the whole curve.
 */
export function successAtKCurve(
  instances: readonly (readonly boolean[])[],
  maxK: number,
  options: SuccessAtKOptions = {},
): Proportion[] {
  const kept = (options.incomplete ?? "exclude") === "exclude" ? instances.filter((c) => c.length >= maxK) : instances;
  return Array.from({ length: maxK }, (_, i) => successAtK(kept, i + 1, options));
}

/**
 * The unbiased pass@k estimator 1 - C(n-c, k) / C(n, k) for one instance with n draws of which
 * c succeeded (order-free; equals the expected Success@K under random ordering).
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new ConfigError(`passAtK: k=${k} exceeds n=${n}`);
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}
