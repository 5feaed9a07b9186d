/**
 * `select`: choose the recovery step R for the detected error step E with the configured strategy
 * (zero, error-minus-1, error-random, llm): phase 1 of the one recovery attempt
 * (packages/core/src/runtime/attempt.ts). Always yields 0 <= R <= E; an `llm` selector that fails falls back to
 * E-1 with the failure recorded. Implicit and guided recovery need no R (R = E).
 */
import { addUsage, bump } from "@retrace-cua/core/runtime/accounting";
import { chooseRecoveryStep } from "@retrace-cua/core/runtime/attempt";
import { taskSpec, type RuntimeContext } from "../context.ts";
import { withPrompts, type GraphState, type GraphUpdate } from "../state.ts";
import { ensureEnvironment } from "../resume.ts";
import { atCallSite } from "@retrace-cua/core/runtime/call-site";

export async function select(state: GraphState, ctx: RuntimeContext): Promise<GraphUpdate> {
  await ensureEnvironment(state, ctx);
  const pending = state.pending!;
  const errorStep = pending.errorStep;
  if (ctx.options.restoration === "implicit" || ctx.options.restoration === "guided")
    return { pending: { ...pending, recoveryStep: errorStep } };
  const instanceKey = `${state.task.id}/${ctx.options.seed}`;
  // The selector's call belongs to the step whose detection started this attempt.
  const site = {
    seq: state.steps[state.steps.length - 1]?.seq ?? 0,
    phase: "selector" as const,
    attempt: pending.attempt,
  };
  const selection = await chooseRecoveryStep(
    { events: ctx.events, taskId: state.task.id },
    {
      selector: ctx.selector,
      strategy: ctx.options.recoveryStep,
      task: taskSpec(state.task),
      history: state.history,
      errorStep,
      detection: pending.detection,
      instanceKey,
      seed: ctx.options.seed,
      blobs: ctx.components.blobs,
      signal: ctx.signal,
    },
    (fn) => atCallSite(site, fn),
  );
  const { fallback: _f, ...sel } = selection;
  return {
    pending: {
      ...pending,
      recoveryStep: sel.step,
      selection: {
        strategy: ctx.options.recoveryStep,
        reason: sel.reason,
        ...(sel.failure ? { failure: sel.failure } : {}),
      },
    },
    accounting: addUsage(
      selection.fallback ? bump(state.accounting, { selectorFallbacks: 1 }) : state.accounting,
      sel.usage,
      "selector",
    ),
    prompts: withPrompts(state.prompts, sel.prompt),
  };
}
