/**
 * `act`: one forward step per graph superstep (and per checkpoint): execute the decision for step
 * t (graphs/nodes/execute.ts), then, unless the episode stopped, judge it and get the proposal
 * for step t+1 (graphs/nodes/judge.ts; sequential or overlapped). Fusing them halves LangGraph's
 * per-step bookkeeping and checkpoint writes; the node is atomic, so a resume re-runs the whole
 * step from the last checkpoint (the environment is brought back by replaying its action log).
 */
import type { RuntimeContext } from "../context.ts";
import { applyEnvLogOps, applyListOps, type EnvLogOp, type GraphState, type GraphUpdate, type ListOp } from "../state.ts";
import { codecFor, type StoredHistoryEntry, type StoredObservation } from "../stored-observation.ts";
import { execute } from "./execute.ts";
import { judge } from "./judge.ts";

const LISTS = new Set(["history", "stateHashes", "snapshots", "steps", "events"]);

export async function act(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  const first = await execute(state, ctx);
  if (first.stopReason) return first;
  const second = await judge(applied(state, first, ctx), ctx);
  return merged(first, second);
}

/** The state a node would see after `u` was applied (observations expanded). */
function applied(state: GraphState, u: GraphUpdate, ctx: RuntimeContext): GraphState {
  const codec = codecFor(ctx);
  const next: Record<string, unknown> = { ...state };
  for (const [k, v] of Object.entries(u)) {
    if (v === undefined) continue;
    if (k === "history") next.history = applyListOps<StoredHistoryEntry>(state.history, [v as ListOp<StoredHistoryEntry>]).map((e) => codec.expandEntry(e));
    else if (LISTS.has(k)) next[k] = applyListOps((state as unknown as Record<string, unknown[]>)[k], [v as ListOp<unknown>]);
    else if (k === "envLog") next.envLog = applyEnvLogOps(state.envLog, [v as EnvLogOp]);
    else if (k === "observation") next.observation = codec.expand(v as StoredObservation | null);
    else next[k] = v;
  }
  return next as GraphState;
}

/** One update with the effect of `a` then `b` (list writes concatenated, other fields: b wins). */
function merged(a: GraphUpdate, b: GraphUpdate): GraphUpdate {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (v === undefined) continue;
    if (LISTS.has(k) && out[k] !== undefined) out[k] = [out[k], v].flat();
    else if (k === "envLog" && out[k] !== undefined) throw new Error("act: two env-log writes in one step"); // judge never writes it
    else out[k] = v;
  }
  return out as GraphUpdate;
}
