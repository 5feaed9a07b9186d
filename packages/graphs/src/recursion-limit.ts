/** The LangGraph recursion limit of a recovery episode (light: the main entry exports it without loading the graph). */
import type { RecoveryOptions } from "@retrace-cua/core/episode";

/** A recursion limit that an episode within its budgets can never hit. */
export function recursionLimitFor(options: RecoveryOptions): number {
  return options.maxForwardSteps * 3 + options.maxRecoveryIterations * 4 + 16;
}
