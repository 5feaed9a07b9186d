/**
 * The recovery graph's state. Everything here is JSON and checkpointed: screenshots appear only as
 * blob references, environment snapshots only as references into the BlobStore. Plain
 * last-value channels: each node returns the fields it changes.
 */
import { Annotation } from "@langchain/langgraph";
import type { Action } from "../src/action.ts";
import type { BlobRef } from "../src/blob-store.ts";
import type { Detection } from "../src/detector.ts";
import type { EpisodeAccounting, EpisodeResult, StopReason } from "../src/episode.ts";
import type { Observation } from "../src/observation.ts";
import type { PolicyDecision } from "../src/policy.ts";
import type { HistoryEntry } from "../src/policy.ts";
import type { Task, Evaluation } from "../src/task.ts";
import type { StepRecord, TrajectoryEvent } from "../src/trajectory.ts";
import { emptyAccounting } from "../src/runtime/accounting.ts";

/** How to bring a fresh environment to the current state: a base plus the actions executed since. */
export interface EnvLog {
  /** "reset" = env.reset(task); otherwise restore the snapshot stored under this blob reference. */
  base: "reset" | { snapshot: BlobRef };
  actions: Action[];
}

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
}

const last = <T>(init: () => T) => Annotation<T>({ reducer: (_a: T, b: T) => b, default: init });

export const RecoveryGraphState = Annotation.Root({
  /** The task being run (input). */
  task: last<Task>(() => ({ id: "", instruction: "", env: "", setup: null, evaluator: null })),
  /** The current observation o_t. */
  observation: last<Observation | null>(() => null),
  /** Forward history entries 0..t-1 (truncated on restoration). */
  history: last<HistoryEntry[]>(() => []),
  /** Ground-truth state hash per forward observation o_0..o_t (only with `capabilities.groundTruth`). */
  stateHashes: last<string[]>(() => []),
  /** Snapshot references per forward observation o_0..o_t (only for `restoration: "snapshot"`). */
  snapshots: last<string[]>(() => []),
  /** Executed steps of every role so far; the runtime's monotone clock. */
  tick: last<number>(() => 0),
  /** The forward policy's decision awaiting execution. */
  decision: last<PolicyDecision | null>(() => null),
  /** One-off notice for the next forward proposal (the transition string). */
  notice: last<string | null>(() => null),
  /** Forward steps still frozen (detector not consulted). */
  freezeRemaining: last<number>(() => 0),
  /** Recovery attempt whose aftermath the forward steps belong to (0 = none yet). */
  attempt: last<number>(() => 0),
  pending: last<PendingRecovery | null>(() => null),
  envLog: last<EnvLog>(() => ({ base: "reset", actions: [] })),
  steps: last<StepRecord[]>(() => []),
  events: last<TrajectoryEvent[]>(() => []),
  accounting: last<EpisodeAccounting>(emptyAccounting),
  prompts: last<string[]>(() => []),
  stopReason: last<StopReason | null>(() => null),
  envError: last<string | null>(() => null),
  evaluation: last<Evaluation | null>(() => null),
  result: last<EpisodeResult | null>(() => null),
});

export type GraphState = typeof RecoveryGraphState.State;
export type GraphUpdate = typeof RecoveryGraphState.Update;

/** Add prompt refs, keeping order and uniqueness. */
export function withPrompts(current: readonly string[], ...refs: Array<string | undefined | null>): string[] {
  const out = [...current];
  for (const r of refs) if (r && !out.includes(r)) out.push(r);
  return out;
}
