/**
 * The recovery oracle of ReTrace (paper Sections 5.1-5.2, Appendix A.2):
 *
 * - R_O, observation-level: SSIM(recovered screenshot, target screenshot) >= threshold (0.99);
 * - R_TC, transition-consistent via goal-oriented action replay: from the recovered state, execute
 *   the remaining actions of the ground-truth trajectory (from the target step to its end) and run
 *   the task evaluator; a latent difference (a hidden file, a setting) makes it fail;
 * - the verdict R = R_TC AND R_O, each part reported separately.
 *
 * Beyond the paper, beside it: R_Om, the masked observation oracle - SSIM over the windows that
 * touch no dynamic pixel (a clock, a pop-up; learned per task in ./dynamic-mask.ts), mean >= 0.99
 * and, by default, no local tile below a floor - and R_Om AND R_TC. With an empty mask and no
 * floor R_Om equals R_O exactly; the verdict's `meanPass` is the mean-only R_Om.
 *
 * `judgeRecovery` computes R_O first (it only reads the screenshots), then R_TC, which changes the
 * environment: take anything else you need from the recovered state before calling it.
 */
import { terminalOf, type Action } from "@retrace-cua/core/action";
import type { BlobReader, BlobRef } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { describeError } from "@retrace-cua/core/errors";
import { DEFAULT_SSIM_THRESHOLD, maskedScreenshotSsim } from "@retrace-cua/core/image/similarity";
import { loadMask, type DynamicMask } from "./dynamic-mask.ts";
import type { Observation } from "@retrace-cua/core/observation";
import { executeSteps } from "../replay/replay.ts";
import { observationSsim } from "@retrace-cua/core/replay/state-check";

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

/** R_Om's outcome: R_O outside the dynamic-pixel mask. */
export interface MaskedObservationVerdict extends ObservationVerdict {
  /** The mask blob used (absent: no dynamic pixels known, R_Om = R_O). */
  mask?: BlobRef;
  /** Share of SSIM windows left out. */
  maskedWindows: number;
  /** Set when the mask was not used (it covered too much): then R_Om = R_O. */
  fallback?: string;
  /**
   * With the capture check: the best SSIM, over the masked windows only, of the recovered screen
   * against one of the target state's observed captures (R_Om then also needs it >= threshold).
   */
  captureSsim?: number;
  /**
   * The lowest local SSIM over the windows compared (see {@link LocalFloorOptions}); R_Om then also
   * needs it >= `localFloor`. Absent when no floor was asked for.
   */
  localSsim?: number;
  /** The local floor applied (absent: the mean-only R_Om). */
  localFloor?: number;
  /** The mean-only R_Om's decision (the masked mean >= threshold, and the capture check when asked). */
  meanPass: boolean;
}

/**
 * R_Om's local floor (beyond the paper): a mean SSIM over a whole screen hides a local
 * difference - a window left open covers a few percent of the SSIM windows - so R_Om may also
 * require that no compared region fall below a floor.
 */
export interface LocalFloorOptions {
  /** Smallest local SSIM allowed (-Infinity or absent: no floor, the mean-only R_Om). @default no floor */
  floor?: number;
  /** Local region = a tile of this many x this many SSIM window positions (1: one window). @default 1 */
  block?: number;
}

/** The oracle's verdict: `success` = R_TC AND R_O; `maskedSuccess` = R_TC AND R_Om when R_Om was judged. */
export interface RecoveryVerdict {
  success: boolean;
  ro: ObservationVerdict;
  rtc: TransitionVerdict;
  rom?: MaskedObservationVerdict;
  maskedSuccess?: boolean;
}

/** Masks covering more than this share of SSIM windows are not used (R_Om falls back to R_O). */
export const DEFAULT_MAX_MASKED_WINDOWS = 0.5;

