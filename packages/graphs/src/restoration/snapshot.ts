/**
 * `snapshot` restoration: environment-native restore of the snapshot taken at o_R (an oracle upper
 * bound). Snapshots live in the BlobStore; graph state holds only their references.
 */
import { describeError } from "@retrace-cua/core/errors";
import { isRestored } from "@retrace-cua/core/runtime/confirm";
import { addUsage } from "@retrace-cua/core/runtime/accounting";
import type { RuntimeContext } from "../context.ts";
import { currentStateHash, loadSnapshot } from "../env-step.ts";
import type { GraphState } from "../state.ts";
import type { RestorationOutcome } from "./outcome.ts";
import { confirmState } from "./confirm.ts";

export async function restoreBySnapshot(
  state: GraphState,
  ctx: RuntimeContext,
  recoveryStep: number,
  attempt: number,
): Promise<RestorationOutcome> {
  const { env, blobs } = ctx.components;
  const ref = state.snapshots[recoveryStep];
  const base = { records: [], events: [], tick: state.tick, accounting: state.accounting, prompts: state.prompts };
  if (!ref)
    return {
      ...base,
      observation: state.observation!,
      restored: false,
      confirmation: "refused",
      reason: `no snapshot was taken at step ${recoveryStep}`,
      envLog: state.envLog,
    };
  try {
    const snap = await loadSnapshot(blobs, ref);
    const started = performance.now();
    const observation = await env.restore!(snap);
    let accounting = { ...state.accounting, envMs: state.accounting.envMs + (performance.now() - started) };
    const hash = currentStateHash(ctx);
    const expected = state.stateHashes[recoveryStep];
    // The one rule (packages/core/src/runtime/confirm.ts): the state hash decides when both exist, else the verifier, else the
    // restore is "claimed".
    const target = state.history[recoveryStep]?.observation ?? observation;
    const site = { seq: state.steps.length - 1, phase: "verifier" as const, attempt };
    const c = await confirmState(ctx, target, observation, {
      unchecked: "claim",
      site,
      oracle: () => (hash && expected ? hash === expected : null),
    });
    accounting = addUsage(accounting, c.usage, "verifier");
    const { confirmation } = c;
    const restored = isRestored(confirmation);
    const reason = restored
      ? `restored the snapshot of o_${recoveryStep} (${c.reason})`
      : `restored snapshot of o_${recoveryStep}, not confirmed: ${c.reason}`;
    return {
      ...base,
      accounting,
      observation,
      restored,
      confirmation,
      reason,
      envLog: { base: { snapshot: ref }, actions: [] },
    };
  } catch (err) {
    const why = `snapshot restore failed: ${describeError(err)}`;
    return {
      ...base,
      observation: state.observation!,
      restored: false,
      confirmation: "refused",
      reason: why,
      envLog: state.envLog,
      envError: why,
    };
  }
}
