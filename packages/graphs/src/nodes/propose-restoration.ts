/**
 * `proposeRestoration` (recovery subgraph): ask the recovery sub-agent for its next step, given the
 * target (step R and o_R, always), the recovery context, its own steps so far and its budget. A
 * thin caller of the one sub-agent loop's proposal (packages/core/src/runtime/recovery-agent.ts).
 */
import { stopRequested, taskSpec, type RuntimeContext } from "../context.ts";
import type { SubgraphState, SubgraphUpdate } from "../recovery-subgraph-state.ts";
import { atCallSite } from "@retrace-cua/core/runtime/call-site";
import { proposeRecoveryStep } from "@retrace-cua/core/runtime/recovery-agent";

export async function proposeRestoration(state: SubgraphState, ctx: RuntimeContext): Promise<SubgraphUpdate> {
  const progress = {
    budget: state.recoveryBudget,
    steps: state.recoveryHistory.length,
    rejectedClaims: state.rejectedClaims,
  };
  // The recovery step this proposal becomes (a "restored" claim with no action makes none; the viewer then shows the
  // call on the step before).
  const site = { seq: state.seqStart + state.records.length, phase: "recoverer" as const, attempt: state.attempt };
  const out = await proposeRecoveryStep(
    progress,
    (used) =>
      atCallSite(site, () =>
        ctx.components.recoverer!.propose({
          task: taskSpec(state.task),
          target: state.target,
          errorStep: state.errorStep,
          context: state.context,
          recoveryHistory: state.recoveryHistory,
          observation: state.observation!,
          budget: { used, max: state.recoveryBudget },
          tick: state.tick,
          blobs: ctx.components.blobs,
          signal: ctx.signal,
        }),
      ),
    stopRequested(ctx),
    ctx.options.onRecoveryRepeat === "stop"
      ? { history: state.recoveryHistory, observation: state.observation! }
      : undefined,
  );
  if (out.done)
    return {
      done: true,
      restored: false,
      confirmation: out.confirmation,
      reason: out.reason,
      ...(out.usage?.length ? { usage: [...state.usage, ...out.usage] } : {}),
    };
  // A "restored" claim with no action makes no step: its call is recorded on the attempt's last step, where the
  // verifier call that judges it is recorded too.
  if (out.decision.restored && out.decision.actions.length === 0)
    site.seq = state.records.length ? state.records[state.records.length - 1].seq : Math.max(0, state.seqStart - 1);
  return { decision: out.decision, usage: [...state.usage, ...(out.decision.usage ?? [])] };
}
