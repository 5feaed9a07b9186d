/**
 * What a try thrown away after an environment error leaves in the episode's result line. The
 * pool runs the episode again from the start in a fresh environment, and only the try that ends
 * the episode makes its result (so a retried episode's line equals an unretried one's but for
 * `envTries` and `failedTries`). What the failed tries did is still counted: their model calls
 * (failed ones included) and detector failures, so that no failed call is recorded nowhere.
 */
import type { RoleCalls } from "../agents/meter.ts";
import type { Trajectory } from "@retrace-cua/core/trajectory";
import type { ModelRole } from "@retrace-cua/core/usage";

/** One try that ended in an environment error (`ResultLine.failedTries`). */
export interface FailedTry {
  /** The environment error that ended it. */
  envError: string;
  /** Detector calls made before the error (absent = none or unknown). */
  detectorCalls?: number;
  /** Detector calls that failed and fell back to "no detection" (absent = none). */
  detectorFailures?: number;
  /** Of those, how many still started a recovery (absent = none; must stay 0: fail-safe). */
  detectorFailuresThatTriggeredRecovery?: number;
  /** Model calls per role, failed ones included (absent when none was made or known). */
  models?: Partial<Record<ModelRole, RoleCalls>>;
}

/** The facts of a try a thrown error ended, where the episode runner knew them. */
const FACTS = new WeakMap<object, Omit<FailedTry, "envError">>();

/** Attach what a try did to the error that ends it (the pool reads it back with {@link factsOfThrown}). */
export function attachTryFacts(err: unknown, facts: Omit<FailedTry, "envError">): void {
  if (err !== null && typeof err === "object") FACTS.set(err, facts);
}

/** What {@link attachTryFacts} attached to `err`, if anything. */
export function factsOfThrown(err: unknown): Omit<FailedTry, "envError"> {
  return (err !== null && typeof err === "object" && FACTS.get(err)) || {};
}

/** Detector failures in a trajectory, and how many of them were followed by a recovery. */
export function detectorFailureCounts(trajectory: Trajectory): { failures: number; triggered: number } {
  const bySeq = new Map(trajectory.steps.map((s) => [s.seq, s]));
  const failures = trajectory.steps.filter((s) => s.detection?.failure).length;
  const triggered = trajectory.events.filter(
    (e) => e.kind === "recovery-start" && bySeq.get(e.afterSeq)?.detection?.failure,
  ).length;
  return { failures, triggered };
}
