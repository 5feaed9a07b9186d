/**
 * `act`: one forward step per graph superstep (and per checkpoint): execute the decision for step
 * t (graphs/nodes/execute.ts), then, unless the episode stopped, judge it and get the proposal
 * for step t+1 (graphs/nodes/judge.ts; sequential or overlapped). Fusing them halves LangGraph's
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
import type { HistoryEntry } from "../../src/policy.ts";
import type { RuntimeContext } from "../context.ts";
import { applyEnvLogOps, applyListOps, type EnvLogOp, type GraphState, type GraphUpdate, type ListOp } from "../state.ts";
import { codecFor, type StoredHistoryEntry, type StoredObservation } from "../stored-observation.ts";
import { execute } from "./execute.ts";
import { judge } from "./judge.ts";

const LISTS = new Set(["history", "stateHashes", "snapshots", "steps", "events"]);

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
    if (k === "history") next.history = applyListOps<HistoryEntry>(state.history, [mapListOp(v as ListOp<StoredHistoryEntry>, (e) => codec.expandEntry(e))]);
    else if (LISTS.has(k)) next[k] = applyListOps((state as unknown as Record<string, unknown[]>)[k], [v as ListOp<unknown>]);
    else if (k === "envLog") next.envLog = applyEnvLogOps(state.envLog, [v as EnvLogOp]);
    else if (k === "observation") next.observation = codec.expand(v as StoredObservation | null);
    else next[k] = v;
  }
  return next as GraphState;
}

/** The same list write with its items mapped (only new items are expanded, not the whole list). */
function mapListOp<T, U>(op: ListOp<T>, f: (x: T) => U): ListOp<U> {
  if (Array.isArray(op)) return op.map((w) => mapListOp(w, f)) as ListOp<U>;
  if ("at" in op) return { at: op.at, item: f(op.item) };
  return { ...(op.cut !== undefined ? { cut: op.cut } : {}), ...(op.push ? { push: op.push.map(f) } : {}) };
}

/** One update with the effect of `a` then `b` (list writes concatenated, env-log writes composed, other fields: b wins). */
function merged(a: GraphUpdate, b: GraphUpdate): GraphUpdate {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    if (v === undefined) continue;
    if (LISTS.has(k) && out[k] !== undefined) out[k] = [out[k], v].flat();
    else if (k === "envLog" && out[k] !== undefined) out[k] = composeEnvLog(out[k] as EnvLogOp, v as EnvLogOp);
    else out[k] = v;
  }
  return out as GraphUpdate;
}

/** One env-log write with the effect of `a` then `b`. */
function composeEnvLog(a: EnvLogOp, b: EnvLogOp): EnvLogOp {
  if ("rebase" in b) return b;
  if ("rebase" in a) return { rebase: { base: a.rebase.base, actions: [...a.rebase.actions, ...b.push] } };
  return { push: [...a.push, ...b.push] };
}
