/**
 * `recover`: bring the environment back to step R by the configured restoration mode: the recovery
 * sub-agent (`model`, a subgraph), action replay (`replay`), an environment snapshot (`snapshot`),
 * or nothing (`implicit`: the forward policy itself carries on, unprompted; `guided`: the same, told
 * which step went wrong). Emits recovery-start/-end and
 * marks both in the trajectory.
 */
import type { TrajectoryEvent } from "../../src/trajectory.ts";
import type { RuntimeContext } from "../context.ts";
import { restoreByModel } from "../restoration/model.ts";
import type { RestorationOutcome } from "../restoration/outcome.ts";
import { restoreByReplay } from "../restoration/replay.ts";
import { restoreBySnapshot } from "../restoration/snapshot.ts";
import type { GraphState, GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";

export async function recover(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const pending = state.pending!;
  const { attempt, errorStep } = pending;
  const recoveryStep = pending.recoveryStep ?? errorStep;
  const mode = ctx.options.restoration;
  const target = state.history[recoveryStep]?.observation ?? state.observation!;
  const startSeq = state.steps.length - 1;
  ctx.events.emit("recovery-start", { taskId: state.task.id, attempt, mode, errorStep, recoveryStep, target });
  const startEvent: TrajectoryEvent = {
    afterSeq: startSeq,
    kind: "recovery-start",
    detail: {
      attempt,
      mode,
      errorStep,
      recoveryStep,
      reason: pending.detection.reason,
      confidence: pending.detection.confidence,
      target: target.screenshot,
      ...(pending.selection ? { selection: pending.selection } : {}),
    },
  };

  let out: RestorationOutcome;
  switch (mode) {
    case "model":
      out = await restoreByModel(state, ctx, errorStep, recoveryStep, attempt);
      break;
    case "replay":
      out = await restoreByReplay(state, ctx, recoveryStep, attempt);
      break;
    case "snapshot":
      out = await restoreBySnapshot(state, ctx, recoveryStep);
      break;
    default:
      out = {
        observation: state.observation!,
        restored: false,
        reason: mode === "guided" ? "guided recovery: no restoration, the forward policy is told which step went wrong" : "implicit recovery: no restoration, the forward policy continues unprompted",
        records: [],
        events: [],
        tick: state.tick,
        envLog: state.envLog,
        accounting: state.accounting,
        prompts: state.prompts,
      };
  }
  const steps = [...state.steps, ...out.records];
  const endEvent: TrajectoryEvent = {
    afterSeq: steps.length - 1,
    kind: "recovery-end",
    detail: { attempt, mode, restored: out.restored, steps: out.records.length, reason: out.reason, observation: out.observation.screenshot },
  };
  ctx.events.emit("recovery-end", { taskId: state.task.id, attempt, mode, restored: out.restored, steps: out.records.length, reason: out.reason });
  const update: GraphUpdate = {
    observation: out.observation,
    steps,
    events: [...state.events, startEvent, ...out.events, endEvent],
    tick: out.tick,
    envLog: out.envLog,
    accounting: out.accounting,
    prompts: out.prompts,
    pending: { ...pending, recoveryStep, restored: out.restored },
  };
  if (out.envError) return { ...update, stopReason: "env-error", envError: out.envError };
  return update;
}
