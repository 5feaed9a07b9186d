/**
 * `executeRestoration` (recovery subgraph): execute the sub-agent's step, record it with role
 * "recovery", and decide whether the attempt is over: a restored claim (DONE counts as one)
 * confirmed by the verifier when there is one (an abstention does not confirm unless
 * `onAbstain: "ssim"`; see restoration/confirm.ts), a FAIL, or the budget spent.
 */
import type { HistoryEntry } from "../../src/policy.ts";
import type { RuntimeContext } from "../context.ts";
import { takeStep } from "../env-step.ts";
import { confirmState } from "../restoration/confirm.ts";
import type { SubgraphState, SubgraphUpdate } from "../recovery-subgraph-state.ts";

/** The `executeRestoration` node of the recovery subgraph. */
export async function executeRestoration(state: SubgraphState, ctx: RuntimeContext): Promise<SubgraphUpdate> {
  const decision = state.decision!;
  const before = state.observation!;
  const k = state.recoveryHistory.length;
  // A pure "restored" declaration with no action is an answer, not a step: it costs no budget.
  if (decision.restored && decision.actions.length === 0 && !decision.failure) {
    const out = await finish(state, ctx, before, {});
    return out.done ? out : { ...out, rejectedClaims: state.rejectedClaims + 1 };
  }
  const { run, record, entry } = await takeStep(ctx, decision, before, {
    seq: state.seqStart + state.records.length,
    role: "recovery",
    step: k,
    attempt: state.attempt,
    ...(decision.restored ? { info: { restoredClaim: true } } : {}),
  });
  const tick = state.tick + 1;
  ctx.events.emit("recovery-step", { taskId: state.task.id, attempt: state.attempt, record });
  ctx.events.emit("step", { taskId: state.task.id, record, tick });
  const update: SubgraphUpdate = {
    decision: null,
    tick,
    observation: run.observation,
    recoveryHistory: [...state.recoveryHistory, entry],
    records: [...state.records, record],
    executed: [...state.executed, ...run.executed],
    envMs: state.envMs + run.envMs,
    policyFailures: state.policyFailures + (decision.failure ? 1 : 0),
  };
  if (run.envError) return { ...update, done: true, restored: false, envError: run.envError, reason: `environment failed: ${run.envError}` };
  if (run.terminal === "FAIL") return { ...update, done: true, restored: false, reason: "the recovery agent gave up (FAIL)" };
  if (decision.restored || run.terminal === "DONE") return { ...update, ...(await finish({ ...state, ...update } as SubgraphState, ctx, run.observation, update)) };
  if (k + 1 >= state.recoveryBudget) return { ...update, done: true, restored: false, reason: `recovery budget of ${state.recoveryBudget} steps spent` };
  return update;
}

/** A restored claim: accept it, or ask the verifier (not confirmed -> continue while budget remains). */
async function finish(state: SubgraphState, ctx: RuntimeContext, current: SubgraphState["observation"], update: SubgraphUpdate): Promise<SubgraphUpdate> {
  const verifier = ctx.components.verifier;
  if (!verifier) return { ...update, decision: null, done: true, restored: true, reason: "the recovery agent declared the target restored" };
  const records = (update.records as SubgraphState["records"] | undefined) ?? state.records;
  const site = { seq: records.length ? records[records.length - 1].seq : Math.max(0, state.seqStart - 1), phase: "verifier" as const, attempt: state.attempt };
  const v = await confirmState(ctx, verifier, state.target.observation, current!, site);
  const usage = [...state.usage, ...v.usage];
  if (v.confirmed) return { ...update, decision: null, usage, done: true, restored: true, reason: `restored claim confirmed by ${verifier.name} (${v.verdict}): ${v.reason}` };
  const stepped = update.recoveryHistory as HistoryEntry[] | undefined;
  const used = (stepped ?? state.recoveryHistory).length + state.rejectedClaims + (stepped ? 0 : 1);
  const why = v.verdict === "abstain" ? v.reason : `verifier ${verifier.name} rejected the restored claim: ${v.reason}`;
  if (used >= state.recoveryBudget) return { ...update, decision: null, usage, done: true, restored: false, reason: `${why}; the budget is spent` };
  return { ...update, decision: null, usage, done: false, reason: why };
}
