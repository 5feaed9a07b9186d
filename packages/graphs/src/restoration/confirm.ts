/**
 * The graph's binding of the one confirmation rule (packages/core/src/runtime/confirm.ts) to a runtime
 * context: its verifier, blob store, environment, signal and `onAbstain` option. Used by `model`
 * restoration (a restored claim) and `replay` restoration.
 */
import type { Observation } from "@retrace-cua/core/observation";
import { confirmRestoration, type ConfirmInput, type ConfirmOutcome } from "@retrace-cua/core/runtime/confirm";
import type { CallSite } from "@retrace-cua/core/runtime/call-site";
import type { RuntimeContext } from "../context.ts";

export { CONFIRM_SSIM_THRESHOLD } from "@retrace-cua/core/runtime/confirm";

/** Is `current` the `target` state, by the one rule with this context's verifier and options? */
export function confirmState(
  ctx: RuntimeContext,
  target: Observation,
  current: Observation,
  how: { unchecked: ConfirmInput["unchecked"]; site?: CallSite; oracle?: ConfirmInput["oracle"] },
): Promise<ConfirmOutcome> {
  const { verifier, blobs, env } = ctx.components;
  return confirmRestoration({
    target,
    current,
    blobs,
    ...(verifier ? { verifier } : {}),
    onAbstain: ctx.options.onAbstain,
    unchecked: how.unchecked,
    ...(how.oracle ? { oracle: how.oracle } : {}),
    env,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(how.site ? { site: how.site } : {}),
  });
}
