/** Recovery-step selection: given an error at step E, which past step R to return to. */
import type { BlobReader } from "./blob-store.ts";
import type { Detection } from "./detector.ts";
import type { HistoryEntry } from "./policy.ts";
import type { TaskSpec } from "./task.ts";
import type { ModelUsage } from "./usage.ts";

/** The recovery-step strategies of the paper (R = 0, E-1, E-random, LLM). */
export const RECOVERY_STEP_STRATEGIES = ["zero", "error-minus-1", "error-random", "llm"] as const;
export type RecoveryStepStrategy = (typeof RECOVERY_STEP_STRATEGIES)[number];

export interface SelectorInput {
  task: TaskSpec;
  /** Forward history entries 0..t-1. */
  history: readonly HistoryEntry[];
  /** The error step E reported by the detector. */
  errorStep: number;
  detection: Detection;
  /** Stable key of the task instance (e.g. `taskId/seed`), so `error-random` reuses its draw. */
  instanceKey: string;
  seed: number;
  blobs: BlobReader;
  signal?: AbortSignal;
}

export interface Selection {
  /** The recovery step R, 0 <= R <= E. */
  step: number;
  reason: string;
  failure?: string;
  usage?: ModelUsage[];
  prompt?: string;
}

export interface RecoveryStepSelector {
  readonly name: string;
  readonly simulated?: boolean;
  select(input: SelectorInput): Promise<Selection>;
}
