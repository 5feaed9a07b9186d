/**
 * The recovery graph's state. Everything here is JSON and checkpointed: screenshots appear only as
 * blob references, environment snapshots only as references into the BlobStore.
 *
 * Flat checkpoints: per-step records (history entries, step records, events, env-log actions,
 * state hashes, snapshot references) live in append-only channels ({@link listChannel}) whose
 * writes carry only the new items (`{ push }`), a truncation marker (`{ cut }`) or one replaced
 * item (`{ at, item }`). They are LangGraph `DeltaChannel`s: a checkpoint stores no copy of them;
 * a resume rebuilds them by replaying the writes saved since the thread began. Larger values that
 * change every step (the observation with its accessibility tree, the accounting, the pending
 * decision) are last-value delta channels ({@link lastDelta}): stored once per write, never once
 * per checkpoint. Only a few scalars are plain last-value channels. So a checkpoint's size stays
 * flat in the episode's length.
 */
import type { RestorationConfirmation } from "@retrace-cua/core/runtime/confirm";
import { Annotation, DeltaChannel, StateGraph } from "@langchain/langgraph";
import type { Action } from "@retrace-cua/core/action";
import type { BlobRef } from "@retrace-cua/core/blob-store";
import type { Detection } from "@retrace-cua/core/detector";
import type { EpisodeAccounting, EpisodeResult, StopReason } from "@retrace-cua/core/episode";
import type { Observation } from "@retrace-cua/core/observation";
import type { PolicyDecision } from "@retrace-cua/core/policy";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import type { Task, Evaluation } from "@retrace-cua/core/task";
import type { StepRecord, TrajectoryEvent } from "@retrace-cua/core/trajectory";
import { emptyAccounting } from "@retrace-cua/core/runtime/accounting";
import type { StoredHistoryEntry, StoredObservation } from "./stored-observation.ts";

/** How to bring a fresh environment to the current state: a base plus the actions executed since. */
export interface EnvLog {
  /** "reset" = env.reset(task); otherwise restore the snapshot stored under this blob reference. */
  base: "reset" | { snapshot: BlobRef };
  actions: Action[];
}

/** A write to an env-log channel: append executed actions, or start over from a new base. */
export type EnvLogOp = { push: Action[] } | { rebase: EnvLog };

/** The recovery in progress (between detect and restore-context). */
export interface PendingRecovery {
  attempt: number;
  errorStep: number;
  /** Set by select. */
  recoveryStep?: number;
  /** The selector's reason (and failure, when it fell back to E-1). */
  selection?: { strategy: string; reason: string; failure?: string };
  detection: Detection;
  /** Set by recover. */
  restored?: boolean;
  /** How the restoration was confirmed (packages/core/src/runtime/confirm.ts); absent in checkpoints written before it existed. */
  confirmation?: RestorationConfirmation;
}

/**
 * A write to an append-only list channel: cut the list to its first `cut` items (truncation after
 * restoration is this marker, not a copy), then append `push`; or replace the item at index `at`.
 * Applied in order; folding writes in any batching gives the same list.
 */
export type ListOp<T> =
  | { cut?: number; push?: T[] }
  | { at: number; item: T }
  | Array<{ cut?: number; push?: T[] } | { at: number; item: T }>;

/** Never snapshot on update count; LangGraph still snapshots every 5,000 supersteps. */
const NO_SNAPSHOT = 1_000_000_000;

/** Apply list writes in order (batching-invariant, as DeltaChannel requires). */
export function applyListOps<T>(state: readonly T[], writes: ReadonlyArray<ListOp<T>>): T[] {
  const out = state.slice();
  for (const w of writes.flatMap((x) => (Array.isArray(x) ? x : [x]))) {
    if (!w) continue;
    if ("at" in w) {
      if (w.at >= 0 && w.at < out.length) out[w.at] = w.item;
      continue;
    }
    if (w.cut !== undefined) out.length = Math.min(out.length, Math.max(0, w.cut));
    if (w.push) for (const x of w.push) out.push(x);
  }
  return out;
}

/** An append-only list channel: checkpoints hold no copy; writes hold only the change. */
export function listChannel<T>() {
  return () =>
    new DeltaChannel<T[], ListOp<T>>(applyListOps, { snapshotFrequency: NO_SNAPSHOT, initialValueFactory: () => [] });
}

/** A last-value channel stored once per write instead of once per checkpoint. */
export function lastDelta<T>(init: () => T) {
  return () =>
    new DeltaChannel<T, T>((_s: T, writes: T[]) => writes[writes.length - 1], {
      snapshotFrequency: NO_SNAPSHOT,
      initialValueFactory: init,
    });
}

