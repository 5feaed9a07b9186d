/**
 * The episode contract between the recovery runtime (packages/graphs/src/) and everything that runs
 * episodes (experiments/, users): the options, the components, and the result.
 * The runtime implements `runEpisode`; this file only fixes the shapes.
 */
import { z } from "zod";
import type { BlobStore } from "./blob-store.ts";
import type { ErrorDetector } from "./detector.ts";
import type { Environment } from "./environment.ts";
import type { ForwardPolicy } from "./policy.ts";
import type { RecoveryPolicy, StateVerifier, Summarizer } from "./recovery.ts";
import { RECOVERY_CONTEXTS, RESTORATION_MODES } from "./recovery.ts";
import { RECOVERY_STEP_STRATEGIES, type RecoveryStepSelector } from "./selector.ts";
import type { Evaluation } from "./task.ts";
import type { Trajectory } from "./trajectory.ts";
import type { ModelRole } from "./usage.ts";

/** Transition strings after a restoration: the paper's short one, or retrace's detailed variant. */
export const TRANSITION_STRINGS = ["short", "detailed"] as const;
export type TransitionString = (typeof TRANSITION_STRINGS)[number];
/**
 * What the agent is told, and whether its context is cut, when a restoration was not confirmed
 * (the recovery sub-agent ran out of budget or gave up, the verifier rejected or abstained, a
 * replay desynced: `restored: false`):
 * - "claim-recovered": the paper's protocol (App. B.2): cut the history to R and show the
 *   transition string ("the environment has been recovered"), as after a confirmed restoration.
 *   The agent then plans from a context that claims a state the screen may not show (Finding 6).
 * - "disclose-and-keep": keep the history (the actions after R may still be in effect) and tell
 *   the agent that step E was judged off track and that returning to step R could not be
 *   confirmed, so it looks at the screen before acting (`post-restoration.unconfirmed-kept`).
 * - "disclose-and-cut": cut the history to R, as the paper does, but say that the restoration
 *   could not be confirmed (`post-restoration.unconfirmed-cut`).
 * A confirmed restoration always cuts and shows the transition string.
 */
export const UNCONFIRMED_RESTORATION = ["claim-recovered", "disclose-and-keep", "disclose-and-cut"] as const;
export type UnconfirmedRestoration = (typeof UNCONFIRMED_RESTORATION)[number];
/** retrace's default outside the paper's presets (docs/paper.md, "After an unconfirmed restoration"). */
export const DEFAULT_UNCONFIRMED_RESTORATION: UnconfirmedRestoration = "disclose-and-keep";
/** The paper's behaviour, pinned by the experiment configs and the model presets. */
export const PAPER_UNCONFIRMED_RESTORATION: UnconfirmedRestoration = "claim-recovered";
/** What the recovery sub-agent's repeating itself does (option `onRecoveryRepeat`). */
export const ON_RECOVERY_REPEAT = ["continue", "stop"] as const;
export type OnRecoveryRepeat = (typeof ON_RECOVERY_REPEAT)[number];
/** The paper's: a repeated step is executed like any other; the attempt runs until its budget is spent. */
export const DEFAULT_ON_RECOVERY_REPEAT: OnRecoveryRepeat = "continue";
/** What a forward agent stuck after its recovery attempts are spent does to the episode (option `onStuck`). */
export const ON_STUCK = ["continue", "stop"] as const;
export type OnStuck = (typeof ON_STUCK)[number];
/** The paper's: the episode goes on until DONE/FAIL or the forward step cap. */
export const DEFAULT_ON_STUCK: OnStuck = "continue";
/** Longest wait after an action (ms): a minute is far beyond any desktop's settling time. */
export const MAX_SETTLE_MS = 60_000;
/** Largest seed magnitude of the runtime's options (the experiment configs bound theirs the same way). */
export const MAX_SEED = 1_000_000_000_000_000;
/** Most recovery attempts one episode may make. */
export const MAX_RECOVERY_ITERATIONS = 100;

