/**
 * Folding node updates inside one superstep. Where the runtime runs several steps or phases in one
 * LangGraph superstep (batch episodes: packages/graphs/src/nodes/act.ts, packages/graphs/src/recovery-graph.ts), each call
 * must see the state the previous call's writes would have produced, and the superstep must write
 * one update with the effect of all of them. These two functions do that with the channels' own
 * semantics (packages/graphs/src/state.ts): list and env-log writes are applied and composed in order, every
 * other channel keeps its last write.
 */
import type { HistoryEntry } from "@retrace-cua/core/policy";
import type { RuntimeContext } from "./context.ts";
import {
  applyEnvLogOps,
  applyListOps,
  type EnvLogOp,
  type GraphState,
  type GraphUpdate,
  type ListOp,
} from "./state.ts";
import { codecFor, type StoredHistoryEntry, type StoredObservation } from "./stored-observation.ts";

const LISTS = new Set(["history", "stateHashes", "snapshots", "steps", "events"]);

/** The state a node would see after `u` was applied (observations expanded). */
export function applied(state: GraphState, u: GraphUpdate, ctx: RuntimeContext): GraphState {
  const codec = codecFor(ctx);
  const next: Record<string, unknown> = { ...state };
  for (const [k, v] of Object.entries(u)) {
    if (v === undefined) continue;
    if (k === "history")
      next.history = applyListOps<HistoryEntry>(state.history, [
        mapListOp(v as ListOp<StoredHistoryEntry>, (e) => codec.expandEntry(e)),
      ]);
    else if (LISTS.has(k))
      next[k] = applyListOps((state as unknown as Record<string, unknown[]>)[k], [v as ListOp<unknown>]);
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

/**
 * One update with the effect of `a` then `b` (list writes concatenated, env-log writes composed, other fields: b wins).
 */
export function merged(a: GraphUpdate, b: GraphUpdate): GraphUpdate {
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
