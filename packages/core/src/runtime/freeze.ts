/**
 * Detector gating: the freeze window and max recovery iterations (paper App. B.2). Pure bookkeeping shared
 * by the LangGraph runtime and the LangChain middleware.
 *
 * After a recovery is triggered the detector is not consulted for the next F forward steps;
 * after `maxRecoveryIterations` recoveries it is not consulted at all (the forward policy simply
 * continues). Both counters live in checkpointed state, so a resumed episode gates identically.
 */

/** The part of episode state the gate reads and writes. */
export interface FreezeState {
  /** Forward steps still to be taken without consulting the detector. */
  freezeRemaining: number;
  /** Recovery episodes triggered so far. */
  recoveryAttempts: number;
}

/** Why the detector is (not) consulted after a forward step. */
export type DetectorGate = "consult" | "frozen" | "exhausted" | "no-detector";

/** Decide whether to consult the detector after a forward step. */
export function detectorGate(
  state: FreezeState,
  opts: { maxRecoveryIterations: number; hasDetector: boolean },
): DetectorGate {
  if (!opts.hasDetector) return "no-detector";
  if (state.recoveryAttempts >= opts.maxRecoveryIterations) return "exhausted";
  if (state.freezeRemaining > 0) return "frozen";
  return "consult";
}

/** State after one forward step passed without consulting the detector (frozen). */
export function consumeFrozenStep<S extends FreezeState>(state: S): S {
  return { ...state, freezeRemaining: Math.max(0, state.freezeRemaining - 1) };
}

/** State after a recovery was triggered: one more attempt used, the window starts. */
export function startFreeze<S extends FreezeState>(state: S, freezeWindow: number): S {
  return { ...state, recoveryAttempts: state.recoveryAttempts + 1, freezeRemaining: freezeWindow };
}

/** Initial gate state of an episode. */
export function initialFreezeState(): FreezeState {
  return { freezeRemaining: 0, recoveryAttempts: 0 };
}
