/**
 * `act`: one forward step per graph superstep (and per checkpoint): execute the decision for step
 * t (packages/graphs/src/nodes/execute.ts), then, unless the episode stopped, judge it and get the proposal
 * for step t+1 (packages/graphs/src/nodes/judge.ts; sequential or overlapped). Fusing them halves LangGraph's
 * per-step bookkeeping and checkpoint writes; the node is atomic, so a resume re-runs the whole
 * step from the last checkpoint (the environment is brought back by replaying its action log).
 *
 * Without a checkpointer nothing needs a superstep boundary between forward steps, so `act` may
 * run up to `ctx.stepsPerSuperstep` of them in one superstep (the runner's batch episodes): the
 * same execute/judge calls in the same order on the same state, their writes folded into one
 * update, stopping early at a detection (-> select) or a stop (-> evaluate). LangGraph's per-superstep
 * work (task preparation, channel writes, branch routing, a disabled run tree per runnable) is
 * then paid once per run of steps instead of once per step.
 */
import type { RuntimeContext } from "../context.ts";
import { applied, merged } from "../fold.ts";
import type { GraphState, GraphUpdate } from "../state.ts";
import { execute } from "./execute.ts";
import { judge } from "./judge.ts";
import { detect } from "./detect.ts";

export async function act(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  let total = await actOnce(state, ctx);
  let current = state;
  let u = total;
  for (let i = 1; i < ctx.stepsPerSuperstep; i++) {
    current = applied(current, u, ctx);
    if (current.pending || current.stopReason !== null) break;
    u = await actOnce(current, ctx);
    total = merged(total, u);
  }
  return total;
}

async function actOnce(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  const first = await execute(state, ctx);
  if (first.stopReason === "done" && ctx.options.detectDone) {
    // The DONE step is judged like any other (paper App. B.2: once per forward step); a detection
    // makes the DONE provisional: the episode goes on to recovery instead of ending.
    const d = await detect(applied(state, first, ctx), ctx);
    return merged(first, d.pending ? { ...d, stopReason: null } : d);
  }
  if (first.stopReason) return first;
  const second = await judge(applied(state, first, ctx), ctx);
  return merged(first, second);
}
