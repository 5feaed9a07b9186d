/**
 * The recovery oracle of ReTrace (paper Sections 5.1-5.2, Appendix A.2):
 *
 * - R_O, observation-level: SSIM(recovered screenshot, target screenshot) >= threshold (0.99);
 * - R_TC, transition-consistent via goal-oriented action replay: from the recovered state, execute
 *   the remaining actions of the ground-truth trajectory (from the target step to its end) and run
 *   the task evaluator; a latent difference (a hidden file, a setting) makes it fail;
 * - the verdict R = R_TC AND R_O, each part reported separately.
 *
 * `judgeRecovery` computes R_O first (it only reads the screenshots), then R_TC, which changes the
 * environment: take anything else you need from the recovered state before calling it.
 */
import type { Action } from "../action.ts";
import type { BlobReader } from "../blob-store.ts";
import type { Environment } from "../environment.ts";
import { describeError } from "../errors.ts";
import { DEFAULT_SSIM_THRESHOLD } from "../image/similarity.ts";
import type { Observation } from "../observation.ts";
import { executeSteps } from "../replay/replay.ts";
import { observationSsim } from "../replay/state-check.ts";

/** R_O's outcome. */
export interface ObservationVerdict {
  pass: boolean;
  ssim: number;
  threshold: number;
}

/** R_TC's outcome. */
export interface TransitionVerdict {
  pass: boolean;
  /** Task evaluator score after replaying the remaining ground-truth actions. */
  score?: number;
  detail?: string;
  /** Ground-truth steps replayed. */
  replayedSteps: number;
  /** Set when the environment failed during the replay (then `pass` is false). */
  envError?: string;
}

/** The oracle's verdict: `success` = R_TC AND R_O. */
export interface RecoveryVerdict {
  success: boolean;
  ro: ObservationVerdict;
  rtc: TransitionVerdict;
}

/** Options of {@link judgeRecovery}. */
export interface RecoveryOracleOptions {
  /** The environment, in the recovered state. R_TC continues from here. */
  env: Environment;
  /** The observation of the recovered state. */
  recovered: Observation;
  /** The target observation o_target. */
  target: Observation;
  /** Ground-truth steps from the target step to the end of the trajectory. */
  remaining: readonly (readonly Action[])[];
  blobs: BlobReader;
  /** R_O threshold. @default 0.99 */
  threshold?: number;
  /** Evaluator score at or above which R_TC passes. @default 1 */
  successScore?: number;
}

/** R_O alone: does the recovered screenshot match the target at the threshold? */
export async function observationOracle(recovered: Observation, target: Observation, blobs: BlobReader, threshold = DEFAULT_SSIM_THRESHOLD): Promise<ObservationVerdict> {
  const ssim = await observationSsim(recovered, target, blobs);
  return { pass: ssim >= threshold, ssim, threshold };
}

/** R_TC alone: replay the remaining ground-truth steps from the current state and run the evaluator. */
export async function transitionOracle(env: Environment, recovered: Observation, remaining: readonly (readonly Action[])[], successScore = 1): Promise<TransitionVerdict> {
  try {
    await executeSteps(env, remaining, recovered);
    const ev = await env.evaluate();
    return { pass: ev.score >= successScore, score: ev.score, detail: ev.detail, replayedSteps: remaining.length };
  } catch (err) {
    return { pass: false, replayedSteps: remaining.length, envError: describeError(err), detail: `environment failed during goal-oriented replay: ${describeError(err)}` };
  }
}

/** Judge a recovery: R_O, then R_TC (which changes the environment), and their conjunction. */
export async function judgeRecovery(options: RecoveryOracleOptions): Promise<RecoveryVerdict> {
  const ro = await observationOracle(options.recovered, options.target, options.blobs, options.threshold ?? DEFAULT_SSIM_THRESHOLD);
  const rtc = await transitionOracle(options.env, options.recovered, options.remaining, options.successScore ?? 1);
  return { success: ro.pass && rtc.pass, ro, rtc };
}