/**
 * R_Om's default local floor: every tile of 4 x 4 SSIM window positions ({@link DEFAULT_LOCAL_BLOCK})
 * outside the mask must average SSIM >= 0.2. Chosen on half of SimDesk's tasks and confirmed on
 * the other half (`mask-candidates.ts --floor`, README "Masked oracle R_Om"): a window or taskbar
 * tab left open scored <= 0.137 there, hover highlights of truly restored screens >= 0.256.
 */
export const DEFAULT_LOCAL_FLOOR = 0.2;

/** R_Om's default local region: tiles of 4 x 4 SSIM window positions (12 x 12 px of window origins at 1280x800). */
export const DEFAULT_LOCAL_BLOCK = 4;

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
  /** Wait after each replayed step of R_TC before observing (packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
  /** Also judge R_Om with this dynamic-pixel mask (null: no dynamic pixels, R_Om = R_O). @default not judged */
  mask?: BlobRef | null;
  /** Largest share of masked SSIM windows R_Om accepts before falling back to R_O. @default 0.5 */
  maxMaskedWindows?: number;
  /**
   * Captures of the target state (blob refs): when given, R_Om also asks that the masked windows
   * look like one of them (see {@link maskedObservationOracle}). @default no capture check
   */
  captures?: readonly BlobRef[];
  /**
   * R_Om's local floor (`{}`: none, the mean-only R_Om). @default floor {@link DEFAULT_LOCAL_FLOOR} on tiles of {@link
   * DEFAULT_LOCAL_BLOCK}
   */
  local?: LocalFloorOptions;
}

/** R_O alone: does the recovered screenshot match the target at the threshold? */
export async function observationOracle(
  recovered: Observation,
  target: Observation,
  blobs: BlobReader,
  threshold = DEFAULT_SSIM_THRESHOLD,
): Promise<ObservationVerdict> {
  const ssim = await observationSsim(recovered, target, blobs);
  return { pass: ssim >= threshold, ssim, threshold };
}

/**
 * R_Om alone: R_O over the SSIM windows that touch no pixel of the dynamic mask `mask` (a blob
 * from `saveMask`), mean >= threshold, and by default no tile of 4 x 4 window positions below the
 * local floor (`local: {}` for the mean-only R_Om; `meanPass` always reports it). Without a mask
 * and without a floor it is R_O exactly.
 *
 * With `captures` (the target state's observed screenshots), the masked windows are not simply
 * ignored: the recovered screen's masked region must match one of the captures there (mean SSIM
 * over the masked windows >= threshold for at least one capture) - a dynamic region must look like
 * something the target state showed.
 */