/** Apply env-log writes in order. */
export function applyEnvLogOps(state: EnvLog, writes: EnvLogOp[]): EnvLog {
  let base = state.base;
  const actions = state.actions.slice();
  for (const w of writes) {
    if (!w) continue;
    if ("rebase" in w) {
      base = w.rebase.base;
      actions.length = 0;
      actions.push(...w.rebase.actions);
    } else actions.push(...w.push);
  }
  return { base, actions };
}

const last = <T>(init: () => T) => Annotation<T>({ reducer: (_a: T, b: T) => b, default: init });

export const RecoveryGraphState = Annotation.Root({
  /** The task being run (input). */
  task: lastDelta<Task>(() => ({ id: "", instruction: "", env: "", setup: null, evaluator: null })),
  /** The current observation o_t. */
  observation: lastDelta<StoredObservation | null>(() => null),
  /** Forward history entries 0..t-1 (truncated on restoration). */
  history: listChannel<StoredHistoryEntry>(),
  /** Ground-truth state hash per forward observation o_0..o_t (only with `capabilities.groundTruth`). */
  stateHashes: listChannel<string>(),
  /** Snapshot references per forward observation o_0..o_t (only for `restoration: "snapshot"`). */
  snapshots: listChannel<string>(),
  /** Executed steps of every role so far; the runtime's monotone clock. */
  tick: last<number>(() => 0),
  /** The forward policy's decision awaiting execution. */
  decision: lastDelta<PolicyDecision | null>(() => null),
  /** One-off notice for the next forward proposal (the transition string). */
  notice: last<string | null>(() => null),
  /** Forward steps still frozen (detector not consulted). */
  freezeRemaining: last<number>(() => 0),
  /** Recovery attempt whose aftermath the forward steps belong to (0 = none yet). */
  attempt: last<number>(() => 0),
  pending: lastDelta<PendingRecovery | null>(() => null),
  envLog: () =>
    new DeltaChannel<EnvLog, EnvLogOp>(applyEnvLogOps, {
      snapshotFrequency: NO_SNAPSHOT,
      initialValueFactory: () => ({ base: "reset", actions: [] }),
    }),
  steps: listChannel<StepRecord>(),
  events: listChannel<TrajectoryEvent>(),
  accounting: lastDelta<EpisodeAccounting>(emptyAccounting),
  prompts: lastDelta<string[]>(() => []),
  stopReason: last<StopReason | null>(() => null),
  envError: last<string | null>(() => null),
  evaluation: lastDelta<Evaluation | null>(() => null),
  result: lastDelta<EpisodeResult | null>(() => null),
  /** The graph phase (node) that ran last in a superstep that chains several (they route by it); null otherwise. */
  phase: last<string | null>(() => null),
});

/** The state as checkpointed: observations keep their accessibility trees only by reference. */
export type StoredGraphState = typeof RecoveryGraphState.State;
/** The state a node sees: observations expanded (see packages/graphs/src/stored-observation.ts). */
export type GraphState = Omit<StoredGraphState, "observation" | "history"> & {
  observation: Observation | null;
  history: HistoryEntry[];
};
/** What a node returns: writes to the checkpointed channels. */
export type GraphUpdate = typeof RecoveryGraphState.Update;

/** Add prompt refs, keeping order and uniqueness. */
export function withPrompts(current: readonly string[], ...refs: Array<string | undefined | null>): string[] {
  const out = [...current];
  for (const r of refs) if (r && !out.includes(r)) out.push(r);
  return out;
}

/** The env-log write that turns `from` into `to` (an append when `to` extends `from`). */
export function envLogOp(from: EnvLog, to: EnvLog): EnvLogOp | undefined {
  if (to === from) return undefined;
  const sameBase =
    to.base === from.base ||
    (typeof to.base === "object" && typeof from.base === "object" && to.base.snapshot === from.base.snapshot);
  if (sameBase && to.actions.length >= from.actions.length && from.actions.every((a, i) => to.actions[i] === a)) {
    return to.actions.length > from.actions.length ? { push: to.actions.slice(from.actions.length) } : undefined;
  }
  return { rebase: to };
}

let initial: StoredGraphState | undefined;

/**
 * A fresh episode's state: every channel's own initial value (read from the channels themselves,
 * so it cannot drift from the declarations above), observations and history empty. The batch graph
 * (packages/graphs/src/recovery-graph.ts) starts from it.
 */
export function initialGraphState(task: Task): GraphState {
  if (!initial) {
    const channels = (
      new StateGraph(RecoveryGraphState) as unknown as {
        channels: Record<string, { fromCheckpoint(c: undefined): { get(): unknown } }>;
      }
    ).channels;
    initial = Object.fromEntries(
      Object.keys(RecoveryGraphState.spec).map((k) => [k, channels[k].fromCheckpoint(undefined).get()]),
    ) as StoredGraphState;
  }
  return { ...structuredClone(initial), task } as GraphState;
}
