/**
 * The simulated recovery-step selector, standing in for the "llm" strategy: with probability
 * `accuracy` it returns the right step (the last on-track state at or before E), otherwise another
 * step in [0, E]. Draws come from (seed, task id, run seed, instance key, E, history length): the selector
 * input carries no tick, and the same question gets the same answer.
 */
import { createRng } from "@retrace-cua/core/rng";
import type { RecoveryStepSelector, Selection, SelectorInput } from "@retrace-cua/core/selector";
import type { SimDeskTask, SimGroundTruth } from "@retrace-cua/core/ground-truth";
import {
  SimSelectorOptionsSchema,
  formatParams,
  parseSimOptions,
  requireGroundTruth,
  requireTask,
  simulated,
  type Simulated,
} from "./options.ts";
import { correctRecoveryStep } from "./truth.ts";

/** Options of {@link createSimStepSelector}. */
export interface SimStepSelectorOptions {
  /** SimDesk's ground truth for the running environment. */
  groundTruth: SimGroundTruth;
  /** The task being run. */
  task: SimDeskTask;
  /** Seed of every draw. @default 0 */
  seed?: number | string;
  /** Probability of picking the right recovery step. @default 0.8 */
  accuracy?: number;
}

/** A seeded simulated selector; `label` describes its configuration for reports. */
export type SimStepSelector = Simulated<RecoveryStepSelector> & {
  /**
   * Probability of picking the right step (reports label the strategy `R=selector(sim, acc <accuracy>)`, never R=LLM).
   */
  readonly accuracy: number;
};

/** Create the simulated recovery-step selector for one SimDesk task. */
export function createSimStepSelector(options: SimStepSelectorOptions): SimStepSelector {
  const factory = "createSimStepSelector";
  const task = requireTask(factory, options?.task);
  const gt = requireGroundTruth(factory, options?.groundTruth);
  const { seed, accuracy } = parseSimOptions(factory, SimSelectorOptionsSchema, {
    seed: options.seed,
    accuracy: options.accuracy,
  });
  const label = `sim-selector(${formatParams({ seed, accuracy })})`;

  const select = async (input: SelectorInput): Promise<Selection> => {
    const e = Math.max(0, Math.min(input.errorStep, input.history.length));
    const right = Math.min(correctRecoveryStep(gt, task, input.history, e), e);
    const rng = createRng(seed, task.id, "sim-selector", input.seed, input.instanceKey, e, input.history.length);
    if (e === 0 || rng.chance(accuracy)) {
      return { step: right, reason: `simulated: step ${right} is the last on-track state at or before E=${e}` };
    }
    let wrong = rng.int(0, e - 1);
    if (wrong >= right) wrong += 1;
    return {
      step: wrong,
      reason: `simulated: picked step ${wrong} (the last on-track state before E=${e} is ${right})`,
    };
  };

  return simulated("sim-selector", label, { accuracy, select });
}
