/**
 * `propose`: ask the forward policy for step t's actions. It sees the (possibly truncated) history,
 * the current observation and, once, the post-restoration notice. Unusable output is recorded as
 * a policy failure; a thrown error means the runtime failed and propagates (the checkpoint stays,
 * so the episode can be resumed).
 */
import type { PolicyDecision } from "@retrace-cua/core/policy";
import { addUsage } from "@retrace-cua/core/runtime/accounting";
import { sanitizeDecision } from "@retrace-cua/core/runtime/decision";
import { stopRequested, taskSpec, type RuntimeContext } from "../context.ts";
import { withPrompts, type GraphState, type GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { atCallSite, type CallSite } from "@retrace-cua/core/runtime/call-site";

export async function propose(state: GraphState, ctx: RuntimeContext, site?: CallSite): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const stop = stopRequested(ctx);
  if (stop) return { stopReason: "aborted", envError: null, decision: null };
  return proposalUpdate(state, await askPolicy(state, ctx, ctx.signal, site));
}

/**
 * Ask the forward policy for step t (raw, unvalidated output); its model calls belong to `site` (default: the next step
 * of the record).
 */
export function askPolicy(
  state: GraphState,
  ctx: RuntimeContext,
  signal: AbortSignal | undefined,
  site: CallSite = { seq: state.steps.length, phase: "policy" },
): Promise<unknown> {
  site.seq = state.steps.length;
  return atCallSite(site, () =>
    ctx.components.policy.propose({
      task: taskSpec(state.task),
      history: state.history,
      observation: state.observation!,
      step: state.history.length,
      tick: state.tick,
      ...(state.notice ? { notice: state.notice } : {}),
      blobs: ctx.components.blobs,
      signal,
    }),
  );
}

/** The state update for a policy's raw answer: only the fields that change are written. */
export function proposalUpdate(
  state: Pick<GraphState, "accounting" | "prompts" | "notice">,
  raw: unknown,
): GraphUpdate {
  const decision = sanitizeDecision(raw);
  const update: GraphUpdate = { decision };
  if (state.notice !== null) update.notice = null;
  if (decision.usage?.length) {
    update.accounting = addUsage(state.accounting, decision.usage, "policy");
    const prompts = withPrompts(state.prompts, ...decision.usage.map((u) => u.prompt));
    if (prompts.length !== state.prompts.length) update.prompts = prompts;
  }
  return update;
}

export { sanitizeDecision };
