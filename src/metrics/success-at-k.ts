/**
 * Success@K (the paper's Section 4 / Appendix B.1): for each instance, K continuations are drawn
 * from the same recovery state; an instance counts as solved at K when at least one of its first K
 * continuations succeeded.
 */
import { wilsonInterval, type Proportion } from "./wilson.ts";

/**
 * Success@K over instances, each a list of continuation outcomes in draw order. Instances with
 * fewer than K usable continuations use all they have (the paper excludes failed replays).
 */
export function successAtK(instances: readonly (readonly boolean[])[], k: number): Proportion {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`successAtK: K must be a positive integer, got ${k}`);
  const usable = instances.filter((c) => c.length > 0);
  const solved = usable.filter((c) => c.slice(0, k).some(Boolean)).length;
  return wilsonInterval(solved, usable.length);
}

/** Success@K for K = 1..maxK, as one curve. */
export function successAtKCurve(instances: readonly (readonly boolean[])[], maxK: number): Proportion[] {
  return Array.from({ length: maxK }, (_, i) => successAtK(instances, i + 1));
}

/**
 * The unbiased pass@k estimator 1 - C(n-c, k) / C(n, k) for one instance with n draws of which
 * c succeeded (order-free; equals the expected Success@K under random ordering).
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`passAtK: k=${k} exceeds n=${n}`);
  if (n - c < k) return 1;
  let miss = 1;
  for (let i = n - c + 1; i <= n; i++) miss *= 1 - k / i;
  return 1 - miss;
}
