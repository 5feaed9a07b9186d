/**
 * `model` restoration: the recovery sub-agent acts in the environment (the paper's end-to-end
 * setting), run as the recovery subgraph with its own budget. Its context is 0-E, 0-R, none, or
 * "contextualized" (a summarizer's description of the transitions up to the target).
 */
import type { RecoveryContext } from "@retrace-cua/core/recovery";
import { addUsage, bump } from "@retrace-cua/core/runtime/accounting";
import { recoveryContextHistory } from "@retrace-cua/core/runtime/history";
import { taskSpec, type RuntimeContext } from "../context.ts";
import { runRecoverySubgraph } from "../recovery-subgraph.ts";
import { withPrompts, type GraphState } from "../state.ts";
import type { RestorationOutcome } from "./outcome.ts";
import { atCallSite } from "@retrace-cua/core/runtime/call-site";

export async function restoreByModel(
  state: GraphState,
  ctx: RuntimeContext,
  errorStep: number,
  recoveryStep: number,
  attempt: number,
): Promise<RestorationOutcome> {
  const target = { step: recoveryStep, observation: state.history[recoveryStep].observation };
  const kind = ctx.options.recoveryContext;
  let accounting = state.accounting;
  let prompts = state.prompts;
  const context: RecoveryContext = {
    kind,
    history: recoveryContextHistory(kind, state.history, errorStep, recoveryStep),
  };
  if (kind === "contextualized") {
    // Like the selector's, the summarizer's call belongs to the step whose detection started the attempt.
    const site = { seq: state.steps[state.steps.length - 1]?.seq ?? 0, phase: "summarizer" as const, attempt };
    const s = await atCallSite(site, () =>
      ctx.components.summarizer!.summarize({
        task: taskSpec(state.task),
        history: state.history.slice(0, recoveryStep),
        target,
        blobs: ctx.components.blobs,
        signal: ctx.signal,
      }),
    );
    context.summary = s.summary;
    accounting = addUsage(accounting, s.usage, "summarizer");
    prompts = withPrompts(prompts, s.prompt);
  }
  const out = await runRecoverySubgraph(
    ctx,
    {
      task: state.task,
      target,
      errorStep,
      context,
      attempt,
      recoveryBudget: ctx.options.recoveryBudget,
      seqStart: state.steps.length,
      observation: state.observation,
      tick: state.tick,
    },
    ctx.options.recoveryBudget * 4 + 10,
  );
  accounting = addUsage(accounting, out.usage, "recoverer");
  accounting = bump(accounting, {
    recoverySteps: out.records.length,
    policyFailures: out.policyFailures,
    envMs: out.envMs,
  });
  return {
    observation: out.observation!,
    restored: out.restored,
    confirmation: out.confirmation,
    reason: out.reason,
    records: out.records,
    events: [],
    tick: out.tick,
    envLog: { ...state.envLog, actions: [...state.envLog.actions, ...out.executed] },
    accounting,
    prompts: withPrompts(prompts, ...out.usage.map((u) => u.prompt)),
    ...(out.envError ? { envError: out.envError } : {}),
  };
}
