/**
 * Where in an episode a model call is made: the step it belongs to and the phase that made it.
 * The runtime sets it around every component call (the policy call of step t, the detector call
 * judging step t, the selector, summarizer, recoverer and verifier calls of a recovery attempt);
 * whatever records model calls (the experiments' meter) reads it when the call starts, so a call
 * carries its step from the moment it is made, also when an answer comes from the cache and also
 * when the detector and the policy call concurrently (async-local, not a shared variable).
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The phases of an episode that call models. */
export const CALL_PHASES = ["policy", "detector", "selector", "summarizer", "recoverer", "verifier"] as const;
/** One of {@link CALL_PHASES}. */
export type CallPhase = (typeof CALL_PHASES)[number];

/**
 * The step a model call belongs to: `seq` is the trajectory position (StepRecord.seq) of the step
 * the call proposes (policy, recoverer), judges (detector) or follows from (the selector and
 * summarizer of the attempt the detection at `seq` started; the verifier after recovery step `seq`).
 */
export interface CallSite {
  seq: number;
  phase: CallPhase;
  /** Recovery attempt (1-based) for the selector, summarizer, recoverer and verifier calls. */
  attempt?: number;
  /**
   * Set by the runtime after the call when its answer was thrown away: an overlapped detection's
   * speculative proposal for step `seq` when the detector fired (no step came of it).
   */
  discarded?: boolean;
}

const sites = new AsyncLocalStorage<CallSite>();

/** Run `fn` with model calls attributed to `site` (nested calls see the innermost site). */
export function atCallSite<T>(site: CallSite, fn: () => T): T {
  return sites.run(site, fn);
}

/** The call site of the model call being made now, if the runtime set one. */
export function currentCallSite(): CallSite | undefined {
  return sites.getStore();
}
