/**
 * Typed episode events (eventemitter3). Listeners log, trace, or stop an episode: calling
 * `events.stop(reason)` from any listener ends the episode at the next step boundary with
 * stopReason "aborted". Use one emitter per episode.
 */
import { EventEmitter } from "eventemitter3";
import type { Detection } from "../detector.ts";
import type { EpisodeResult } from "../episode.ts";
import type { Observation } from "../observation.ts";
import type { RestorationMode } from "../recovery.ts";
import type { Selection } from "../selector.ts";
import type { StepRecord } from "../trajectory.ts";
import type { DetectorGate } from "./freeze.ts";
import type { RestorationConfirmation } from "./confirm.ts";

/** A forward, recovery or replay step was executed. */
export interface StepEvent {
  taskId: string;
  record: StepRecord;
  tick: number;
}
/** The detector was consulted (or failed; `detection.failure` is then set). */
export interface DetectionEvent {
  taskId: string;
  step: number;
  detection: Detection;
  /** True when this detection starts a recovery. */
  triggered: boolean;
}
/** The detector was not consulted after a forward step. */
export interface FreezeEvent {
  taskId: string;
  step: number;
  gate: Exclude<DetectorGate, "consult">;
  /** Frozen steps left after this one. */
  remaining: number;
}
/** A recovery step R was chosen for error step E. */
export interface SelectionEvent {
  taskId: string;
  errorStep: number;
  /** R, the step chosen. */
  recoveryStep: number;
  /**
   * How R was chosen: the value of the `recoveryStep` option ("error-minus-1", "llm", ...). Named
   * `strategy` (as in experiment configs' `strategies`) because `recoveryStep` here is R itself.
   */
  strategy: string;
  selection: Selection;
}
export interface RecoveryStartEvent {
  taskId: string;
  attempt: number;
  /** How the environment is brought back to R: the `restoration` option's value. */
  restoration: RestorationMode;
  /** @deprecated The old name of `restoration` (same value); emitted until the next release. */
  mode: RestorationMode;
  errorStep: number;
  recoveryStep: number;
  target: Observation;
}
export interface RecoveryStepEvent {
  taskId: string;
  attempt: number;
  record: StepRecord;
}
export interface RecoveryEndEvent {
  taskId: string;
  attempt: number;
  /** How the environment was brought back to R: the `restoration` option's value. */
  restoration: RestorationMode;
  /** @deprecated The old name of `restoration` (same value); emitted until the next release. */
  mode: RestorationMode;
  /** Did the restoration report (or verify) the target as reached? (`confirmation !== "refused"`) */
  restored: boolean;
  /** How it was confirmed: verifier, ssim (or the state-hash oracle), claimed (unverified), refused. */
  confirmation: RestorationConfirmation;
  steps: number;
  reason: string;
}
/** Forward history was cut back to `to` entries. */
export interface TruncateEvent {
  taskId: string;
  attempt: number;
  from: number;
  to: number;
  notice: string | null;
}
/**
 * Recovery is degraded: the detector failed or timed out `failures` times in a row (`degradedAfter`),
 * so steps go unjudged. Emitted once per streak, when it reaches the threshold.
 */
export interface DegradedEvent {
  taskId: string;
  /** The step whose detector call completed the streak. */
  step: number;
  /** Failed calls in a row. */
  failures: number;
  /** The detector's name. */
  detector: string;
  /** The judge's endpoint (base URL and model) when the detector declares one, else its name. */
  endpoint: string;
  /** The last call's failure. */
  lastFailure: string;
  /** What happens next (`onDetectorFailure`): "continue" unjudged, or "fail" the run. */
  action: "continue" | "fail";
}
export interface EpisodeEndEvent {
  result: EpisodeResult;
}

/** Event name -> payload. */
export interface EpisodeEventMap {
  step: [StepEvent];
  detection: [DetectionEvent];
  freeze: [FreezeEvent];
  selection: [SelectionEvent];
  "recovery-start": [RecoveryStartEvent];
  "recovery-step": [RecoveryStepEvent];
  "recovery-end": [RecoveryEndEvent];
  truncate: [TruncateEvent];
  degraded: [DegradedEvent];
  "episode-end": [EpisodeEndEvent];
}

export type EpisodeEventName = keyof EpisodeEventMap;
export const EPISODE_EVENT_NAMES: readonly EpisodeEventName[] = [
  "step",
  "detection",
  "freeze",
  "selection",
  "recovery-start",
  "recovery-step",
  "recovery-end",
  "truncate",
  "degraded",
  "episode-end",
];

/** The typed emitter an episode reports to; `stop()` asks the episode to end. */
export class EpisodeEvents extends EventEmitter<EpisodeEventMap> {
  private stopReason: string | null = null;

  /** Ask the episode to end at the next step boundary (stopReason "aborted"). */
  stop(reason = "stopped by a listener"): void {
    this.stopReason ??= reason;
  }

  /** The reason given to `stop()`, or null. */
  get stopRequested(): string | null {
    return this.stopReason;
  }
}
