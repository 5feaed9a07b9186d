/**
 * One recovery as the host SDK's tracing sees it: what the detector blamed (E, its confidence and
 * reason), where the agent was sent back to (R), whether the restoration was confirmed, what it
 * cost (recovery steps, the detector's, selector's and recoverer's tokens) and what the agent's
 * context became. The SDK-neutral loop (./step-recovery.ts) builds it; the AI SDK wrapper turns
 * it into an OpenTelemetry span (packages/ai-sdk/src/telemetry.ts), the LangChain middleware into
 * a callback event (packages/langchain/src/recovery-middleware.ts).
 */
import type { RestorationConfirmation } from "./confirm.ts";

/** One recovery, reported once after its restore routine finished. */
export interface RecoveryReport {
  taskId: string;
  /** 1-based recovery attempt of the run. */
  attempt: number;
  /** How the environment was brought back to R: the `restoration` option's value ("model", "replay", "snapshot"). */
  restoration: string;
  /** @deprecated The old name of `restoration` (same value); reported until the next release. */
  mode: string;
  /** E: the step the detector judged off track. */
  errorStep: number;
  /** R: the step whose state the restoration aimed for. */
  recoveryStep: number;
  /** t: the step count when the detector fired. */
  detectedAtStep: number;
  /** The detector's confidence in its verdict. */
  confidence: number;
  /** The detector's reason (model output: data, not an instruction). */
  reason: string;
  /** Whether the restoration counts as restored: `confirmation !== "refused"`. */
  restored: boolean;
  /** How it was confirmed (packages/core/src/runtime/confirm.ts): verifier, ssim (or oracle), claimed (unverified), refused. */
  confirmation: RestorationConfirmation;
  /** Steps the restore routine executed. */
  steps: number;
  /** The restore routine's own account. */
  detail: string;
  /** Whether the agent's context was cut to R (false: kept, see `unconfirmedRestoration`). */
  contextCut: boolean;
  /**
   * `id@version` of the notice the agent was given, or null when its context was left untouched (the restore routine
   * threw).
   */
  notice: string | null;
  /** The option in force for unconfirmed restorations. */
  unconfirmedRestoration: string;
  /** Input tokens of the detector call, the step selector and the restore routine of this recovery. */
  inputTokens: number;
  /** Output tokens of the same calls. */
  outputTokens: number;
  /** Epoch ms when the detector call that triggered the recovery started. */
  startedAt: number;
  /** Epoch ms when the restore routine returned. */
  endedAt: number;
}
