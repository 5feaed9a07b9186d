/**
 * `executeRestoration` (recovery subgraph): execute the sub-agent's step, record it with role
 * "recovery", and let the one sub-agent loop (packages/core/src/runtime/recovery-agent.ts) decide whether the
 * attempt is over: a restored claim (DONE counts as one) checked by the one confirmation rule
 * (packages/core/src/runtime/confirm.ts), a FAIL, or the budget spent.
 */
import type { Observation } from "@retrace-cua/core/observation";
import { settleRecoveryStep, isPureClaim, type RecoveryStepDecision } from "@retrace-cua/core/runtime/recovery-agent";
import { isRestored } from "@retrace-cua/core/runtime/confirm";
import type { RuntimeContext } from "../context.ts";
import { takeStep } from "../env-step.ts";
import { confirmState } from "../restoration/confirm.ts";
import type { SubgraphState, SubgraphUpdate } from "../recovery-subgraph-state.ts";

/** The `executeRestoration` node of the recovery subgraph. */
export async function executeRestoration(state: SubgraphState, ctx: RuntimeContext): Promise<SubgraphUpdate> {
  const decision = state.decision! as RecoveryStepDecision;
  const before = state.observation!;
  const k = state.recoveryHistory.length;
  let update: SubgraphUpdate = { decision: null };
  let run = null;
  let current: Observation = before;
  // A pure "restored" declaration with no action is an answer, not a step: it costs no budget unless refused.
  if (!isPureClaim(decision)) {
    const taken = await takeStep(ctx, decision, before, {
      seq: state.seqStart + state.records.length,
      role: "recovery",
      step: k,
      attempt: state.attempt,
      ...(decision.restored ? { info: { restoredClaim: true } } : {}),
    });
    run = taken.run;
    current = run.observation;
    const tick = state.tick + 1;
    ctx.events.emit("recovery-step", { taskId: state.task.id, attempt: state.attempt, record: taken.record });
    ctx.events.emit("step", { taskId: state.task.id, record: taken.record, tick });
    update = {
      decision: null,
      tick,
      observation: run.observation,
      recoveryHistory: [...state.recoveryHistory, taken.entry],
      records: [...state.records, taken.record],
      executed: [...state.executed, ...run.executed],
      envMs: state.envMs + run.envMs,
      policyFailures: state.policyFailures + (decision.failure ? 1 : 0),
    };
  }
  const records = (update.records as SubgraphState["records"] | undefined) ?? state.records;
  const progress = { budget: state.recoveryBudget, steps: k + (run ? 1 : 0), rejectedClaims: state.rejectedClaims };
  // The verifier's calls belong to the step whose result it checks.
  const site = {
    seq: records.length ? records[records.length - 1].seq : Math.max(0, state.seqStart - 1),
    phase: "verifier" as const,
    attempt: state.attempt,
  };
  const v = await settleRecoveryStep(
    progress,
    decision,
    run,
    current,
    (c) => confirmState(ctx, state.target.observation, c, { unchecked: "claim", site }),
    ctx.components.verifier?.name,
  );
  const usage = v.usage.length ? { usage: [...state.usage, ...v.usage] } : {};
  const rejected = v.rejectedClaim ? { rejectedClaims: state.rejectedClaims + 1 } : {};
  const envError = run?.envError ? { envError: run.envError } : {};
  if (v.done)
    return {
      ...update,
      ...usage,
      ...rejected,
      ...envError,
      done: true,
      restored: isRestored(v.confirmation),
      confirmation: v.confirmation,
      reason: v.reason,
    };
  return { ...update, ...usage, ...rejected, ...(v.reason ? { reason: v.reason } : {}) };
}