export async function maskedObservationOracle(
  recovered: Observation,
  target: Observation,
  blobs: BlobReader,
  mask: BlobRef | null | undefined,
  threshold = DEFAULT_SSIM_THRESHOLD,
  maxMaskedWindows = DEFAULT_MAX_MASKED_WINDOWS,
  captures?: readonly BlobRef[],
  local: LocalFloorOptions = { floor: DEFAULT_LOCAL_FLOOR, block: DEFAULT_LOCAL_BLOCK },
): Promise<MaskedObservationVerdict> {
  const floor = local.floor ?? -Infinity;
  const hasFloor = floor > -Infinity;
  const withFloor = (
    v: Omit<MaskedObservationVerdict, "pass" | "meanPass">,
    meanPass: boolean,
    localMin: number,
  ): MaskedObservationVerdict => {
    if (!hasFloor) return { ...v, pass: meanPass, meanPass };
    const localSsim = Number.isNaN(localMin) ? 0 : localMin;
    return { ...v, pass: meanPass && localSsim >= floor, meanPass, localSsim, localFloor: floor };
  };
  const [a, b] = await Promise.all([blobs.get(recovered.screenshot), blobs.get(target.screenshot)]);
  const opts = { localBlock: local.block ?? 1 };
  if (!mask) {
    // No dynamic pixels: R_O (maskedScreenshotSsim without a mask is screenshotSsim bit for bit).
    const r = await maskedScreenshotSsim(a, b, null, opts);
    return withFloor({ ssim: r.ssim, threshold, maskedWindows: 0 }, r.ssim >= threshold, r.localMin);
  }
  const m = await cachedMask(mask, blobs);
  const r = await maskedScreenshotSsim(a, b, m, opts);
  const masked = r.total === 0 ? 0 : 1 - r.windows / r.total;
  if (masked > maxMaskedWindows || !Number.isFinite(r.ssim)) {
    const all = await maskedScreenshotSsim(a, b, null, opts);
    return withFloor(
      {
        ssim: all.ssim,
        threshold,
        mask,
        maskedWindows: masked,
        fallback: `mask covers ${(100 * masked).toFixed(1)}% of SSIM windows (> ${(100 * maxMaskedWindows).toFixed(0)}%): unmasked R_O used`,
      },
      all.ssim >= threshold,
      all.localMin,
    );
  }
  if (captures && captures.length > 0 && masked > 0) {
    let best = -Infinity;
    for (const c of captures) {
      const inside = await maskedScreenshotSsim(a, await blobs.get(c), m, { inside: true });
      if (Number.isFinite(inside.ssim)) best = Math.max(best, inside.ssim);
      if (best >= 1) break;
    }
    const captureSsim = Number.isFinite(best) ? best : 0;
    return withFloor(
      { ssim: r.ssim, threshold, mask, maskedWindows: masked, captureSsim },
      r.ssim >= threshold && captureSsim >= threshold,
      r.localMin,
    );
  }
  return withFloor({ ssim: r.ssim, threshold, mask, maskedWindows: masked }, r.ssim >= threshold, r.localMin);
}

const MASK_CACHE_LIMIT = 16;
const masks = new Map<BlobRef, Promise<DynamicMask>>();

/** Masks by blob reference (a task's mask judges many runs): decoded once, the last 16 kept. */
function cachedMask(ref: BlobRef, blobs: BlobReader): Promise<DynamicMask> {
  const hit = masks.get(ref);
  if (hit) return hit;
  const p = loadMask(ref, blobs);
  p.catch(() => masks.delete(ref));
  masks.set(ref, p);
  if (masks.size > MASK_CACHE_LIMIT) masks.delete(masks.keys().next().value as BlobRef);
  return p;
}

/** R_TC alone: replay the remaining ground-truth steps from the current state and run the evaluator. */
export async function transitionOracle(
  env: Environment,
  recovered: Observation,
  remaining: readonly (readonly Action[])[],
  successScore = 1,
  settleMs = 0,
): Promise<TransitionVerdict> {
  try {
    await executeSteps(env, remaining, recovered, { settleMs });
    const ev = await env.evaluate({ terminal: terminalOf(remaining) });
    return { pass: ev.score >= successScore, score: ev.score, detail: ev.detail, replayedSteps: remaining.length };
  } catch (err) {
    return {
      pass: false,
      replayedSteps: remaining.length,
      envError: describeError(err),
      detail: `environment failed during goal-oriented replay: ${describeError(err)}`,
    };
  }
}

/** Judge a recovery: R_O, then R_TC (which changes the environment), and their conjunction. */
export async function judgeRecovery(options: RecoveryOracleOptions): Promise<RecoveryVerdict> {
  const threshold = options.threshold ?? DEFAULT_SSIM_THRESHOLD;
  const ro = await observationOracle(options.recovered, options.target, options.blobs, threshold);
  const rom =
    options.mask === undefined
      ? undefined
      : await maskedObservationOracle(
          options.recovered,
          options.target,
          options.blobs,
          options.mask,
          threshold,
          options.maxMaskedWindows,
          options.captures,
          options.local,
        );
  const rtc = await transitionOracle(
    options.env,
    options.recovered,
    options.remaining,
    options.successScore ?? 1,
    options.settleMs ?? 0,
  );
  return rom
    ? { success: ro.pass && rtc.pass, ro, rtc, rom, maskedSuccess: rom.pass && rtc.pass }
    : { success: ro.pass && rtc.pass, ro, rtc };
}
