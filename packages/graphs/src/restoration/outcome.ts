/** What a restoration mode hands back to the `recover` node. */
import type { EpisodeAccounting } from "@retrace-cua/core/episode";
import type { Observation } from "@retrace-cua/core/observation";
import type { RestorationConfirmation } from "@retrace-cua/core/runtime/confirm";
import type { StepRecord, TrajectoryEvent } from "@retrace-cua/core/trajectory";
import type { EnvLog } from "../state.ts";

export interface RestorationOutcome {
  observation: Observation;
  /** Did the mode reach (or claim to reach) the target state? */
  restored: boolean;
  /** How it was confirmed (packages/core/src/runtime/confirm.ts); `restored` is `confirmation !== "refused"`. */
  confirmation: RestorationConfirmation;
  reason: string;
  /** New step records (recovery or replay roles), in order. */
  records: StepRecord[];
  /** Markers placed among them (resets). */
  events: TrajectoryEvent[];
  tick: number;
  envLog: EnvLog;
  accounting: EpisodeAccounting;
  prompts: string[];
  envError?: string;
}
