/**
 * `execute`: run the proposed forward step in the environment, record it, and extend the history.
 * Ends the episode on DONE/FAIL, on an environment failure, when the forward budget is spent, or
 * (option `onStuck: "stop"`) when the agent is stuck with its recovery attempts spent.
 */
import { bump } from "@retrace-cua/core/runtime/accounting";
import { detectorGate } from "@retrace-cua/core/runtime/freeze";
import { STUCK_STEPS, stuckRun } from "@retrace-cua/core/runtime/stuck";
import type { RuntimeContext } from "../context.ts";
import { captureSnapshot, currentStateHash, takeStep } from "../env-step.ts";
import type { GraphState, GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { codecFor } from "../stored-observation.ts";

/** The `execute` node. */
export async function execute(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const decision = state.decision ?? { actions: [] };
  const before = state.observation!;
  const t = state.history.length;
  const { run, record, entry } = await takeStep(ctx, decision, before, {
    seq: state.steps.length,
    role: "forward",
    step: t,
    ...(state.attempt > 0 ? { attempt: state.attempt } : {}),
  });
  const tick = state.tick + 1;
  const codec = codecFor(ctx);
  ctx.events.emit("step", { taskId: state.task.id, record, tick });
  const accounting = bump(state.accounting, {
    forwardSteps: 1,
    policyFailures: decision.failure ? 1 : 0,
    envMs: run.envMs,
  });
  const update: GraphUpdate = {
    tick,
    observation: codec.store(run.observation),
    history: { push: [codec.storeEntry(entry)] },
    steps: { push: [record] },
    accounting,
    ...(run.executed.length ? { envLog: { push: run.executed } } : {}),
  };
  if (run.envError) return { ...update, stopReason: "env-error", envError: run.envError };
  const hash = currentStateHash(ctx);
  if (hash) update.stateHashes = { push: [hash] };
  const snap = await captureSnapshot(ctx);
  if (snap) update.snapshots = { push: [snap] };
  if (run.terminal) update.stopReason = run.terminal === "DONE" ? "done" : "fail";
  else if (accounting.forwardSteps >= ctx.options.maxForwardSteps) update.stopReason = "max-steps";
  else if (ctx.options.onStuck === "stop" && attemptsSpent(state, ctx)) {
    // the last STUCK_STEPS entries only: no copy of the whole history on every step of a long episode
    if (stuckRun([...state.history.slice(-(STUCK_STEPS - 1)), entry], run.observation)) update.stopReason = "stuck";
  }
  return update;
}

/** The recovery attempts are spent: there is a detector, and it is no longer asked (`exhausted`). */
function attemptsSpent(state: GraphState, ctx: RuntimeContext): boolean {
  const gate = detectorGate(
    { freezeRemaining: state.freezeRemaining, recoveryAttempts: state.accounting.recoveryAttempts },
    { maxRecoveryIterations: ctx.options.maxRecoveryIterations, hasDetector: !!ctx.components.detector },
  );
  return gate === "exhausted";
}
