/**
 * The simulated perturbation policy: drifts a trajectory off track, one plausible wrong action per
 * step (state-changing ones preferred), for building recovery-evaluation sets of distance d: the
 * runner calls it d times. Draws come from (seed, task id, input.tick).
 */
import { formatAction, type Action } from "@retrace-cua/core/action";
import type { ForwardPolicy, PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import { createRng, type Rng } from "@retrace-cua/core/rng";
import type { SimGroundTruth } from "@retrace-cua/core/ground-truth";
import {
  SimPerturbationOptionsSchema,
  formatParams,
  parseSimOptions,
  requireGroundTruth,
  simulated,
  type Simulated,
} from "./options.ts";

/** Options of {@link createSimPerturbationPolicy}. */
export interface SimPerturbationPolicyOptions {
  /** SimDesk's ground truth for the running environment (its plausible wrong actions). */
  groundTruth: SimGroundTruth;
  /** Seed of every draw (combined with the task id and the episode tick). @default 0 */
  seed?: number | string;
  /** Pick among state-changing actions (clicks, typing, keys) when there are any. @default true */
  preferStateChanging?: boolean;
}

/** A seeded simulated perturbation policy. */
export type SimPerturbationPolicy = Simulated<ForwardPolicy>;

const PASSIVE: ReadonlySet<Action["type"]> = new Set<Action["type"]>([
  "MOVE_TO",
  "WAIT",
  "SCROLL",
  "MOUSE_UP",
  "KEY_UP",
  "DONE",
  "FAIL",
]);

/** Whether an action can change the desktop's state (not just the pointer or the view). */
export function isStateChanging(a: Action): boolean {
  return !PASSIVE.has(a.type);
}

/**
 * One of the ground truth's plausible wrong actions in the current state (state-changing first); null when there are
 * none.
 */
export function pickWrongAction(gt: SimGroundTruth, rng: Rng, preferStateChanging: boolean): Action | null {
  const all = gt.plausibleWrongActions(rng.fork("candidates")).filter((a) => a.type !== "DONE" && a.type !== "FAIL");
  if (all.length === 0) return null;
  const changing = all.filter(isStateChanging);
  return rng.pick(preferStateChanging && changing.length > 0 ? changing : all);
}

/** Create the simulated perturbation policy. */
export function createSimPerturbationPolicy(options: SimPerturbationPolicyOptions): SimPerturbationPolicy {
  const factory = "createSimPerturbationPolicy";
  const gt = requireGroundTruth(factory, options?.groundTruth);
  const { seed, preferStateChanging } = parseSimOptions(factory, SimPerturbationOptionsSchema, {
    seed: options.seed,
    preferStateChanging: options.preferStateChanging,
  });
  const label = `sim-perturber(${formatParams({ seed, preferStateChanging })})`;
  const propose = async (input: PolicyInput): Promise<PolicyDecision> => {
    const rng = createRng(seed, input.task.id, "sim-perturber", input.tick);
    const action = pickWrongAction(gt, rng, preferStateChanging);
    if (!action)
      return {
        actions: [{ type: "WAIT", seconds: 1 }],
        response: "perturb: no wrong action available, waiting",
        memo: { kind: "perturb" },
      };
    return { actions: [action], response: `perturb: ${formatAction(action)}`, memo: { kind: "perturb" } };
  };
  return simulated("sim-perturber", label, { propose });
}
