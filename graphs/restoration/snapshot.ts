/**
 * `snapshot` restoration: environment-native restore of the snapshot taken at o_R (an oracle upper
 * bound). Snapshots live in the BlobStore; graph state holds only their references.
 */
import { describeError } from "../../src/errors.ts";
import type { RestorationConfirmation } from "../../src/runtime/confirm.ts";
import type { RuntimeContext } from "../context.ts";
import { currentStateHash, loadSnapshot } from "../env-step.ts";
import type { GraphState } from "../state.ts";
import type { RestorationOutcome } from "./outcome.ts";

export async function restoreBySnapshot(state: GraphState, ctx: RuntimeContext, recoveryStep: number): Promise<RestorationOutcome> {
  const { env, blobs } = ctx.components;
  const ref = state.snapshots[recoveryStep];
  const base = { records: [], events: [], tick: state.tick, accounting: state.accounting, prompts: state.prompts };
  if (!ref) return { ...base, observation: state.observation!, restored: false, confirmation: "refused", reason: `no snapshot was taken at step ${recoveryStep}`, envLog: state.envLog };
  try {
    const snap = await loadSnapshot(blobs, ref);
    const started = performance.now();
    const observation = await env.restore!(snap);
    const accounting = { ...state.accounting, envMs: state.accounting.envMs + (performance.now() - started) };
    const hash = currentStateHash(ctx);
    const expected = state.stateHashes[recoveryStep];
    const restored = !hash || !expected || hash === expected;
    // The state hash is the oracle; without one nothing checked the restore: "claimed".
    const confirmation: RestorationConfirmation = !hash || !expected ? "claimed" : restored ? "ssim" : "refused";
    const reason = restored ? `restored the snapshot of o_${recoveryStep}` : `restored snapshot of o_${recoveryStep} but the state hash differs`;
    return { ...base, accounting, observation, restored, confirmation, reason, envLog: { base: { snapshot: ref }, actions: [] } };
  } catch (err) {
    const why = `snapshot restore failed: ${describeError(err)}`;
    return { ...base, observation: state.observation!, restored: false, confirmation: "refused", reason: why, envLog: state.envLog, envError: why };
  }
}
