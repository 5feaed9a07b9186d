/**
 * Recovery-step selection by strategy, and the guarded call the runtime uses: whatever a selector
 * returns (or throws), the runtime gets a valid R in 0..E. An `llm` selector that fails falls back
 * to E-1, with the failure recorded.
 */
import { ConfigError, describeError } from "../errors.ts";
import { logger } from "../logger.ts";
import type { RecoveryStepSelector, RecoveryStepStrategy, Selection, SelectorInput } from "../selector.ts";
import { createErrorMinusOneSelector } from "./error-minus-1.ts";
import { createErrorRandomSelector } from "./error-random.ts";
import { createZeroSelector } from "./zero.ts";

/** The selector for a strategy; `llm` needs the injected model-backed selector. */
export function createStepSelector(strategy: RecoveryStepStrategy, llm?: RecoveryStepSelector): RecoveryStepSelector {
  switch (strategy) {
    case "zero":
      return createZeroSelector();
    case "error-minus-1":
      return createErrorMinusOneSelector();
    case "error-random":
      return createErrorRandomSelector();
    case "llm":
      if (!llm)
        throw new ConfigError('recoveryStep: "llm" needs components.selector (a model-backed RecoveryStepSelector)', {
          field: "recoveryStep",
        });
      return llm;
    default:
      throw new ConfigError(`recoveryStep: unknown strategy "${String(strategy)}"`, { field: "recoveryStep" });
  }
}

/** Call a selector and return a valid R in 0..E; on a throw or an invalid step fall back to E-1. */
export async function guardedSelect(
  selector: RecoveryStepSelector,
  input: SelectorInput,
): Promise<Selection & { fallback: boolean }> {
  const fallback = (failure: string, extra?: Partial<Selection>): Selection & { fallback: boolean } => {
    logger.warn(
      { selector: selector.name, task: input.task.id, errorStep: input.errorStep, failure },
      "selector failed; using R = E-1",
    );
    const step = Math.max(0, input.errorStep - 1);
    return { ...extra, step, reason: `fallback R = E-1 = ${step}`, failure, fallback: true };
  };
  let sel: Selection;
  try {
    sel = await selector.select(input);
  } catch (err) {
    return fallback(describeError(err));
  }
  if (!sel || typeof sel !== "object") return fallback("selector returned no selection");
  const extra = {
    usage: Array.isArray(sel.usage) ? sel.usage : undefined,
    prompt: typeof sel.prompt === "string" ? sel.prompt : undefined,
  };
  if (sel.failure) return fallback(String(sel.failure), extra);
  if (typeof sel.step !== "number" || !Number.isInteger(sel.step) || sel.step < 0 || sel.step > input.errorStep) {
    return fallback(`selected step ${String(sel.step)} is outside 0..${input.errorStep}`, extra);
  }
  return { ...sel, reason: typeof sel.reason === "string" ? sel.reason : "", fallback: false };
}
