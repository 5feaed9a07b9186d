/**
 * `detect` logic: consult the error-step detector after a forward step, unless the freeze window
 * or max recovery iterations say not to. A failed detector is counted and ignored; a confident detection
 * (when restoration is not "none") starts a recovery: the attempt is counted and the window
 * starts. Run by the `judge` node (packages/graphs/src/nodes/judge.ts), which also asks for the next proposal.
 */
import { addUsage, bump, bumpGates } from "@retrace-cua/core/runtime/accounting";
import { degradedNow, guardedDetect, trackDetectorHealth } from "@retrace-cua/core/runtime/detection";
import { consumeFrozenStep, detectorGate, startFreeze, type DetectorGate } from "@retrace-cua/core/runtime/freeze";
import { taskSpec, type RuntimeContext } from "../context.ts";
import { withPrompts, type GraphState, type GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { atCallSite } from "@retrace-cua/core/runtime/call-site";

/** Whether the detector will be consulted for the step just executed. */
export function detectGate(state: GraphState, ctx: RuntimeContext): DetectorGate {
  const gateState = { freezeRemaining: state.freezeRemaining, recoveryAttempts: state.accounting.recoveryAttempts };
  return detectorGate(gateState, {
    maxRecoveryIterations: ctx.options.maxRecoveryIterations,
    hasDetector: !!ctx.components.detector,
  });
}

/** The detection update for the step just executed (`pending` set when a recovery starts). */
export async function detect(
  state: GraphState,
  ctx: RuntimeContext,
  opts: { ending?: boolean } = {},
): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const { detector } = ctx.components;
  const step = state.history.length;
  const lastIdx = state.steps.length - 1;
  const gateState = { freezeRemaining: state.freezeRemaining, recoveryAttempts: state.accounting.recoveryAttempts };
  const gate = detectGate(state, ctx);
  if (gate !== "consult") {
    if (gate !== "frozen") return {};
    const next = consumeFrozenStep(gateState);
    ctx.events.emit("freeze", { taskId: state.task.id, step: step - 1, gate, remaining: next.freezeRemaining });
    const steps = { at: lastIdx, item: { ...state.steps[lastIdx], frozen: true } };
    return { freezeRemaining: next.freezeRemaining, steps, accounting: bump(state.accounting, { frozenSkipped: 1 }) };
  }

  const { detection, failed } = await atCallSite({ seq: state.steps[lastIdx]?.seq ?? lastIdx, phase: "detector" }, () =>
    guardedDetect(
      detector!,
      {
        task: taskSpec(state.task),
        history: state.history,
        observation: state.observation!,
        step,
        tick: state.tick,
        ...(opts.ending ? { ending: true } : {}),
        blobs: ctx.components.blobs,
        signal: ctx.signal,
      },
      ctx.detectorTimeoutMs,
      { quiet: degradedNow(state.accounting, ctx.options.degradedAfter ?? 3) },
    ),
  );
  let accounting = bump(state.accounting, { detectorCalls: 1, detectorFailures: failed ? 1 : 0 });
  accounting = addUsage(accounting, detection.usage, "detector");
  accounting = trackDetectorHealth(accounting, {
    detector: detector!,
    detection,
    failed,
    taskId: state.task.id,
    step: step - 1,
    events: ctx.events,
    degradedAfter: ctx.options.degradedAfter ?? 3,
    onDetectorFailure: ctx.options.onDetectorFailure ?? "continue",
  });
  if (detection.cascade) accounting = bumpGates(accounting, gateCounts(detection.cascade));
  const triggered =
    !failed &&
    detection.isError &&
    detection.errorStep !== null &&
    detection.confidence >= ctx.options.minConfidence &&
    ctx.options.restoration !== "none";
  ctx.events.emit("detection", { taskId: state.task.id, step: step - 1, detection, triggered });
  const steps = { at: lastIdx, item: { ...state.steps[lastIdx], detection } };
  const prompts = withPrompts(state.prompts, detection.prompt);
  const update: GraphUpdate = { steps, accounting, ...(prompts.length !== state.prompts.length ? { prompts } : {}) };
  if (!triggered) return update;
  const started = startFreeze(gateState, ctx.options.freezeWindow);
  return {
    ...update,
    accounting: { ...accounting, recoveryAttempts: started.recoveryAttempts },
    freezeRemaining: started.freezeRemaining,
    attempt: started.recoveryAttempts,
    pending: { attempt: started.recoveryAttempts, errorStep: detection.errorStep!, detection },
  };
}

function gateCounts(c: NonNullable<import("@retrace-cua/core/detector").Detection["cascade"]>): Record<string, number> {
  const out: Record<string, number> = { steps: 1 };
  for (const g of c.gates) out[g] = (out[g] ?? 0) + 1;
  if (c.asked) out.asked = 1;
  if (c.firedBy) out.firedOnOwn = 1;
  return out;
}
