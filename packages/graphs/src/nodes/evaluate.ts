/**
 * `evaluate`: run the task's evaluator (unless the environment failed) and assemble the
 * EpisodeResult. Wall time is filled in by whoever ran the graph.
 */
import { describeError } from "@retrace-cua/core/errors";
import type { EpisodeResult } from "@retrace-cua/core/episode";
import type { Evaluation } from "@retrace-cua/core/task";
import { isSimulated, type RuntimeContext } from "../context.ts";
import type { GraphState, GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { untilAborted } from "@retrace-cua/core/abortable";
import { servedBySimulation } from "@retrace-cua/core/runtime/accounting";

export async function evaluate(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  let stopReason = state.stopReason ?? "max-steps";
  let envError = state.envError;
  let evaluation: Evaluation;
  if (stopReason === "env-error") {
    evaluation = { score: 0, detail: `environment error: ${envError ?? "unknown"}` };
  } else {
    try {
      await ensureEnvironment(state, ctx);
      // The evaluator may run a user's checker: it ends with the episode's signal (its deadline).
      evaluation = await untilAborted(
        ctx.components.env.evaluate({
          terminal: stopReason === "fail" ? "FAIL" : stopReason === "done" ? "DONE" : null,
        }),
        ctx.signal,
        "the task's evaluator",
      );
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      stopReason = "env-error";
      envError = `evaluate failed: ${describeError(err)}`;
      evaluation = { score: 0, detail: envError };
    }
  }
  const result: EpisodeResult = {
    taskId: state.task.id,
    seed: ctx.options.seed,
    success: stopReason !== "env-error" && evaluation.score >= 1,
    evaluation,
    stopReason,
    ...(envError ? { envError } : {}),
    simulated: isSimulated(ctx.components) || servedBySimulation(state.accounting),
    trajectory: { taskId: state.task.id, steps: state.steps, events: state.events, result: evaluation },
    accounting: state.accounting,
    prompts: state.prompts,
  };
  ctx.events.emit("episode-end", { result });
  return { stopReason, envError, evaluation, result };
}
