/**
 * Process-stability metrics after GraceBench (../shared/seeds/002): how an agent got to its result,
 * not just whether it did. Computed from a per-step labelling of a trajectory:
 *
 * - deviation rate (DR): share of steps that ended off track;
 * - loop burden (LBR): share of steps that repeat a state transition (a -> b, a != b) already taken
 *   earlier in the same trajectory (GraceBench: repeated transitions between the same state pair);
 *   stagnation (a -> a) is counted separately;
 * - recovery ability (RA): share of deviations (on -> off) after which the trajectory came back on
 *   track; undefined for trajectories without a deviation;
 * - average recovery length (ARL): off-track steps before coming back, averaged over recovered
 *   deviations.
 *
 * Labels come from ground truth where the environment has it (SimDesk) or from the detector's
 * verdicts elsewhere; `source` records which, and reports say so.
 */

/** Where on/off-track labels came from. */
export type LabelSource = "ground-truth" | "detector";

/** The state a step ended in. */
export interface StepLabel {
  /** True when the state after the step is on a path that can still complete the task. */
  onTrack: boolean;
  /** Identity of the state after the step (semantic state hash, or screenshot hash). */
  state: string;
}

/** Stability of one trajectory. `null` where a metric is undefined for it. */
export interface StabilityMetrics {
  source: LabelSource;
  steps: number;
  offTrackSteps: number;
  deviationRate: number;
  deviations: number;
  recovered: number;
  recoveryAbility: number | null;
  recoveryLengths: number[];
  avgRecoveryLength: number | null;
  loopSteps: number;
  loopBurden: number;
  stagnantSteps: number;
}

/**
 * Metrics of one trajectory: `initial` is the start state (on track by definition), `labels`
 * the state after each executed step, in order.
 */
export function stabilityOf(initial: string, labels: readonly StepLabel[], source: LabelSource): StabilityMetrics {
  let prev: StepLabel = { onTrack: true, state: initial };
  const seen = new Set<string>();
  let offTrackSteps = 0,
    deviations = 0,
    loopSteps = 0,
    stagnantSteps = 0,
    offRun = 0;
  const recoveryLengths: number[] = [];
  for (const cur of labels) {
    if (!cur.onTrack) offTrackSteps++;
    if (prev.onTrack && !cur.onTrack) {
      deviations++;
      offRun = 0;
    }
    if (!cur.onTrack) offRun++;
    if (!prev.onTrack && cur.onTrack) recoveryLengths.push(offRun);
    if (cur.state === prev.state) stagnantSteps++;
    else {
      const edge = `${prev.state}\u0000${cur.state}`;
      if (seen.has(edge)) loopSteps++;
      else seen.add(edge);
    }
    prev = cur;
  }
  const steps = labels.length;
  return {
    source,
    steps,
    offTrackSteps,
    deviationRate: steps === 0 ? 0 : offTrackSteps / steps,
    deviations,
    recovered: recoveryLengths.length,
    recoveryAbility: deviations === 0 ? null : recoveryLengths.length / deviations,
    recoveryLengths,
    avgRecoveryLength: recoveryLengths.length === 0 ? null : mean(recoveryLengths),
    loopSteps,
    loopBurden: steps === 0 ? 0 : loopSteps / steps,
    stagnantSteps,
  };
}

/** Stability over many trajectories, aggregated as GraceBench reports it. */
export interface StabilitySummary {
  trajectories: number;
  /** Label sources seen (a mix is flagged in reports). */
  sources: LabelSource[];
  /** Mean DR over all trajectories. */
  deviationRate: number;
  /** Share of trajectories with at least one loop step. */
  loopIncidence: number;
  /** Mean LBR over trajectories that contain a loop (null when none do). */
  loopBurden: number | null;
  /** Mean RA over trajectories with at least one deviation (null when none deviate). */
  recoveryAbility: number | null;
  /** Trajectories with a recovery opportunity (at least one deviation). */
  eligibleForRecovery: number;
  /** Mean length over all recovered deviations (null when none recovered). */
  avgRecoveryLength: number | null;
}

/** Aggregate per-trajectory metrics. */
export function summarizeStability(items: readonly StabilityMetrics[]): StabilitySummary {
  const looped = items.filter((m) => m.loopSteps > 0);
  const eligible = items.filter((m) => m.recoveryAbility !== null);
  const lengths = items.flatMap((m) => m.recoveryLengths);
  return {
    trajectories: items.length,
    sources: [...new Set(items.map((m) => m.source))].sort(),
    deviationRate: items.length === 0 ? 0 : mean(items.map((m) => m.deviationRate)),
    loopIncidence: items.length === 0 ? 0 : looped.length / items.length,
    loopBurden: looped.length === 0 ? null : mean(looped.map((m) => m.loopBurden)),
    recoveryAbility: eligible.length === 0 ? null : mean(eligible.map((m) => m.recoveryAbility as number)),
    eligibleForRecovery: eligible.length,
    avgRecoveryLength: lengths.length === 0 ? null : mean(lengths),
  };
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
