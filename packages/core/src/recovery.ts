/**
 * Explicit recovery: a sub-agent that acts in the environment to restore a past target state,
 * within its own step budget, given the target observation and a recovery context.
 */
import type { BlobReader } from "./blob-store.ts";
import type { Environment } from "./environment.ts";
import type { Observation } from "./observation.ts";
import type { HistoryEntry, PolicyDecision } from "./policy.ts";
import type { TaskSpec } from "./task.ts";
import type { ModelUsage } from "./usage.ts";

/** Recovery contexts of the paper: history to the error, to the target, none, or an LLM summary. */
export const RECOVERY_CONTEXTS = ["0-E", "0-R", "none", "contextualized"] as const;
export type RecoveryContextKind = (typeof RECOVERY_CONTEXTS)[number];

/**
 * How the environment is brought back to step R: the recovery sub-agent (`model`), action replay,
 * an environment snapshot; `implicit` = nothing is restored and the forward policy simply continues
 * with no recovery instruction (the paper's implicit recovery, pi_R = pi); `guided` = nothing is
 * restored, but the forward policy is told which step went wrong (retrace's own variant);
 * `none` = detections are only recorded.
 */
export const RESTORATION_MODES = ["model", "replay", "snapshot", "implicit", "guided", "none"] as const;
export type RestorationMode = (typeof RESTORATION_MODES)[number];

export interface RecoveryContext {
  kind: RecoveryContextKind;
  /**
   * "0-E": every forward entry 0..t-1 held when the detector fired at step t (the history up to the
   * erroneous state: the wrong step E and every step after it); "0-R": entries 0..R-1; empty for
   * "none" and "contextualized".
   */
  history: readonly HistoryEntry[];
  /** The summarizer's description of the target state and the transitions to it ("contextualized"). */
  summary?: string;
}

export interface RecoveryInput {
  task: TaskSpec;
  /** The target: step R and its observation o_R (always given). */
  target: { step: number; observation: Observation };
  /** The step E the detector blamed. */
  errorStep: number;
  context: RecoveryContext;
  /** Steps taken so far in this recovery attempt. */
  recoveryHistory: readonly HistoryEntry[];
  /** The current observation. */
  observation: Observation;
  budget: { used: number; max: number };
  /** Episode tick, as in PolicyInput.tick. */
  tick: number;
  blobs: BlobReader;
  signal?: AbortSignal;
}

/** A recovery step; `restored: true` declares the target reached and ends the attempt early. */
export interface RecoveryDecision extends PolicyDecision {
  restored?: boolean;
}

export interface RecoveryPolicy {
  readonly name: string;
  readonly simulated?: boolean;
  propose(input: RecoveryInput): Promise<RecoveryDecision>;
}

/** Produces the "contextualized" recovery context: a summary of the transitions up to the target. */
export interface Summarizer {
  readonly name: string;
  summarize(input: {
    task: TaskSpec;
    history: readonly HistoryEntry[];
    target: { step: number; observation: Observation };
    blobs: BlobReader;
    signal?: AbortSignal;
  }): Promise<{ summary: string; usage?: ModelUsage[]; prompt?: string }>;
}

/** Verdict of a state verifier; `abstain` when the evidence is insufficient. */
export type VerifierVerdict = "match" | "mismatch" | "abstain";

/** What a verifier is asked to compare. */
export interface VerifyInput {
  target: Observation;
  current: Observation;
  blobs: BlobReader;
  /**
   * The live environment, for verifiers that probe or explore it (probe verifier, agentic LLM
   * verifier). They must leave it as they found it. Verifiers that only compare observations
   * ignore it.
   */
  env?: Environment;
  signal?: AbortSignal;
}

/**
 * Compares a current observation against a target one (LLM-backed, SSIM-backed, probe-backed).
 * `evidence` lists attested facts the verdict rests on (VeriCUA): what matched or differed.
 */
export interface StateVerifier {
  readonly name: string;
  verify(
    input: VerifyInput,
  ): Promise<{ verdict: VerifierVerdict; reason: string; evidence?: string[]; usage?: ModelUsage[] }>;
}
