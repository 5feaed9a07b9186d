/**
 * Ground truth about a trajectory, read from SimDesk: which states are on the task's reference
 * path, where the current off-track segment began, and the right step to return to. The
 * simulated detector and selector report noisy versions of these; experiments use them to score
 * real detectors and selectors.
 */
import type { Observation } from "../../../src/observation.ts";
import type { HistoryEntry } from "../../../src/policy.ts";
import type { SimDeskTask, SimGroundTruth } from "../../environments/simdesk/ground-truth.ts";

/** The true state of a trajectory at the current step. */
export interface TrajectoryTruth {
  /** True when the current state is off the reference path, or DONE was declared before the task was solved. */
  offTrack: boolean;
  /** The first step of the current off-track segment (index of the first wrong action), when `offTrack`. */
  errorStep: number | null;
  /** Plan index of the current state (-1 = off the path). */
  planIndex: number;
  /** Why, in one line. */
  reason: string;
}

const MAX_CACHED = 20_000;
const planIndexCache = new WeakMap<SimGroundTruth, WeakMap<SimDeskTask, Map<string, number>>>();

/**
 * `gt.planIndexOf(task, stateId)`, memoised per ground truth. State ids are content hashes and a
 * task's reference path never changes, so the answer for (task, state) is fixed; the cache keeps a
 * detector that rescans the history every step from costing O(t^2) state loads per episode.
 */
export function planIndexOf(gt: SimGroundTruth, task: SimDeskTask, stateId: string): number {
  let byTask = planIndexCache.get(gt);
  if (!byTask) planIndexCache.set(gt, (byTask = new WeakMap()));
  let cache = byTask.get(task);
  if (!cache) byTask.set(task, (cache = new Map()));
  let k = cache.get(stateId);
  if (k === undefined) {
    k = gt.planIndexOf(task, stateId);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(stateId, k);
  }
  return k;
}

/** Whether a state lies on the task's reference path. */
export function isOnTrack(gt: SimGroundTruth, task: SimDeskTask, stateId: string | undefined): boolean {
  return stateId !== undefined && planIndexOf(gt, task, stateId) !== -1;
}

/** Index of the last history entry whose observation is on track, at or before `upTo`; -1 when none. */
export function lastOnTrackStep(gt: SimGroundTruth, task: SimDeskTask, history: readonly HistoryEntry[], upTo = history.length - 1): number {
  for (let j = Math.min(upTo, history.length - 1); j >= 0; j--) {
    if (isOnTrack(gt, task, history[j].observation.stateId)) return j;
  }
  return -1;
}

/**
 * The truth after history entries 0..t-1 and current observation o_t: off track when o_t's state is
 * off the reference path (or a DONE was declared in a state that is not the solved one); the
 * error step E is the index of the action after the last on-track history state.
 */
export function trajectoryTruth(gt: SimGroundTruth, task: SimDeskTask, history: readonly HistoryEntry[], observation: Observation): TrajectoryTruth {
  const stateId = observation.stateId;
  const planIndex = stateId === undefined ? -1 : planIndexOf(gt, task, stateId);
  const t = history.length;
  if (planIndex === -1) {
    const last = lastOnTrackStep(gt, task, history);
    const errorStep = Math.max(0, Math.min(last, t - 1));
    return { offTrack: true, errorStep, planIndex, reason: `state left the reference path after step ${last} (plan-off-track)` };
  }
  const lastEntry = history[t - 1];
  if (lastEntry && lastEntry.actions.some((a) => a.type === "DONE")) {
    const refs = gt.referenceStates(task);
    const solved = gt.semanticHash(refs[refs.length - 1]);
    if (gt.semanticHash(stateId!) !== solved) {
      return { offTrack: true, errorStep: t - 1, planIndex, reason: `DONE declared at step ${t - 1} with the plan at step ${planIndex} of ${refs.length - 1} (premature-done)` };
    }
  }
  return { offTrack: false, errorStep: null, planIndex, reason: `on the reference path at plan step ${planIndex}` };
}

/** The right recovery step for an error blamed at E: the last on-track state at or before E (0 when none). */
export function correctRecoveryStep(gt: SimGroundTruth, task: SimDeskTask, history: readonly HistoryEntry[], errorStep: number): number {
  return Math.max(0, lastOnTrackStep(gt, task, history, errorStep));
}
