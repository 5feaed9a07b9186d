/** `zero`: R = 0, a full environment reset (the paper's restart baseline). */
import type { RecoveryStepSelector, Selection, SelectorInput } from "../selector.ts";

/** Always returns R = 0. */
export function createZeroSelector(): RecoveryStepSelector {
  return {
    name: "zero",
    async select(_input: SelectorInput): Promise<Selection> {
      return { step: 0, reason: "R = 0: restart from the initial state" };
    },
  };
}
