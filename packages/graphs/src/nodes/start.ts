/** `start`: reset the environment to the task's initial state and take o_0. */
import { describeError } from "@retrace-cua/core/errors";
import type { RuntimeContext } from "../context.ts";
import { captureSnapshot, currentStateHash } from "../env-step.ts";
import type { GraphState, GraphUpdate } from "../state.ts";
import { codecFor } from "../stored-observation.ts";

export async function start(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  try {
    const observation = await ctx.components.env.reset(state.task);
    ctx.envSynced = true;
    const hash = currentStateHash(ctx);
    const snap = await captureSnapshot(ctx);
    return {
      observation: codecFor(ctx).store(observation),
      history: { cut: 0 },
      steps: { cut: 0 },
      stateHashes: { cut: 0, push: hash ? [hash] : [] },
      snapshots: { cut: 0, push: snap ? [snap] : [] },
      envLog: { rebase: { base: "reset", actions: [] } },
      events: {
        cut: 0,
        push: [
          { afterSeq: -1, kind: "reset", detail: { reason: "episode start", screenshot: observation.screenshot } },
        ],
      },
    };
  } catch (err) {
    return { stopReason: "env-error", envError: `reset failed: ${describeError(err)}` };
  }
}
