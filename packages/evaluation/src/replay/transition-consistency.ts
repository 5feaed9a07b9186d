/**
 * Transition-consistent filtering (paper Section 5.2, Appendix A.1): replay a trajectory's action
 * sequence N times from a fresh reset and keep it only if every replay succeeds, which amortises
 * a deterministic transition function for it. A replay succeeds when nothing crashed, every
 * recorded checkpoint was reproduced (when checkpoints are given) and the task evaluator passes.
 */
import { terminalOf, type Action } from "@retrace-cua/core/action";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { describeError } from "@retrace-cua/core/errors";
import type { Observation } from "@retrace-cua/core/observation";
import type { Task } from "@retrace-cua/core/task";
import { replayFromReset } from "./replay.ts";
import type { ExpectedState, StateCheck } from "@retrace-cua/core/replay/state-check";

/** Options of {@link checkTransitionConsistency}. */
export interface TransitionConsistencyOptions {
  env: Environment;
  task: Task;
  /** The trajectory's actions, one array per step. */
  steps: readonly (readonly Action[])[];
  blobs: BlobReader;
  /** Replays that must all succeed. @default 3 */
  replays?: number;
  /**
   * States recorded during the original rollout: `expected[i]` is the state after step i+1
   * (undefined entries are not checked). Omit to judge by the task evaluator alone, as the paper does.
   */
  expected?: ReadonlyArray<ExpectedState | undefined>;
  /** How checkpoints are compared. @default createStateCheck() */
  check?: StateCheck;
  /** Evaluator score at or above which a replay counts as successful. @default 1 */
  successScore?: number;
  /** Wait after each replayed step before observing (packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
  signal?: AbortSignal;
}

/** One replay's outcome. */
export interface ReplayOutcome {
  success: boolean;
  /** Task evaluator score after the replay (absent when it did not get that far). */
  score?: number;
  /** Steps executed before the first unreproduced checkpoint. */
  mismatchAfter?: number;
  envError?: string;
  reason: string;
  /** Observations o_0..o_n of the replay (references only), when it ran to the end. */
  observations?: Observation[];
}

/** The verdict on one trajectory. */
export interface TransitionConsistencyResult {
  consistent: boolean;
  replays: ReplayOutcome[];
}

/** Replay `steps` N times; consistent only when every replay succeeds (stops at the first failure). */
export async function checkTransitionConsistency(
  options: TransitionConsistencyOptions,
): Promise<TransitionConsistencyResult> {
  const n = Math.max(1, options.replays ?? 3);
  const successScore = options.successScore ?? 1;
  const replays: ReplayOutcome[] = [];
  const steps = options.steps.map((actions, i) => ({ actions, expect: options.expected?.[i] }));
  for (let k = 0; k < n; k++) {
    const r = await replayFromReset({
      env: options.env,
      task: options.task,
      steps,
      blobs: options.blobs,
      check: options.check,
      attempts: 1,
      settleMs: options.settleMs,
      signal: options.signal,
    });
    let outcome: ReplayOutcome;
    if (r.envError) outcome = { success: false, envError: r.envError, reason: `environment failed: ${r.envError}` };
    else if (!r.ok)
      outcome = {
        success: false,
        mismatchAfter: r.failedAt?.afterSteps,
        reason: `state after step ${r.failedAt?.afterSteps} not reproduced: ${r.failedAt?.reason}`,
      };
    else {
      try {
        const ev = await options.env.evaluate({ terminal: terminalOf(options.steps) });
        outcome =
          ev.score >= successScore
            ? { success: true, score: ev.score, reason: "task evaluator passed" }
            : {
                success: false,
                score: ev.score,
                reason: `task evaluator failed (${ev.score}${ev.detail ? `: ${ev.detail}` : ""})`,
              };
      } catch (err) {
        outcome = { success: false, envError: describeError(err), reason: `evaluator failed: ${describeError(err)}` };
      }
    }
    if (r.ok) outcome.observations = r.observations;
    replays.push(outcome);
    if (!outcome.success) return { consistent: false, replays };
  }
  return { consistent: true, replays };
}

/** Retention of a filter: kept / total (0 when total is 0). */
export function retention(kept: number, total: number): { kept: number; total: number; rate: number } {
  return { kept, total, rate: total === 0 ? 0 : kept / total };
}
