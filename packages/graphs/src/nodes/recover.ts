/**
 * `recover`: bring the environment back to step R by the configured restoration mode: the recovery
 * sub-agent (`model`, a subgraph), action replay (`replay`), an environment snapshot (`snapshot`),
 * or nothing (`implicit`: the forward policy itself carries on, unprompted; `guided`: the same, told
 * which step went wrong). Phases 2-4 of the one recovery attempt (packages/core/src/runtime/attempt.ts): emits
 * recovery-start/-end (with the restoration's `confirmation`) and marks both in the trajectory.
 */
import type { TrajectoryEvent } from "@retrace-cua/core/trajectory";
import type { RuntimeContext } from "../context.ts";
import { restoreByModel } from "../restoration/model.ts";
import type { RestorationOutcome } from "../restoration/outcome.ts";
import { restoreByReplay } from "../restoration/replay.ts";
import { restoreBySnapshot } from "../restoration/snapshot.ts";
import { envLogOp, type GraphState, type GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { codecFor } from "../stored-observation.ts";
import { endRecovery, startRecovery } from "@retrace-cua/core/runtime/attempt";

export async function recover(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const pending = state.pending!;
  const { attempt, errorStep } = pending;
  const recoveryStep = pending.recoveryStep ?? errorStep;
  const mode = ctx.options.restoration;
  const target = state.history[recoveryStep]?.observation ?? state.observation!;
  const startSeq = state.steps.length - 1;
  const sink = { events: ctx.events, taskId: state.task.id };
  const startEvent: TrajectoryEvent = {
    afterSeq: startSeq,
    kind: "recovery-start",
    detail: startRecovery(sink, {
      attempt,
      restoration: mode,
      errorStep,
      recoveryStep,
      target,
      detection: pending.detection,
      ...(pending.selection ? { selection: pending.selection } : {}),
    }),
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
      out = await restoreBySnapshot(state, ctx, recoveryStep, attempt);
      break;
    default:
      out = {
        observation: state.observation!,
        restored: false,
        confirmation: "refused",
        reason:
          mode === "guided"
            ? "guided recovery: no restoration, the forward policy is told which step went wrong"
            : "implicit recovery: no restoration, the forward policy continues unprompted",
        records: [],
        events: [],
        tick: state.tick,
        envLog: state.envLog,
        accounting: state.accounting,
        prompts: state.prompts,
      };
  }
  const endEvent: TrajectoryEvent = {
    afterSeq: state.steps.length + out.records.length - 1,
    kind: "recovery-end",
    detail: endRecovery(sink, {
      attempt,
      restoration: mode,
      confirmation: out.confirmation,
      steps: out.records.length,
      reason: out.reason,
      observation: out.observation,
    }),
  };
  const envLog = envLogOp(state.envLog, out.envLog);
  const update: GraphUpdate = {
    observation: codecFor(ctx).store(out.observation),
    steps: { push: out.records },
    events: { push: [startEvent, ...out.events, endEvent] },
    tick: out.tick,
    ...(envLog ? { envLog } : {}),
    accounting: out.accounting,
    prompts: out.prompts,
    pending: { ...pending, recoveryStep, restored: out.restored, confirmation: out.confirmation },
  };
  if (out.envError) return { ...update, stopReason: "env-error", envError: out.envError };
  return update;
}
