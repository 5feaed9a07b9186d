/**
 * Ground truth about a trajectory, read from SimDesk: which states are on the task's reference
 * path, where the current off-track segment began, and the right step to return to. The
 * simulated detector and selector report noisy versions of these; experiments use them to score
 * real detectors and selectors.
 */
import type { Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import type { SimDeskTask, SimGroundTruth } from "@retrace-cua/core/ground-truth";

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
export function lastOnTrackStep(
  gt: SimGroundTruth,
  task: SimDeskTask,
  history: readonly HistoryEntry[],
  upTo = history.length - 1,
): number {
  for (let j = Math.min(upTo, history.length - 1); j >= 0; j--) {
    if (isOnTrack(gt, task, history[j].observation.stateId)) return j;
  }
  return -1;
}

const indexCache = new WeakMap<SimGroundTruth, WeakMap<SimDeskTask, Map<string, number[]>>>();

/**
 * Every plan index whose reference state has the same semantic hash as `stateId` (several when a plan step changes
 * nothing semantic, e.g. a hover).
 */
export function planIndicesOf(gt: SimGroundTruth, task: SimDeskTask, stateId: string | undefined): number[] {
  if (stateId === undefined) return [];
  let byTask = indexCache.get(gt);
  if (!byTask) indexCache.set(gt, (byTask = new WeakMap()));
  let cache = byTask.get(task);
  if (!cache) byTask.set(task, (cache = new Map()));
  let ks = cache.get(stateId);
  if (ks === undefined) {
    const h = gt.semanticHash(stateId);
    ks = gt.referenceStates(task).flatMap((ref, k) => (gt.semanticHash(ref) === h ? [k] : []));
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(stateId, ks);
  }
  return ks;
}

/** True when going from state `before` to state `after` is one step along the reference plan (s*_k -> s*_k+1). */
export function isProgress(
  gt: SimGroundTruth,
  task: SimDeskTask,
  before: string | undefined,
  after: string | undefined,
): boolean {
  const next = new Set(planIndicesOf(gt, task, after));
  return planIndicesOf(gt, task, before).some((k) => next.has(k + 1));
}

/**
 * The truth after history entries 0..t-1 and current observation o_t. A step is on track when it
 * moves the state one step along the reference plan (s*_k -> s*_k+1). A step that leaves the
 * reference path is an error, and so is one that makes no progress (a click that hit nothing, a
 * DONE before the task is solved): the agent acts on, believing it succeeded, so every later step
 * lands on the wrong state. The trajectory is off track when its last step was not progress and the
 * state is not the solved one after a DONE; the error step E is the first step after the last
 * progress step (so s_E is the last state on track).
 */
export function trajectoryTruth(
  gt: SimGroundTruth,
  task: SimDeskTask,
  history: readonly HistoryEntry[],
  observation: Observation,
): TrajectoryTruth {
  const t = history.length;
  const stateAt = (j: number): string | undefined => (j < t ? history[j].observation.stateId : observation.stateId);
  const planIndex = observation.stateId === undefined ? -1 : planIndexOf(gt, task, observation.stateId);
  if (t === 0)
    return planIndex === -1
      ? { offTrack: true, errorStep: 0, planIndex, reason: "the initial state is off the reference path" }
      : { offTrack: false, errorStep: null, planIndex, reason: "at the initial state" };
  const refs = gt.referenceStates(task);
  const last = history[t - 1];
  const done = last.actions.some((a) => a.type === "DONE");
  const solved =
    observation.stateId !== undefined &&
    gt.semanticHash(observation.stateId) === gt.semanticHash(refs[refs.length - 1]);
  if (done ? solved : isProgress(gt, task, stateAt(t - 1), stateAt(t))) {
    return { offTrack: false, errorStep: null, planIndex, reason: `on the reference path at plan step ${planIndex}` };
  }
  let p = t - 2;
  while (p >= 0 && !isProgress(gt, task, stateAt(p), stateAt(p + 1))) p--;
  const errorStep = p + 1;
  const why = done
    ? `DONE declared at step ${t - 1} with the plan at step ${planIndex} of ${refs.length - 1} (premature-done)`
    : planIndex === -1
      ? `state off the reference path (plan-off-track)`
      : `no progress along the plan (state at plan step ${planIndex})`;
  return {
    offTrack: true,
    errorStep,
    planIndex,
    reason: `${why}; the last step on track was ${p}, so the error began at step ${errorStep}`,
  };
}

/** The right recovery step for an error blamed at E: the last on-track state at or before E (0 when none). */
export function correctRecoveryStep(
  gt: SimGroundTruth,
  task: SimDeskTask,
  history: readonly HistoryEntry[],
  errorStep: number,
): number {
  return Math.max(0, lastOnTrackStep(gt, task, history, errorStep));
}
