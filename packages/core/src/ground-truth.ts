/**
 * The ground-truth surface SimDesk offers to simulated components (policies, detector,
 * selector) and to oracles. Real agents never get it; anything that uses it is labelled
 * simulated. SimDesk implements this interface; simulated agents are written against it.
 *
 * State ids: every SimDesk observation carries `stateId`, the sha256 of the canonical JSON of
 * the full state snapshot. Snapshots are stored (JSON, content-addressed) so a state id can be
 * looked up after a process restart.
 */
import type { Action } from "./action.ts";
import type { Task } from "./task.ts";
import type { Rng } from "./rng.ts";

/** Kinds of slip a simulated forward policy can make. */
export const SLIP_KINDS = ["misclick", "typo", "wrong-item", "skip", "premature-done", "latent"] as const;
export type SlipKind = (typeof SLIP_KINDS)[number];

/** A task-specific plausible mistake at a plan step (wrong menu item, a latent change...). */
export interface MistakeSpec {
  /** Plan index where the mistake replaces the correct action. */
  atStep: number;
  kind: SlipKind;
  /** The wrong action(s) taken instead of plan[atStep]. */
  actions: Action[];
  /** What the mistake does, for reports. */
  note: string;
}

/** A SimDesk task: a core Task plus what simulated agents need. */
export interface SimDeskTask extends Task {
  env: "simdesk";
  plan: Action[];
  /** Plausible mistakes per plan step (at least the latent and wrong-item ones). */
  mistakes: MistakeSpec[];
  /** Horizon class by plan length. */
  horizon: "short" | "medium" | "long";
}

/** What a restorative step looks like. */
export interface RestorativeStep {
  action: Action;
  /** e.g. "undo typing in editor", "restore notes.txt from Trash", "close Save As dialog". */
  rationale: string;
}

export interface SimGroundTruth {
  /** Semantic hash of a stored state: everything that matters, excluding pointer position and noise. */
  semanticHash(stateId: string): string;
  /** State ids along the task's reference plan: index k = state after k plan steps (0 = initial). */
  referenceStates(task: SimDeskTask): string[];
  /** Plan index k whose reference state has the same semantic hash as `stateId`, or -1 (off track). */
  planIndexOf(task: SimDeskTask, stateId: string): number;
  /**
   * The next UI action that moves the CURRENT state toward `targetStateId` (undo, close dialog,
   * restore from Trash, toggle back, retype...), computed from the state difference and the
   * current layout. `null` when the current state already matches the target semantically;
   * `"unreachable"` when no UI path can restore it (e.g. the Trash was emptied).
   */
  nextRestorativeAction(targetStateId: string): RestorativeStep | null | "unreachable";
  /** Plausible wrong actions in the current state (clickable widgets not on the path, stray keys). */
  plausibleWrongActions(rng: Rng): Action[];
}
