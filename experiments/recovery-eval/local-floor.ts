/**
 * Choosing R_Om's local floor without overfitting (experiments/scripts/mask-candidates.ts
 * `--floor`). R_Om with a floor passes iff the masked mean SSIM >= 0.99 AND the lowest local
 * masked SSIM >= tau. Tau is picked on one half of the tasks (sorted by id, even positions) and
 * reported on the other half (odd positions) and on all runs, for noise off and on.
 *
 * Rule, fixed before looking at the held-out half: the tau of the grid with the highest
 * `R_Om AND R_TC` agreement on the tuning half (both noise settings pooled); among ties the
 * lowest tau (the smallest departure from the mean-only R_Om). The size of the local region is
 * chosen by two-fold cross-validation: tau chosen on the even half and judged on the odd half,
 * and the reverse; the region with the most held-out agreements over both folds wins (ties: the
 * first of the list).
 */
import type { Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import { confusion } from "@retrace-cua/evaluation/eval/summary";

/** One judged run, reduced to what the floor decision needs. */
export interface FloorRecord {
  /** Which run (sample, variant, budget), for reading the cases. */
  run: string;
  taskId: string;
  noise: string;
  /** Ground truth: truly recovered. */
  truth: boolean;
  /** R_TC passed. */
  rtc: boolean;
  /** The paper's R_O passed. */
  ro: boolean;
  /** The mean-only R_Om passed (masked mean >= threshold). */
  meanPass: boolean;
  /** The lowest local masked SSIM (by tile size in SSIM window positions). */
  local: Record<number, number>;
}

/** Counts and rates of one oracle over some runs. */
export interface FloorRow {
  n: number;
  tp: number;
  fp: number;
  tn: number;
  fn: number;
  agreement: Proportion;
  fpr: Proportion;
  fnr: Proportion;
}

/** The thresholds tried (-Infinity = no floor, the mean-only R_Om). */
export const FLOOR_GRID: readonly number[] = [
  -Infinity,
  0,
  0.2,
  0.3,
  0.4,
  0.5,
  0.6,
  0.7,
  0.8,
  0.85,
  0.9,
  0.95,
  0.97,
  0.98,
  0.99,
];

/** Tasks sorted by id: even positions tune, odd positions are held out. */
export function splitTasks(taskIds: Iterable<string>): { tune: Set<string>; heldOut: Set<string> } {
  const sorted = [...new Set(taskIds)].sort();
  return {
    tune: new Set(sorted.filter((_, i) => i % 2 === 0)),
    heldOut: new Set(sorted.filter((_, i) => i % 2 === 1)),
  };
}

/** The agreement row of `says` against the truth over `records`. */
export function floorRow(records: readonly FloorRecord[], says: (r: FloorRecord) => boolean): FloorRow {
  return confusion(records, says);
}

/** `R_Om AND R_TC` with the floor `tau` on tiles of `block` window positions. */
export function jointWithFloor(tau: number, block: number): (r: FloorRecord) => boolean {
  return (r) => r.rtc && r.meanPass && (tau === -Infinity || r.local[block] >= tau);
}

/** The paper's joint oracle R_O AND R_TC. */
export const paperJoint = (r: FloorRecord): boolean => r.rtc && r.ro;

/** Pick tau on the tuning records by the rule in this module's header. */
export function chooseFloor(
  tune: readonly FloorRecord[],
  block: number,
  grid: readonly number[] = FLOOR_GRID,
): { tau: number; agreement: number } {
  let best = { tau: grid[0], agreement: -1 };
  for (const tau of grid) {
    const a = floorRow(tune, jointWithFloor(tau, block)).agreement.rate;
    if (a > best.agreement) best = { tau, agreement: a };
  }
  return best;
}

/** Two-fold cross-validation of the rule for one region size: held-out agreements over both folds. */
export function crossValidate(
  records: readonly FloorRecord[],
  block: number,
): { folds: Array<{ tau: number; heldOut: FloorRow }>; agree: number; n: number } {
  const { tune, heldOut } = splitTasks(records.map((r) => r.taskId));
  const folds = [
    [tune, heldOut],
    [heldOut, tune],
  ].map(([a, b]) => {
    const { tau } = chooseFloor(
      records.filter((r) => a.has(r.taskId)),
      block,
    );
    return {
      tau,
      heldOut: floorRow(
        records.filter((r) => b.has(r.taskId)),
        jointWithFloor(tau, block),
      ),
    };
  });
  return {
    folds,
    agree: folds.reduce((s, f) => s + f.heldOut.tp + f.heldOut.tn, 0),
    n: folds.reduce((s, f) => s + f.heldOut.n, 0),
  };
}
