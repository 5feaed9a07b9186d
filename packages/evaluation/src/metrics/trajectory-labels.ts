/**
 * On/off-track labels for a recorded trajectory, for the stability metrics. Two sources:
 * ground truth (a simulator says which states are on the task's path) and, where there is none,
 * the detector's own verdicts - weaker evidence, and reports must say which was used.
 */
import type { Trajectory } from "@retrace-cua/core/trajectory";
import { stabilityOf, type StabilityMetrics, type StepLabel } from "./stability.ts";

/**
 * Labels from detector verdicts. A forward step is off track from the step E the detector
 * blamed until the next truncation (the recovery boundary); recovery and replay steps are off
 * track until the attempt ends. States are screenshot hashes (what is visible).
 */
export function detectorLabels(trajectory: Trajectory): { initial: string; labels: StepLabel[] } {
  const steps = trajectory.steps;
  const offFlags = steps.map(() => false);
  const truncations = trajectory.events
    .filter((e) => e.kind === "truncate" || e.kind === "recovery-start")
    .map((e) => e.afterSeq);
  let branchStart = 0;
  let inRecovery = false;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (truncations.some((seq) => seq === s.seq - 1)) branchStart = i;
    if (s.role === "recovery" || s.role === "replay") {
      inRecovery = true;
      offFlags[i] = true;
      continue;
    }
    if (inRecovery && s.role === "forward") {
      inRecovery = false;
      branchStart = i;
    }
    const d = s.detection;
    if (s.role === "forward" && d?.isError && d.errorStep !== null) {
      for (let j = branchStart; j <= i; j++)
        if (steps[j].role === "forward" && steps[j].step >= d.errorStep) offFlags[j] = true;
    }
  }
  return {
    initial: steps[0]?.before ?? "initial",
    labels: steps.map((s, i) => ({ onTrack: !offFlags[i], state: s.after })),
  };
}

/** Stability metrics of a trajectory from detector labels. */
export function detectorStability(trajectory: Trajectory): StabilityMetrics {
  const { initial, labels } = detectorLabels(trajectory);
  return stabilityOf(initial, labels, "detector");
}

/**
 * Stability metrics from ground truth: `states[i]` is the true state after step i (same order as
 * `trajectory.steps`), `initial` the start state; `isOnTrack` and `identity` come from the
 * simulator (e.g. SimDesk's plan index and semantic hash).
 */
export function groundTruthStability(
  initial: string,
  states: readonly string[],
  isOnTrack: (state: string) => boolean,
  identity: (state: string) => string = (s) => s,
): StabilityMetrics {
  return stabilityOf(
    identity(initial),
    states.map((s) => ({ onTrack: isOnTrack(s), state: identity(s) })),
    "ground-truth",
  );
}
