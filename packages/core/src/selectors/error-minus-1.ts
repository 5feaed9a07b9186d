/** `error-minus-1`: R = max(0, E - 1), one step before the detected error (paper Sec. 4). */
import type { RecoveryStepSelector, Selection, SelectorInput } from "../selector.ts";

/** Returns R = max(0, E - 1). */
export function createErrorMinusOneSelector(): RecoveryStepSelector {
  return {
    name: "error-minus-1",
    async select(input: SelectorInput): Promise<Selection> {
      const step = Math.max(0, input.errorStep - 1);
      return { step, reason: `R = E-1 = ${step} (E = ${input.errorStep})` };
    },
  };
}
