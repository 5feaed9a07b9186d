/**
 * Confirming a restored state with the state verifier (VeriCUA-style abstaining verification):
 * `match` confirms, `mismatch` rejects, and `abstain` (insufficient evidence) does NOT confirm,
 * unless the episode options say `onAbstain: "ssim"`, in which case SSIM >= 0.99 between the
 * current and the target screenshot decides. A verifier that throws is an abstention, never a
 * confirmation. Used by `model` restoration (a restored claim) and `replay` restoration.
 */
import type { Observation } from "../../src/observation.ts";
import { describeError } from "../../src/errors.ts";
import { screenshotSsim } from "../../src/image/similarity.ts";
import type { StateVerifier, VerifierVerdict } from "../../src/recovery.ts";
import type { ModelUsage } from "../../src/usage.ts";
import type { RuntimeContext } from "../context.ts";
import { atCallSite, type CallSite } from "../../src/runtime/call-site.ts";

/** SSIM at or above which a screen counts as the target screen (paper: R_O threshold 0.99). */
export const CONFIRM_SSIM_THRESHOLD = 0.99;

/** What {@link confirmState} decided and why. */
export interface Confirmation {
  confirmed: boolean;
  /** The verifier's verdict (`abstain` also when it failed). */
  verdict: VerifierVerdict;
  /** One line for the trajectory. */
  reason: string;
  usage: ModelUsage[];
  /** SSIM to the target, when `onAbstain: "ssim"` decided. */
  ssim?: number;
}

/** Ask `verifier` whether `current` is the `target` state; abstentions follow `ctx.options.onAbstain`. Its model calls belong to `site` (the step whose result it checks). */
export async function confirmState(ctx: RuntimeContext, verifier: StateVerifier, target: Observation, current: Observation, site?: CallSite): Promise<Confirmation> {
  let verdict: VerifierVerdict;
  let reason: string;
  let usage: ModelUsage[] = [];
  try {
    const ask = () => verifier.verify({ target, current, blobs: ctx.components.blobs, env: ctx.components.env, signal: ctx.signal });
    const v = await (site ? atCallSite(site, ask) : ask());
    const ok = v && (v.verdict === "match" || v.verdict === "mismatch" || v.verdict === "abstain");
    verdict = ok ? v.verdict : "abstain";
    reason = ok ? String(v.reason ?? "") : `the verifier returned no usable verdict`;
    usage = Array.isArray(v?.usage) ? v.usage : [];
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    verdict = "abstain";
    reason = `the verifier failed: ${describeError(err)}`;
  }
  if (verdict !== "abstain") return { confirmed: verdict === "match", verdict, reason, usage };
  if (ctx.options.onAbstain !== "ssim") return { confirmed: false, verdict, reason: `${verifier.name} abstained (not confirmed): ${reason}`, usage };
  const { blobs } = ctx.components;
  const ssim = current.screenshot === target.screenshot ? 1 : await screenshotSsim(await blobs.get(current.screenshot), await blobs.get(target.screenshot));
  const confirmed = ssim >= CONFIRM_SSIM_THRESHOLD;
  return { confirmed, verdict, ssim, usage, reason: `${verifier.name} abstained (${reason}); onAbstain ssim: SSIM ${ssim.toFixed(4)} ${confirmed ? ">=" : "<"} ${CONFIRM_SSIM_THRESHOLD}` };
}
