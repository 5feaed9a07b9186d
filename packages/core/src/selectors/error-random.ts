/**
 * `error-random`: a uniformly sampled past step before the error, R in 0..E-1 (R = 0 when E = 0).
 * The draw is seeded by (seed, instanceKey, E), so every run of the same task instance that blames
 * the same error step gets the same R (paper App. B.1: "reuses the same sampled step across runs
 * for that instance").
 */
import { createRng } from "../rng.ts";
import type { RecoveryStepSelector, Selection, SelectorInput } from "../selector.ts";

/** The seeded draw itself, exposed for reports that want to show it. */
export function errorRandomStep(seed: number, instanceKey: string, errorStep: number): number {
  if (errorStep <= 0) return 0;
  return createRng(seed, "error-random", instanceKey, errorStep).int(0, errorStep - 1);
}

/** Returns a seeded uniform R in 0..E-1, the same for every run of the instance. */
export function createErrorRandomSelector(): RecoveryStepSelector {
  return {
    name: "error-random",
    async select(input: SelectorInput): Promise<Selection> {
      const step = errorRandomStep(input.seed, input.instanceKey, input.errorStep);
      return {
        step,
        reason: `R = E-random = ${step} (uniform in 0..${Math.max(0, input.errorStep - 1)}, seed ${input.seed}, instance ${input.instanceKey})`,
      };
    },
  };
}
