/**
 * The trajectory record: every forward, recovery, replay and perturbation step in the order it
 * happened, with its role, so a viewer can draw recovery branches beside the forward path.
 */
import type { Action } from "./action.ts";
import type { BlobRef } from "./blob-store.ts";
import type { Detection } from "./detector.ts";
import type { PolicyFailure } from "./policy.ts";
import type { Evaluation } from "./task.ts";

export const STEP_ROLES = ["forward", "recovery", "replay", "perturbation"] as const;
export type StepRole = (typeof STEP_ROLES)[number];

/** One executed step. */
export interface StepRecord {
  /** Position in the record (0, 1, 2, ... across all roles). */
  seq: number;
  role: StepRole;
  /** Forward step index t (forward steps), or the step index within the recovery attempt / replay. */
  step: number;
  /** Recovery attempt number (1-based) for recovery steps and the forward steps after it. */
  attempt?: number;
  actions: Action[];
  response?: string;
  failure?: PolicyFailure;
  /** Screenshot before and after the step. */
  before: BlobRef;
  after: BlobRef;
  /** Ground-truth state ids before and after the step (environments with ground truth, e.g. SimDesk), so
   * ground-truth metrics can be computed from the trajectory alone, also after a resume elsewhere. */
  beforeState?: string;
  afterState?: string;
  /** Probe report (src/probes) taken with the observation after the step, when the environment records probes. */
  probe?: BlobRef;
  /** The detector's verdict after this step, when it was consulted. */
  detection?: Detection;
  /** True when the detector was skipped because of the freeze window. */
  frozen?: boolean;
  info?: Record<string, unknown>;
  /** Environment time for this step in ms. */
  envMs?: number;
}

/** A marker in the record: recovery started/ended, history truncated. */
export interface TrajectoryEvent {
  /** Placed after the step with this `seq` (-1 = before any step). */
  afterSeq: number;
  kind: "recovery-start" | "recovery-end" | "truncate" | "reset";
  detail: Record<string, unknown>;
}

/** The whole record of one episode. */
export interface Trajectory {
  taskId: string;
  steps: StepRecord[];
  events: TrajectoryEvent[];
  result?: Evaluation;
}
