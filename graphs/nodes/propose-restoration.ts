/**
 * `proposeRestoration` (recovery subgraph): ask the recovery sub-agent for its next step, given the
 * target (step R and o_R, always), the recovery context, its own steps so far and its budget.
 */
import { stopRequested, taskSpec, type RuntimeContext } from "../context.ts";
import type { SubgraphState, SubgraphUpdate } from "../recovery-subgraph-state.ts";
import { sanitizeDecision } from "./propose.ts";
import { atCallSite } from "../../src/runtime/call-site.ts";

export async function proposeRestoration(state: SubgraphState, ctx: RuntimeContext): Promise<SubgraphUpdate> {
  const used = state.recoveryHistory.length + state.rejectedClaims;
  if (used >= state.budget) return { done: true, restored: false, reason: `recovery budget of ${state.budget} steps spent` };
  const stop = stopRequested(ctx);
  if (stop) return { done: true, restored: false, reason: stop };
  // The recovery step this proposal becomes; a "restored" claim with no action makes none and is
  // recorded on the attempt's last step (where the verifier call that judges it is recorded too).
  const site = { seq: state.seqStart + state.records.length, phase: "recoverer" as const, attempt: state.attempt };
  const raw = await atCallSite(site, () => ctx.components.recoverer!.propose({
    task: taskSpec(state.task),
    target: state.target,
    errorStep: state.errorStep,
    context: state.context,
    recoveryHistory: state.recoveryHistory,
    observation: state.observation!,
    budget: { used, max: state.budget },
    tick: state.tick,
    blobs: ctx.components.blobs,
    signal: ctx.signal,
  }));
  const restoredClaim = !!raw && typeof raw === "object" && raw.restored === true;
  let decision = sanitizeDecision(raw);
  // Declaring the target restored with no action is a valid, final answer, not an empty step.
  if (restoredClaim && decision.failure?.kind === "empty") decision = { ...decision, failure: undefined };
  if (restoredClaim && decision.actions.length === 0) site.seq = state.records.length ? state.records[state.records.length - 1].seq : Math.max(0, state.seqStart - 1);
  return { decision: { ...decision, restored: restoredClaim }, usage: [...state.usage, ...(decision.usage ?? [])] };
}
