/**
 * The one confirmation rule of a restoration, used by every path that restores a state (the
 * graph's model and replay restorations, `recoverWithPolicy` behind the LangChain middleware and
 * the SDK wrappers, and the attempt function's check of a user's restore routine):
 *
 * 1. an oracle (the environment's ground-truth state hash) decides when it can: a match is
 *    confirmed like an SSIM check ("ssim"), a difference refuses;
 * 2. else a state verifier, when configured: `match` confirms ("verifier"); `mismatch` refuses;
 *    an abstention (or a verifier that fails or answers nonsense) confirms nothing unless
 *    `onAbstain: "ssim"`, when SSIM >= 0.99 between the current and the target screenshot decides
 *    ("ssim" or "refused");
 * 3. with neither, `unchecked` says what the path does: "ssim" (a replay: SSIM >= 0.99 decides)
 *    or "claim" (the recovery agent's claim is taken, unverified: "claimed").
 *
 * `restored` (kept for compatibility) is `confirmation !== "refused"`.
 */
import type { BlobReader } from "../blob-store.ts";
import type { Environment } from "../environment.ts";
import { describeError } from "../errors.ts";
import { DEFAULT_SSIM_THRESHOLD } from "../image/similarity.ts";
import type { Observation } from "../observation.ts";
import type { StateVerifier, VerifierVerdict } from "../recovery.ts";
import { observationSsim } from "../replay/state-check.ts";
import type { ModelUsage } from "../usage.ts";
import { atCallSite, type CallSite } from "./call-site.ts";

/** How a restoration was confirmed (or not). */
export type RestorationConfirmation = "verifier" | "ssim" | "claimed" | "refused";

/** The four values, in order of strength. */
export const RESTORATION_CONFIRMATIONS = [
  "verifier",
  "ssim",
  "claimed",
  "refused",
] as const satisfies readonly RestorationConfirmation[];

/** SSIM at or above which a screen counts as the target screen (paper: R_O threshold 0.99). */
export const CONFIRM_SSIM_THRESHOLD = DEFAULT_SSIM_THRESHOLD;

/** Whether a confirmation counts as restored (`restored` of events, reports and results). */
export const isRestored = (c: RestorationConfirmation): boolean => c !== "refused";

/** What {@link confirmRestoration} is asked. */
export interface ConfirmInput {
  target: Observation;
  current: Observation;
  blobs: BlobReader;
  verifier?: StateVerifier;
  /** An abstaining (or failing) verifier: "reject" = refused; "ssim" = SSIM >= 0.99 decides. @default "reject" */
  onAbstain?: "reject" | "ssim";
  /** Without a verifier (and no oracle verdict): "claim" = claimed, unverified; "ssim" = SSIM >= 0.99 decides. */
  unchecked: "claim" | "ssim";
  /** The ground-truth oracle when the environment has one: true/false decides, null = cannot tell. */
  oracle?: () => boolean | null;
  /** Handed to the verifier (some check the live environment). */
  env?: Environment;
  signal?: AbortSignal;
  /** The step record the verifier's model calls belong to. */
  site?: CallSite;
}

/** What {@link confirmRestoration} decided and why. */
export interface ConfirmOutcome {
  confirmation: RestorationConfirmation;
  /** One line for the trajectory. */
  reason: string;
  /** The verifier's verdict (`abstain` also when it failed), when one was asked. */
  verdict?: VerifierVerdict;
  /** The verifier's own reason (model output: data), when one was asked. */
  verifierReason?: string;
  /** SSIM to the target, when SSIM decided. */
  ssim?: number;
  usage: ModelUsage[];
  /** `id@version` of the verifier's prompt, when it names one. */
  prompt?: string;
}

/** Apply the one confirmation rule (see the file comment). Only an aborted run's error propagates. */
export async function confirmRestoration(input: ConfirmInput): Promise<ConfirmOutcome> {
  const { target, current, blobs, verifier } = input;
  const oracle = input.oracle?.() ?? null;
  if (oracle !== null)
    return {
      confirmation: oracle ? "ssim" : "refused",
      reason: oracle ? "the state hash matches the target's" : "the state hash differs from the target's",
      usage: [],
    };
  const bySsim = async (prefix: string): Promise<ConfirmOutcome & { ssim: number }> => {
    const ssim = await observationSsim(current, target, blobs);
    const ok = ssim >= CONFIRM_SSIM_THRESHOLD;
    return {
      confirmation: ok ? "ssim" : "refused",
      ssim,
      usage: [],
      reason: `${prefix}SSIM ${ssim.toFixed(4)} ${ok ? ">=" : "<"} ${CONFIRM_SSIM_THRESHOLD}`,
    };
  };
  if (!verifier)
    return input.unchecked === "ssim"
      ? bySsim("")
      : { confirmation: "claimed", reason: "claimed by the recovery agent, unverified", usage: [] };
  let verdict: VerifierVerdict;
  let reason: string;
  let usage: ModelUsage[] = [];
  let prompt: string | undefined;
  try {
    const ask = () =>
      verifier.verify({ target, current, blobs, ...(input.env ? { env: input.env } : {}), signal: input.signal });
    const v = (await (input.site ? atCallSite(input.site, ask) : ask())) as
      { verdict?: unknown; reason?: unknown; usage?: unknown } | null | undefined;
    const ok = !!v && (v.verdict === "match" || v.verdict === "mismatch" || v.verdict === "abstain");
    verdict = ok ? (v!.verdict as VerifierVerdict) : "abstain";
    reason = ok ? String(v!.reason ?? "") : "the verifier returned no usable verdict";
    usage = Array.isArray(v?.usage) ? (v!.usage as ModelUsage[]) : [];
    const ref = (v as { prompt?: unknown } | null | undefined)?.prompt;
    if (typeof ref === "string") prompt = ref;
  } catch (err) {
    if (input.signal?.aborted) throw err;
    verdict = "abstain";
    reason = `the verifier failed: ${describeError(err)}`;
  }
  const asked = { verdict, verifierReason: reason, usage, ...(prompt ? { prompt } : {}) };
  if (verdict === "match")
    return { ...asked, confirmation: "verifier", reason: `${verifier.name} says match: ${reason}` };
  if (verdict === "mismatch")
    return { ...asked, confirmation: "refused", reason: `${verifier.name} says mismatch: ${reason}` };
  if (input.onAbstain !== "ssim")
    return { ...asked, confirmation: "refused", reason: `${verifier.name} abstained (not confirmed): ${reason}` };
  const sim = await bySsim(`${verifier.name} abstained (${reason}); onAbstain ssim: `);
  return { ...sim, ...asked };
}
