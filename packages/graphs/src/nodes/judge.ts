/**
 * `judge`: after forward step t-1 executed, ask the detector about it and the forward policy for
 * step t. Sequential detection waits for the verdict before asking the policy; overlapped
 * detection asks both at once and throws the speculative proposal away when the detector fires
 * (counted in `accounting.discardedProposals`; nothing it proposed reaches the environment,
 * because the graph only executes a decision after this node, i.e. after the verdict). The freeze
 * window and max recovery iterations are applied exactly as in sequential mode, and the policy sees the same
 * input in both modes, so seeded runs give the same results.
 */
import type { Detection } from "@retrace-cua/core/detector";
import type { PolicyDecision } from "@retrace-cua/core/policy";
import { addUsage, bump } from "@retrace-cua/core/runtime/accounting";
import { stopRequested, type RuntimeContext } from "../context.ts";
import { withPrompts, type GraphState, type GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { detect, detectGate } from "./detect.ts";
import { askPolicy, propose, proposalUpdate } from "./propose.ts";
import type { CallSite } from "@retrace-cua/core/runtime/call-site";

/** The detection mode in effect: "auto" overlaps model-latency detectors. */
export function detectionMode(ctx: RuntimeContext): "sequential" | "overlapped" {
  const mode = ctx.options.detection ?? "auto";
  if (mode !== "auto") return mode;
  return ctx.components.detector?.latency === "model" ? "overlapped" : "sequential";
}

export async function judge(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const overlap = detectionMode(ctx) === "overlapped" && detectGate(state, ctx) === "consult" && !stopRequested(ctx);
  // The proposal's call site: marked discarded when its answer is thrown away (the call log then shows it on no new
  // step).
  const site: CallSite = { seq: state.steps.length, phase: "policy" };
  if (!overlap) {
    const d = await detect(state, ctx);
    if (d.pending) return d;
    return beforeDone(state, d, await propose(after(state, d), ctx, site), ctx, site);
  }
  const speculation = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, speculation.signal]) : speculation.signal;
  const proposal = askPolicy(state, ctx, signal, site);
  let d: GraphUpdate;
  try {
    d = await detect(state, ctx);
  } catch (err) {
    speculation.abort();
    proposal.catch(() => {});
    throw err;
  }
  if (d.pending) {
    // Let the speculative call finish (it ran alongside the detector, so this rarely waits):
    // aborting it would make whether a model server saw the request depend on timing.
    await proposal.catch(() => undefined);
    // Its calls are logged on the step the detector judged (no step came of the proposal).
    site.discarded = true;
    site.seq = state.steps[state.steps.length - 1]?.seq ?? Math.max(0, state.steps.length - 1);
    return { ...d, accounting: bump(after(state, d).accounting, { discardedProposals: 1 }) };
  }
  const raw = await proposal;
  return beforeDone(state, d, proposalUpdate(after(state, d), raw), ctx, site);
}

/**
 * A cascade that let step t pass (no gate opened) is asked again, with `ending: true`, when the
 * proposal for t+1 ends the episode, so a late error is judged before DONE. If it fires now, the
 * proposal is discarded and recovery starts as usual. Same in both detection modes.
 */
async function beforeDone(
  state: GraphState,
  d: GraphUpdate,
  p: GraphUpdate,
  ctx: RuntimeContext,
  site: CallSite,
): Promise<GraphUpdate> {
  const detection = (d.steps as { item?: { detection?: Detection } } | undefined)?.item?.detection;
  const decision = p.decision as PolicyDecision | undefined;
  const ending = decision?.actions.some((a) => a.type === "DONE" || a.type === "FAIL");
  if (!ending || !detection?.cascade || detection.cascade.asked || detection.isError) return { ...d, ...p };
  const mid = after(state, d);
  const again = await detect({ ...mid, steps: state.steps }, ctx, { ending: true });
  const acc = (again.accounting as GraphState["accounting"] | undefined) ?? mid.accounting;
  if (again.pending) {
    site.discarded = true;
    return { ...d, ...again, accounting: bump(acc, { discardedProposals: 1 }) };
  }
  const prompts = withPrompts(
    (again.prompts as string[] | undefined) ?? mid.prompts,
    ...((p.prompts as string[] | undefined) ?? []),
  );
  return { ...d, ...again, ...p, accounting: addUsage(acc, decision!.usage, "policy"), prompts };
}

/** The state as the next proposal sees it, after the detection update. */
function after(state: GraphState, d: GraphUpdate): GraphState {
  return {
    ...state,
    accounting: (d.accounting as GraphState["accounting"] | undefined) ?? state.accounting,
    prompts: (d.prompts as string[] | undefined) ?? state.prompts,
    freezeRemaining: (d.freezeRemaining as number | undefined) ?? state.freezeRemaining,
  };
}
