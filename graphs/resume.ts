/**
 * Bringing a fresh environment to a checkpointed episode's state before resuming: reset (or
 * restore the recorded snapshot), then re-execute the actions logged since. Deterministic
 * environments land on exactly the checkpointed state; a mismatch is logged.
 */
import { logger } from "../src/logger.ts";
import type { EpisodeComponents } from "../src/episode.ts";
import type { GraphState } from "./state.ts";
import { loadSnapshot } from "./env-step.ts";

/** Replay the environment log of a checkpointed state. Returns false when the screen differs. */
export async function restoreEnvironmentFor(state: GraphState, components: EpisodeComponents): Promise<boolean> {
  const { env, blobs } = components;
  const log = state.envLog;
  // Reset first in every case: it loads the task (and its evaluator) into a fresh environment.
  let observation = await env.reset(state.task);
  if (log.base !== "reset") observation = await env.restore!(await loadSnapshot(blobs, log.base.snapshot));
  for (const action of log.actions) observation = (await env.step(action)).observation;
  const expected = state.observation?.screenshot;
  if (expected && observation.screenshot !== expected) {
    logger.warn({ task: state.task.id, expected, got: observation.screenshot }, "resumed environment does not show the checkpointed screen");
    return false;
  }
  return true;
}
