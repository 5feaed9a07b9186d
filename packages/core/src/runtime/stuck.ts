/**
 * Option `onStuck` (issue 40, docs/cost.md "Recovery levers"): what the episode does once its
 * recovery attempts are spent (`maxRecoveryIterations`) and the forward agent is stuck: it has
 * taken the same actions {@link STUCK_STEPS} steps in a row and none of them changed the screen
 * (the screenshot's blob, a sha256, is the same before and after each). With the attempts spent
 * the judge is no longer asked, so the paper's agent repeats such a step until the forward cap.
 * "continue" (the paper's) lets it; "stop" ends the episode there with stop reason "stuck" (the
 * task's checker still scores the final state, as at the step cap). One check, used by the graph
 * (packages/graphs/src/nodes/execute.ts).
 */
import { ControlSignal } from "../errors.ts";
import { stableStringify } from "../hash.ts";
import type { HistoryEntry } from "../policy.ts";
import type { Observation } from "../observation.ts";

/** How many identical no-effect steps in a row make an agent stuck. */
export const STUCK_STEPS = 3;

const waitOnly = (e: HistoryEntry) => e.actions.length > 0 && e.actions.every((a) => a.type === "WAIT");

/**
 * Why the agent is stuck, or null: the last {@link STUCK_STEPS} entries of `history` (each with the
 * screen it was taken on) carry the same non-empty actions, not only WAITs, and `observation` (the
 * screen after the last of them) is the screen all of them were taken on.
 */
export function stuckRun(
  history: readonly HistoryEntry[],
  observation: Observation,
  n: number = STUCK_STEPS,
): string | null {
  if (history.length < n) return null;
  const run = history.slice(-n);
  const first = run[0];
  if (!first.actions.length || waitOnly(first)) return null;
  const actions = stableStringify(first.actions);
  const screen = observation.screenshot;
  if (!screen) return null;
  for (const e of run) {
    if (e.observation.screenshot !== screen || stableStringify(e.actions) !== actions) return null;
  }
  return `the agent repeated the same actions ${n} times on a screen they did not change, with its recovery attempts spent`;
}

/**
 * Thrown by an SDK wrapper's hook to end a run whose agent is stuck (option `onStuck: "stop"`), where
 * the SDK has no other way to stop its loop (the Agents SDK's `callModelInputFilter`); the wrapper's
 * `finish(err)` turns it into stop reason "stuck".
 */
export class EpisodeStuckError extends ControlSignal {
  constructor(readonly reason: string) {
    super(`retrace: the run was stopped: ${reason} (option onStuck: "stop")`);
  }
}
