/**
 * History truncation and recovery contexts, by the README's step indexing: restoring to R keeps
 * forward history entries 0..R-1, so o_R is again the current observation.
 */
import { ConfigError } from "../errors.ts";
import type { HistoryEntry } from "../policy.ts";
import type { RecoveryContextKind } from "../recovery.ts";

/** Forward history after restoring to step R (entries 0..R-1). */
export function truncateHistory(history: readonly HistoryEntry[], recoveryStep: number): HistoryEntry[] {
  if (!Number.isInteger(recoveryStep) || recoveryStep < 0 || recoveryStep > history.length) {
    throw new RangeError(`truncateHistory: recovery step ${recoveryStep} is outside 0..${history.length}`);
  }
  return history.slice(0, recoveryStep);
}

/**
 * The history the recovery sub-agent is shown: entries 0..E (inclusive: the wrong action a_E and
 * the observation it acted on) for "0-E", 0..R-1 for "0-R", none for "none" and "contextualized"
 * (which gets a summary instead). 0-E includes the erroneous step as in the paper's recovery
 * evaluation (App. A.2), so the sub-agent sees what went wrong, not only what came before it.
 */
export function recoveryContextHistory(kind: RecoveryContextKind, history: readonly HistoryEntry[], errorStep: number, recoveryStep: number): HistoryEntry[] {
  switch (kind) {
    case "0-E":
      return history.slice(0, Math.min(errorStep + 1, history.length));
    case "0-R":
      return history.slice(0, Math.min(recoveryStep, history.length));
    case "none":
    case "contextualized":
      return [];
    default:
      throw new ConfigError(`recoveryContext: unknown kind "${String(kind)}"`, { field: "recoveryContext" });
  }
}

/** Is `errorStep` a step the forward history actually holds (0..length-1)? */
export function isValidErrorStep(errorStep: unknown, historyLength: number): errorStep is number {
  return typeof errorStep === "number" && Number.isInteger(errorStep) && errorStep >= 0 && errorStep < historyLength;
}
