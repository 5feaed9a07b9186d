/**
 * The result of an SDK run with recovery: the graph's EpisodeResult (task, success, evaluation,
 * stop reason, trajectory with recovery events, accounting, prompts) plus the SDK's own output.
 */
import type { EpisodeResult, RoleUsage, StopReason } from "@retrace-cua/core/episode";
import type { Evaluation } from "@retrace-cua/core/task";
import { describeError } from "@retrace-cua/core/errors";
import type { ResolvedSdkRecoveryOptions } from "./options.ts";
import type { StepRecovery } from "@retrace-cua/core/runtime/step-recovery";
import { tokenSplits, type TokensByRole } from "@retrace-cua/core/runtime/accounting";

/** An EpisodeResult plus what the SDK returned. */
export interface SdkEpisodeResult<T> extends EpisodeResult {
  /** The SDK's own result object (`RunResult`, `GenerateTextResult`). */
  sdkResult: T;
  /** The agent's final text output, when it gave one. */
  finalOutput?: string;
  /**
   * Tokens per role, split the way providers bill them: uncached, cached (prompt-cache reads),
   * cache-write and billed-equivalent tokens (packages/core/src/usage.ts tokenSplit). Retrace's own model calls
   * (detector, selector, summarizer, recoverer, ...) as `accounting.models` counts them, and
   * `policy`: the SDK's own model calls of the runs finished so far, as the SDK's results report
   * them (Agents SDK: `rawResponses[].usage`; AI SDK: `totalUsage`), when they do. Where a server
   * reports no prompt cache, cached is 0 and billed = input + output (`promptCache: false` when none did).
   */
  tokens: TokensByRole;
}

/** Evaluate (when asked) and assemble the result. Wall time is measured by the caller. */
export async function buildSdkResult<T>(
  o: ResolvedSdkRecoveryOptions,
  recovery: StepRecovery,
  sdk: {
    result: T;
    finalOutput?: string;
    stopReason: StopReason;
    wallMs: number;
    envMs: number;
    /** The SDK's own policy calls so far (see SdkEpisodeResult.tokens). */ policy?: RoleUsage;
  },
): Promise<SdkEpisodeResult<T>> {
  let evaluation: Evaluation = { score: 0, detail: "not evaluated (evaluate: false)" };
  let envError: string | undefined;
  if (o.evaluate) {
    try {
      evaluation = await o.env.evaluate({
        terminal: sdk.stopReason === "done" ? "DONE" : sdk.stopReason === "fail" ? "FAIL" : null,
      });
    } catch (err) {
      envError = describeError(err);
      evaluation = { score: 0, detail: `the environment failed to evaluate: ${envError}` };
    }
  }
  const s = recovery.state;
  const simulated = Boolean(
    (o.detector as { simulated?: boolean }).simulated ||
    (o.recoverer as { simulated?: boolean } | undefined)?.simulated,
  );
  return {
    taskId: recovery.task.id,
    seed: o.seed,
    success: evaluation.score >= 1,
    evaluation,
    stopReason: envError ? "env-error" : sdk.stopReason,
    ...(envError && { envError }),
    simulated,
    trajectory: { taskId: recovery.task.id, steps: s.steps, events: s.events, result: evaluation },
    accounting: { ...s.accounting, wallMs: sdk.wallMs, envMs: sdk.envMs },
    tokens: tokenSplits({ models: { ...s.accounting.models, ...(sdk.policy && { policy: sdk.policy }) } }),
    prompts: [...s.prompts],
    sdkResult: sdk.result,
    ...(sdk.finalOutput !== undefined && { finalOutput: sdk.finalOutput }),
  };
}