/** Options of one recovery-wrapped episode. Every field has a default (the paper's Appendix B.2). */
export const RecoveryOptionsSchema = z
  .object({
    /** Forward step budget. @default 50 */
    maxForwardSteps: z
      .number()
      .int()
      .min(1)
      .max(1_000, "at most 1000 forward steps per episode (the paper uses 15-50)")
      .default(50),
    /** Detector is not consulted for this many forward steps after a recovery. @default 5 */
    freezeWindow: z.number().int().min(0).max(1_000, "at most 1000 steps").default(5),
    /** How the recovery step R is chosen. @default "error-minus-1" */
    recoveryStep: z.enum(RECOVERY_STEP_STRATEGIES).default("error-minus-1"),
    /** How the environment is brought back to R. @default "model" */
    restoration: z.enum(RESTORATION_MODES).default("model"),
    /** Recovery sub-agent step budget per attempt (separate from the forward budget). @default 10 */
    recoveryBudget: z
      .number()
      .int()
      .min(1)
      .max(1_000, "at most 1000 recovery steps per attempt (the paper uses 1-20)")
      .default(10),
    /** At most this many recovery episodes per run (paper: 1, 3, 5). @default 3 */
    maxRecoveryIterations: z
      .number()
      .int()
      .min(0)
      .max(
        MAX_RECOVERY_ITERATIONS,
        `at most ${MAX_RECOVERY_ITERATIONS} recovery attempts per episode (the paper uses 1, 3, 5)`,
      )
      .default(3),
    /** What the recovery sub-agent is shown besides the target observation. @default "0-E" */
    recoveryContext: z.enum(RECOVERY_CONTEXTS).default("0-E"),
    /**
     * Wait after each executed step (its actions) before observing, in ms, on forward, recovery and replay steps alike
     * (packages/core/src/settle.ts). @default 0
     */
    settleMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_SETTLE_MS, `at most ${MAX_SETTLE_MS} ms (one minute) after each action (OSWorld waits 10000)`)
      .default(0),
    /** Replay attempts per restoration by action replay. @default 3 */
    replayRetries: z.number().int().min(1).max(100, "at most 100 replay attempts").default(3),
    /**
     * Minimum detector confidence that triggers a recovery. The paper gates nothing on confidence
     * (App. B.2: every off-track verdict triggers), so the default is 0; retrace's gated variant is
     * `minConfidence: 0.5` (the default before issue 19). @default 0
     */
    minConfidence: z.number().min(0).max(1).default(0),
    /**
     * The transition string shown before the first forward decision after a restoration:
     * "short" = the paper's short note that the environment was recovered to step R
     * (packages/core/src/prompts/post-restoration-transition.ts, App. B.2); "detailed" = retrace's variant that also
     * tells the agent not to assume anything it did after R still holds
     * (packages/core/src/prompts/post-restoration-transition-detailed.ts). @default "short"
     */
    transition: z.enum(TRANSITION_STRINGS).default("short"),
    /**
     * After a restoration that was not confirmed (`restored: false`): what the agent is told and
     * whether its history is cut (see {@link UNCONFIRMED_RESTORATION}). Experiment configs default
     * to the paper's "claim-recovered" (experiments/config/schema.ts). @default "disclose-and-keep"
     */
    unconfirmedRestoration: z.enum(UNCONFIRMED_RESTORATION).default(DEFAULT_UNCONFIRMED_RESTORATION),
    /**
     * What happens when the recovery sub-agent repeats itself: it proposes, on a screen it already
     * stood on in this attempt, the same actions it took there before (the same action with no
     * screen change, or an A-B-A-B cycle). "continue" = the paper's: execute them, the attempt runs
     * until it is restored or its budget is spent; "stop" = end the attempt at once, unconfirmed
     * (`refused`), without executing them (packages/core/src/runtime/recovery-agent.ts `repeatedStep`). @default "continue"
     */
    onRecoveryRepeat: z.enum(ON_RECOVERY_REPEAT).default(DEFAULT_ON_RECOVERY_REPEAT),
    /**
     * What happens when the recovery attempts are spent (`maxRecoveryIterations`, so the detector
     * is no longer asked) and the forward agent is stuck: the same actions 3 times in a row, none
     * of which changed the screen (packages/core/src/runtime/stuck.ts `stuckRun`). "continue" = the
     * paper's: the episode goes on until DONE/FAIL or `maxForwardSteps`; "stop" = end the episode
     * after the third such step with stop reason "stuck" (the checker scores the final state, as at
     * the step cap). Only with a detector: without one there are no attempts to spend. @default "continue"
     */
    onStuck: z.enum(ON_STUCK).default(DEFAULT_ON_STUCK),
    /**
     * What a state verifier's abstention means when it is asked to confirm a restored state (a
     * recovery sub-agent's RESTORED claim, or a replay): "reject" = not confirmed (VeriCUA: abstain
     * is never a yes; a verifier that fails abstains); "ssim" = SSIM >= 0.99 between the current and
     * the target screenshot decides. @default "reject"
     */
    onAbstain: z.enum(["reject", "ssim"]).default("reject"),
    /**
     * Seed for every stochastic choice of the runtime (e.g. error-random); bounded like the experiment configs' seeds,
     * so sums stay safe integers. @default 0
     */
    seed: z.number().int().min(-MAX_SEED, `at least -${MAX_SEED}`).max(MAX_SEED, `at most ${MAX_SEED}`).default(0),
    /**
     * When the detector judging step t runs: "sequential" (before the policy proposes t+1),
     * "overlapped" (concurrently with that proposal, which is discarded when the detector fires;
     * no action runs before the previous step's verdict), or "auto" (overlapped when the detector
     * declares `latency: "model"`, else sequential). Results are the same in every mode.
     * @default "auto"
     */
    detection: z.enum(["auto", "sequential", "overlapped"]).default("auto"),
    /**
     * Whether the detector judges the step that declares DONE, like any other step, before the
     * episode ends: the paper queries the error detector "once per forward step" (App. B.2) and its
     * detector lists "declares the task finished while it is not" as an error. When it fires, the
     * DONE is not final: recovery starts as after any other step. `false` ends the episode at DONE
     * unjudged. The paper presets (experiments/configs/models/) set `true`; the library default
     * stays `false` so existing runs, the demo and the simulated presets keep their numbers
     * (docs/paper.md lists it). @default false
     */
    detectDone: z.boolean().default(false),
    /**
     * Recovery reports itself degraded after this many failed or timed-out detector calls in a
     * row: a `degraded` event, `accounting.degraded`, the recovery span's status and one plain
     * warning line (docs/cost.md, "When recovery degrades"). @default 3
     */
    degradedAfter: z.number().int().min(1).max(1_000, "at most 1000 failed detector calls in a row").default(3),
    /**
     * What happens once recovery is degraded: "continue" = the agent goes on unjudged (each step's
     * detection carries the failure, the episode is flagged degraded), "fail" = the run stops with
     * a DetectorUnavailableError naming the judge's endpoint. @default "continue"
     */
    onDetectorFailure: z.enum(["continue", "fail"]).default("continue"),
  })
  .strict();

