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

/**
 * When each site was entered, as a number that grows in program order: the runtime enters sites
 * synchronously (the speculative proposal's before the overlapped detection's first await), so
 * within an episode the order of these numbers is the order the calls were asked for, the same
 * under a seed however the concurrent calls' I/O interleaves. (One counter for the process:
 * only the order within an episode is meaningful.)
 */
const entered = new WeakMap<CallSite, number>();
let entries = 0;

/** Run `fn` with model calls attributed to `site` (nested calls see the innermost site). */
export function atCallSite<T>(site: CallSite, fn: () => T): T {
  if (!entered.has(site)) entered.set(site, entries++);
  return sites.run(site, fn);
}

/** The order in which `site` was entered (see {@link atCallSite}); undefined for a site never entered. */
export function callSiteOrdinal(site: CallSite): number | undefined {
  return entered.get(site);
}

/** The call site of the model call being made now, if the runtime set one. */
export function currentCallSite(): CallSite | undefined {
  return sites.getStore();
}
