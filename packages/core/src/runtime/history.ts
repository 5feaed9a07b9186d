/**
 * History truncation and recovery contexts, by the README's step indexing: restoring to R keeps
 * forward history entries 0..R-1, so o_R is again the current observation.
 */
import { ConfigError, InternalError } from "../errors.ts";
import type { HistoryEntry } from "../policy.ts";
import type { RecoveryContextKind } from "../recovery.ts";

/** Forward history after restoring to step R (entries 0..R-1). */
export function truncateHistory(history: readonly HistoryEntry[], recoveryStep: number): HistoryEntry[] {
  if (!Number.isInteger(recoveryStep) || recoveryStep < 0 || recoveryStep > history.length) {
    throw new InternalError(`truncateHistory: recovery step ${recoveryStep} is outside 0..${history.length}`);
  }
  return history.slice(0, recoveryStep);
}

/**
 * The history the recovery sub-agent is shown, from the forward history 0..t-1 held when the
 * detector fired at step t:
 * - "0-E": every entry 0..t-1, i.e. the history up to the erroneous state (the current screen).
 *   That is the paper's definition (App. A.2, "the observation-action history up to the error
 *   state") and the one retrace's recovery evaluation uses (packages/evaluation/src/eval/episode.ts historyToError):
 *   the wrong action a_E *and* every action after it, which are the actions the sub-agent must
 *   undo. `errorStep` E only names the blamed step; it does not cut this context.
 * - "0-R": entries 0..R-1 (ending at the target observation o_R, which is shown anyway).
 * - "none" and "contextualized" (which gets a summary instead): no entries.
 */
export function recoveryContextHistory(
  kind: RecoveryContextKind,
  history: readonly HistoryEntry[],
  errorStep: number,
  recoveryStep: number,
): HistoryEntry[] {
  switch (kind) {
    case "0-E":
      if (!Number.isInteger(errorStep) || errorStep < 0 || errorStep >= Math.max(1, history.length)) {
        throw new InternalError(
          `recoveryContextHistory: error step ${errorStep} is outside the history 0..${history.length - 1}`,
        );
      }
      return history.slice();
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