/** Recovery options as the user writes them (all optional). */
export type RecoveryOptionsInput = z.input<typeof RecoveryOptionsSchema>;
/** Recovery options with defaults resolved. */
export type RecoveryOptions = z.output<typeof RecoveryOptionsSchema>;

/** The pluggable parts of an episode. */
export interface EpisodeComponents {
  policy: ForwardPolicy;
  env: Environment;
  blobs: BlobStore;
  /** Absent = no recovery at all (the baseline). */
  detector?: ErrorDetector;
  /** Needed for `recoveryStep: "llm"`. */
  selector?: RecoveryStepSelector;
  /** Needed for `restoration: "model"`. */
  recoverer?: RecoveryPolicy;
  /** Needed for `recoveryContext: "contextualized"`. */
  summarizer?: Summarizer;
  /** Optional: confirms a replayed state or ends recovery early. */
  verifier?: StateVerifier;
}

/** Per-role model accounting. */
export interface RoleUsage {
  calls: number;
  /** Prompt tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's prompt cache (part of inputTokens). */
  cachedInputTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (part of inputTokens). */
  cacheWriteInputTokens?: number;
  /** Billed-equivalent tokens (ModelUsage.billedTokens summed). */
  billedTokens?: number;
  latencyMs: number;
  costUsd: number;
  /** Some call was answered by a server that declared itself a simulated stand-in. */
  simulated?: boolean;
}

/** What an episode cost. Timing fields are the only non-deterministic ones. */
export interface EpisodeAccounting {
  forwardSteps: number;
  recoverySteps: number;
  replaySteps: number;
  recoveryAttempts: number;
  detectorCalls: number;
  detectorFailures: number;
  frozenSkipped: number;
  policyFailures: number;
  /** Speculative proposals (overlapped detection) thrown away because the detector fired. */
  discardedProposals?: number;
  /** Failed or timed-out detector calls in a row up to now (0 after a call that answered). Absent = 0. */
  detectorFailStreak?: number;
  /**
   * Times recovery became degraded (`degradedAfter` failed detector calls in a row; a later answer
   * ends the streak, another streak counts again). Absent = never (docs/cost.md, "When recovery degrades").
   */
  degraded?: number;
  /**
   * Recovery-step selections where the selector failed (threw, gave no usable step, or a step
   * outside 0..E) and R fell back to E-1. Absent = none. Counted in results.jsonl, summary.json
   * and the report, not only in the trajectory's selection record.
   */
  selectorFallbacks?: number;
  /**
   * Action replays that did not reproduce the saved state (a desync: the check after the replayed
   * prefix failed, and the replay was retried from reset or given up). Absent = none.
   */
  replayDesyncs?: number;
  /**
   * Detector cascade counters (only with a cascade detector): how often each gate opened, how
   * often the expensive detector was asked (`asked`), and how often a gate fired on its own.
   */
  detectorGates?: Record<string, number>;
  models: Partial<Record<ModelRole, RoleUsage>>;
  envMs: number;
  wallMs: number;
}

/** "stuck": ended by option `onStuck: "stop"` (the same no-effect step 3 times with the recovery attempts spent). */
export type StopReason = "done" | "fail" | "max-steps" | "stuck" | "env-error" | "aborted";

/** The outcome of one episode. */
export interface EpisodeResult {
  taskId: string;
  seed: number;
  success: boolean;
  evaluation: Evaluation;
  stopReason: StopReason;
  /** Set when the environment (not the agent) failed; such episodes are kept out of success rates. */
  envError?: string;
  /** True when any policy/detector/selector/recoverer was simulated. */
  simulated: boolean;
  trajectory: Trajectory;
  accounting: EpisodeAccounting;
  /** `id@version` of every prompt used. */
  prompts: string[];
}
