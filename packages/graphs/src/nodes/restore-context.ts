/**
 * `restoreContext`: after restoration, cut the forward history back to the recovery boundary R
 * (entries 0..R-1) and set the transition string as the notice for the next forward decision
 * (paper App. B.2, "Post-recovery context"): phase 5 of the one recovery attempt
 * (packages/core/src/runtime/attempt.ts). A restoration that was not confirmed follows option
 * `unconfirmedRestoration` (`postRestoration`, packages/core/src/prompts/index.ts): the paper's cut and "recovered" note, or
 * the truth with the history kept or cut. Implicit recovery keeps the history and adds nothing
 * (the paper's pi_R = pi); guided recovery keeps the history and tells the policy which step was
 * judged wrong instead.
 */
import { truncateHistory } from "@retrace-cua/core/runtime/history";
import { postRestoration } from "@retrace-cua/core/prompts/index";
import type { RuntimeContext } from "../context.ts";
import { currentStateHash } from "../env-step.ts";
import { withPrompts, type GraphState, type GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { guidedNotice } from "../transition-notice.ts";
import { cutContext } from "@retrace-cua/core/runtime/attempt";

export async function restoreContext(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const pending = state.pending!;
  const recoveryStep = pending.recoveryStep ?? pending.errorStep;
  // Implicit recovery (paper Sec. 5.1): pi_R = pi, no recovery-specific instruction at all.
  if (ctx.options.restoration === "implicit") return { pending: null };
  if (ctx.options.restoration === "guided") {
    return { pending: null, notice: guidedNotice(pending.errorStep, pending.detection.reason) };
  }
  const from = state.history.length;
  const confirmation = pending.confirmation ?? (pending.restored ? "claimed" : "refused");
  const post = cutContext(
    { events: ctx.events, taskId: state.task.id },
    {
      attempt: pending.attempt,
      recoveryStep,
      errorStep: pending.errorStep,
      from,
      confirmation,
      transition: ctx.options.transition,
      unconfirmed: ctx.options.unconfirmedRestoration,
      postRestoration,
    },
  );
  const ref = post.prompt;
  const event = { afterSeq: state.steps.length - 1, kind: "truncate" as const, detail: post.detail };
  const hash = currentStateHash(ctx);
  // History kept: o_t is now the screen after the recovery attempt.
  if (!post.cut)
    return {
      pending: null,
      notice: post.notice,
      ...(hash && { stateHashes: { at: from, item: hash } }),
      events: { push: [event] },
      prompts: withPrompts(state.prompts, ref),
    };
  return {
    pending: null,
    notice: post.notice,
    history: { cut: truncateHistory(state.history, recoveryStep).length },
    stateHashes: hash ? { cut: recoveryStep, push: [hash] } : { cut: 0 },
    snapshots: { cut: recoveryStep + 1 },
    events: { push: [event] },
    prompts: withPrompts(state.prompts, ref),
  };
}
