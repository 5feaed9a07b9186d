/**
 * Bringing a fresh environment to a checkpointed episode's state when an episode resumes in a new
 * process (or a new graph instance): reset (and restore the recorded snapshot, if the log starts
 * from one), then re-execute the actions logged since. Deterministic environments land exactly on
 * the checkpointed state; a differing screen is logged.
 *
 * It runs lazily, inside the first node that runs after a resume, so it sees the state LangGraph
 * resumes with (pending writes of finished tasks included), not just the last full checkpoint.
 */
import { EnvironmentError, describeError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import type { RuntimeContext } from "./context.ts";
import { loadSnapshot } from "./env-step.ts";
import { settleAfterStep } from "@retrace-cua/core/settle";
import type { GraphState } from "./state.ts";

/** Make sure the environment is in the state `state` describes; a no-op once synced. */
export async function ensureEnvironment(state: GraphState, ctx: RuntimeContext): Promise<void> {
  if (ctx.envSynced || !state.observation) return;
  const { env, blobs } = ctx.components;
  const log = state.envLog;
  let observation;
  try {
    // Reset first in every case: it loads the task (and its evaluator) into a fresh environment.
    observation = await env.reset(state.task);
    if (log.base !== "reset") observation = await env.restore!(await loadSnapshot(blobs, log.base.snapshot));
    // The log keeps actions, not step boundaries: settle after each replayed action, so the
    // replay never waits less than the run it reproduces did (packages/core/src/settle.ts).
    for (const action of log.actions)
      observation = await settleAfterStep(
        env,
        1,
        ctx.options.settleMs,
        (await env.step(action)).observation,
        ctx.signal,
      );
  } catch (err) {
    throw new EnvironmentError(
      `could not bring the environment back to the checkpointed state of ${state.task.id}: ${describeError(err)}`,
      { cause: err },
    );
  }
  ctx.envSynced = true;
  const expected = state.observation.screenshot;
  if (observation.screenshot !== expected) {
    logger.warn(
      { task: state.task.id, expected, got: observation.screenshot },
      "resumed environment does not show the checkpointed screen",
    );
  }
}
