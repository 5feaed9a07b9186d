/**
 * State checks: does the environment's current state match an expected one? Used to confirm
 * replays (the target and error states of the recovery evaluation) and, in R_O, to compare a
 * recovered screenshot with the target.
 *
 * Three ways, best first: the environment's full-state hash when it knows ground truth
 * (`capabilities.groundTruth`, e.g. SimDesk), a `StateVerifier` (an LLM judge, which may abstain),
 * or screenshot SSIM at a threshold. An abstaining verifier does not confirm the state (VeriCUA:
 * abstaining beats a false "match" when curating datasets).
 */
import type { BlobReader } from "../blob-store.ts";
import type { Environment } from "../environment.ts";
import type { Observation } from "../observation.ts";
import type { StateVerifier, VerifierVerdict } from "../recovery.ts";
import { DEFAULT_SSIM_THRESHOLD, screenshotSsim } from "../image/similarity.ts";
import { describeError } from "../errors.ts";

/** What a state should look like: any of its observation, its screenshot or its hash. */
export interface ExpectedState {
  observation: Observation;
  /** `env.stateHash()` recorded in that state (ground-truth environments only). */
  stateHash?: string;
}

/** Outcome of one state check. */
export interface StateCheckResult {
  verdict: VerifierVerdict;
  method: "state-hash" | "verifier" | "ssim";
  /** SSIM of current vs expected screenshot, when computed. */
  ssim?: number;
  reason: string;
}

/** Compares the environment's current state with an expected one. */
export type StateCheck = (input: {
  env: Environment;
  current: Observation;
  expected: ExpectedState;
  blobs: BlobReader;
  signal?: AbortSignal;
}) => Promise<StateCheckResult>;

/** Options of {@link createStateCheck}. */
export interface StateCheckOptions {
  /**
   * "auto": state hash when the environment has ground truth and a hash was recorded, else the
   * verifier when given, else SSIM. @default "auto"
   */
  method?: "auto" | "state-hash" | "verifier" | "ssim";
  /** Judge for method "verifier" (and "auto" without ground truth). */
  verifier?: StateVerifier;
  /** SSIM at or above this counts as a match. @default 0.99 */
  ssimThreshold?: number;
}

/** Build a {@link StateCheck}. */
export function createStateCheck(options: StateCheckOptions = {}): StateCheck {
  const method = options.method ?? "auto";
  const threshold = options.ssimThreshold ?? DEFAULT_SSIM_THRESHOLD;
  return async ({ env, current, expected, blobs, signal }) => {
    const canHash =
      env.capabilities.groundTruth && typeof env.stateHash === "function" && expected.stateHash !== undefined;
    const use = method === "auto" ? (canHash ? "state-hash" : options.verifier ? "verifier" : "ssim") : method;
    if (use === "state-hash") {
      if (!canHash) return { verdict: "abstain", method: "state-hash", reason: "no ground-truth state hash available" };
      const now = env.stateHash!();
      return now === expected.stateHash
        ? { verdict: "match", method: "state-hash", reason: "full-state hash equal" }
        : {
            verdict: "mismatch",
            method: "state-hash",
            reason: `full-state hash ${now.slice(0, 12)} != expected ${expected.stateHash!.slice(0, 12)}`,
          };
    }
    if (use === "verifier") {
      if (!options.verifier) return { verdict: "abstain", method: "verifier", reason: "no state verifier configured" };
      // A verifier that fails abstains (never a match).
      try {
        const v = await options.verifier.verify({ target: expected.observation, current, blobs, env, signal });
        const ok = v && (v.verdict === "match" || v.verdict === "mismatch" || v.verdict === "abstain");
        return ok
          ? { verdict: v.verdict, method: "verifier", reason: v.reason }
          : { verdict: "abstain", method: "verifier", reason: "the verifier returned no usable verdict" };
      } catch (err) {
        if (signal?.aborted) throw err;
        return { verdict: "abstain", method: "verifier", reason: `the verifier failed: ${describeError(err)}` };
      }
    }
    const { match, ssim } = await screensMatch(current, expected.observation, blobs, threshold);
    return {
      verdict: match ? "match" : "mismatch",
      method: "ssim",
      ssim,
      reason: `SSIM ${ssim.toFixed(4)} ${match ? ">=" : "<"} ${threshold}`,
    };
  };
}

/**
 * The one screen comparison of every replay check (the runtime's replay restoration, dataset and
 * evaluation replays, ideal recovery's prefix check): SSIM >= `threshold` (default 0.99), never
 * byte equality, so a clock or a blinking caret does not turn a faithful replay into a desync.
 */
export async function screensMatch(
  a: Observation,
  b: Observation,
  blobs: BlobReader,
  threshold = DEFAULT_SSIM_THRESHOLD,
): Promise<{ match: boolean; ssim: number }> {
  const ssim = await observationSsim(a, b, blobs);
  return { match: ssim >= threshold, ssim };
}

/** SSIM between two observations' screenshots (1 when they reference the same blob). */
export async function observationSsim(a: Observation, b: Observation, blobs: BlobReader): Promise<number> {
  if (a.screenshot === b.screenshot) return 1;
  const [x, y] = await Promise.all([blobs.get(a.screenshot), blobs.get(b.screenshot)]);
  return screenshotSsim(x, y);
}
