/**
 * The simulated recovery sub-agent: asks SimDesk's ground truth for the next restorative UI action
 * toward the target state and takes it with probability `skill`; otherwise it does something
 * plausible but wrong (a weak recoverer makes things worse), or declares the target restored too
 * early. Draws come from (seed, task id, input.tick).
 *
 * Response text: a step that takes the ground-truth restorative action starts with "restore:"
 * followed by what it restores; a wrong step starts with "continue:" (no restorative intent);
 * declarations start with "restored:" (true or false) or "give up:".
 */
import { formatAction } from "../../../src/action.ts";
import type { RecoveryDecision, RecoveryInput, RecoveryPolicy } from "../../../src/recovery.ts";
import { createRng } from "../../../src/rng.ts";
import type { SimGroundTruth } from "../../environments/simdesk/ground-truth.ts";
import { SimRecoveryOptionsSchema, formatParams, parseSimOptions, requireGroundTruth, requireStateId } from "./options.ts";
import { pickWrongAction } from "./perturbation.ts";

/** Options of {@link createSimRecoveryPolicy}. */
export interface SimRecoveryPolicyOptions {
  /** SimDesk's ground truth for the running environment. */
  groundTruth: SimGroundTruth;
  /** Probability (0..1) of taking the right restorative action at each step; see SIM_RECOVERER_SKILLED / SIM_RECOVERER_WEAK. */
  skill: number;
  /** Seed of every draw (combined with the task id and the episode tick). @default 0 */
  seed?: number | string;
  /** Probability per step of declaring the target restored while it is not. @default 0.25 * (1 - skill) */
  falseDoneRate?: number;
}

/** A seeded simulated recovery policy; `label` describes its configuration for reports. */
export interface SimRecoveryPolicy extends RecoveryPolicy {
  readonly simulated: true;
  readonly label: string;
}

/** What the recoverer writes into each recovery-history entry's memo. */
export type SimRecoveryMemo = {
  kind: "restore" | "wrong" | "restored" | "false-restored" | "give-up" | "flail";
};

/** Create the simulated recovery policy. */
export function createSimRecoveryPolicy(options: SimRecoveryPolicyOptions): SimRecoveryPolicy {
  const factory = "createSimRecoveryPolicy";
  const gt = requireGroundTruth(factory, options?.groundTruth);
  const parsed = parseSimOptions(factory, SimRecoveryOptionsSchema, { seed: options.seed, skill: options.skill, falseDoneRate: options.falseDoneRate });
  const { seed, skill } = parsed;
  const falseDoneRate = parsed.falseDoneRate ?? round(0.25 * (1 - skill));
  const label = `sim-recoverer(${formatParams({ seed, skill, falseDoneRate })})`;

  const decide = (input: RecoveryInput): RecoveryDecision => {
    const targetId = requireStateId(factory, input.target.observation.stateId, "the target observation");
    const rng = createRng(seed, input.task.id, "sim-recoverer", input.tick);
    const next = gt.nextRestorativeAction(targetId);
    if (next === null) {
      return { actions: [], restored: true, response: `restored: the current state matches target step ${input.target.step}`, memo: { kind: "restored" } };
    }
    if (next === "unreachable") {
      // A capable recoverer sees it cannot get back and stops; a weak one keeps poking at the UI.
      if (rng.chance(skill)) {
        return { actions: [], restored: true, response: `give up: target step ${input.target.step} cannot be restored through the UI`, memo: { kind: "give-up" } };
      }
      return wrong(input, rng, "flail");
    }
    if (rng.chance(falseDoneRate)) {
      return { actions: [], restored: true, response: `restored: believes target step ${input.target.step} is reached`, memo: { kind: "false-restored" } };
    }
    if (rng.chance(skill)) {
      return { actions: [next.action], response: `restore: ${next.rationale}: ${formatAction(next.action)}`, memo: { kind: "restore" } };
    }
    return wrong(input, rng, "wrong");
  };

  const wrong = (input: RecoveryInput, rng: ReturnType<typeof createRng>, kind: "wrong" | "flail"): RecoveryDecision => {
    const action = pickWrongAction(gt, rng.fork("wrong"), true);
    if (!action) return { actions: [{ type: "WAIT", seconds: 1 }], response: "continue: nothing to try, waiting", memo: { kind } };
    return { actions: [action], response: `continue: ${formatAction(action)}`, memo: { kind } };
  };

  return {
    name: "sim-recoverer",
    simulated: true,
    label,
    async propose(input) {
      return decide(input);
    },
  };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
