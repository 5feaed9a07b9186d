/**
 * The simulated recovery sub-agent: asks SimDesk's ground truth for the next restorative UI action
 * toward the target state and takes it with probability `skill`; otherwise it does something
 * plausible but wrong (a weak recoverer makes things worse), or declares the target restored too
 * early. With `harmRate`, some wrong steps are destructive (harm.ts) and may be followed at once by a
 * false "restored" claim (`assumeRestoredRate`). Draws come from (seed, task id, input.tick).
 *
 * Response text: a step that takes the ground-truth restorative action starts with "restore:"
 * followed by what it restores; a wrong step starts with "continue:" (no restorative intent);
 * declarations start with "restored:" (true or false) or "give up:".
 *
 * The recovery context matters (`contextEffects`, seeded like every draw): the recoverer reads
 * what its context actually contains. Seeing the wrong actions (history past the target, as 0-E
 * gives) lets it undo them at its full `skill`; without them (0-R, none, contextualized) it must
 * infer what went wrong from the screen (skill x `errorInference`). Seeing the path to the target
 * (0-E, 0-R) tells it what the target is; a summary instead of the path (contextualized) loses
 * some of that (x `summaryFidelity`); the target screenshot alone (none) leaves it guessing
 * (x `targetInference`, and its false "restored" rate x `blindFalseDone`).
 */
import { formatAction, type Action } from "@retrace-cua/core/action";
import type { RecoveryDecision, RecoveryInput, RecoveryPolicy } from "@retrace-cua/core/recovery";
import { createRng } from "@retrace-cua/core/rng";
import type { SimDeskTask, SimGroundTruth } from "@retrace-cua/core/ground-truth";
import { planPositionOf } from "./forward.ts";
import { planIndexOf } from "./truth.ts";
import {
  SimRecoveryOptionsSchema,
  formatParams,
  parseSimOptions,
  requireGroundTruth,
  requireStateId,
  requireTask,
  round3 as round,
  simulated,
  type Simulated,
} from "./options.ts";
import { pickWrongAction } from "./perturbation.ts";
import { pickHarmfulMove, type HarmKind } from "./harm.ts";
import { SIMDESK_TASKS } from "../tasks/index.ts";

/** Options of {@link createSimRecoveryPolicy}. */
export interface SimRecoveryPolicyOptions {
  /** SimDesk's ground truth for the running environment. */
  groundTruth: SimGroundTruth;
  /**
   * Probability (0..1) of taking the right restorative action at each step; see SIM_RECOVERER_SKILLED /
   * SIM_RECOVERER_WEAK.
   */
  skill: number;
  /** Seed of every draw (combined with the task id and the episode tick). @default 0 */
  seed?: number | string;
  /** Probability per step of declaring the target restored while it is not. @default 0.25 * (1 - skill) */
  falseDoneRate?: number;
  /**
   * The task being run. With it, a wrong step is, with probability `forwardBias`, the task's next
   * plan action instead of a restorative one: the one-directional task-completion habit the paper
   * finds in weak recoverers (steps the forward policy will then repeat after truncation).
   */
  task?: SimDeskTask;
  /** Share of wrong steps that continue the task (needs `task`). @default 0.5 */
  forwardBias?: number;
  /**
   * Share of wrong steps that are destructive to task-relevant state (see harm.ts: over-undo past
   * the target, closing a document without saving, select-all + delete, flipping a setting): the
   * weak recoverer that actively derails the trajectory (paper Sections 6.2/6.3). With probability
   * `harmRate * (1 - skill)` it also acts destructively in a state that already matches the target
   * (spurious perception) instead of declaring it restored. @default 0
   */
  harmRate?: number;
  /**
   * Probability that, right after a destructive step, the recoverer declares the target restored
   * (a state-tracking failure: it assumes its action put things back), so the forward policy,
   * whose history is truncated to R, carries on as if the state were s_R. @default 0
   */
  assumeRestoredRate?: number;
  /**
   * Probability per attempt of over-undoing (uses `task`, else the SimDesk task with the input's id): the recoverer
   * misjudges where the
   * error began, restores 1-3 plan steps PAST the target (undoing good progress with the ground
   * truth's own restorative actions: undo typing, toggle back, restore from Trash...) and then
   * declares the target restored. The forward policy, truncated to R, carries on as if the state
   * were s_R. @default 0
   */
  overUndoRate?: number;
  /**
   * How the recovery context changes the recoverer (see the file header); each factor multiplies
   * `skill` when its information is missing from the context.
   * @default { errorInference: 0.75, targetInference: 0.7, summaryFidelity: 0.9, blindFalseDone: 2 }
   */
  contextEffects?: Partial<SimContextEffects>;
}

/** Context effects that change nothing: the recoverer acts at its `skill` whatever it is shown. */
export const SIM_CONTEXT_NEUTRAL: Readonly<SimContextEffects> = Object.freeze({
  errorInference: 1,
  targetInference: 1,
  summaryFidelity: 1,
  blindFalseDone: 1,
});

/** The context knobs of the simulated recoverer. */
export interface SimContextEffects {
  /** Skill factor when the context does not show the wrong actions (no history past the target). @default 0.75 */
  errorInference: number;
  /** Skill factor when the context shows neither the path to the target nor a summary (only o_R). @default 0.7 */
  targetInference: number;
  /** Skill factor when the path to the target comes as a summary instead of the steps. @default 0.9 */
  summaryFidelity: number;
  /** Factor on the false "restored" rate when the context shows neither path nor summary. @default 2 */
  blindFalseDone: number;
}

/** What a recovery context shows the simulated recoverer, and the skill and false-done rate that follow. */
export function contextView(
  input: Pick<RecoveryInput, "context" | "target">,
  skill: number,
  falseDoneRate: number,
  effects: SimContextEffects,
): { wrongActions: boolean; path: "steps" | "summary" | "none"; skill: number; falseDoneRate: number } {
  const seen = input.context.history.length;
  const wrongActions = seen > input.target.step;
  const path =
    input.target.step === 0 || seen >= input.target.step ? "steps" : input.context.summary?.trim() ? "summary" : "none";
  let k = skill * (wrongActions ? 1 : effects.errorInference);
  if (path === "summary") k *= effects.summaryFidelity;
  if (path === "none") k *= effects.targetInference;
  const fd = path === "none" ? Math.min(1, falseDoneRate * effects.blindFalseDone) : falseDoneRate;
  return { wrongActions, path, skill: round(k), falseDoneRate: round(fd) };
}

/** A seeded simulated recovery policy; `label` describes its configuration for reports. */
export type SimRecoveryPolicy = Simulated<RecoveryPolicy>;

/** What the recoverer writes into each recovery-history entry's memo. */
export type SimRecoveryMemo = {
  kind: "restore" | "wrong" | "restored" | "false-restored" | "give-up" | "flail" | "harm" | "over-undo";
  /** For `kind: "over-undo"`: the plan index the recoverer (wrongly) restores to. */
  overshoot?: number;
  /** The destructive move, for `kind: "harm"`. */
  harm?: HarmKind;
};

/** Create the simulated recovery policy. */
export function createSimRecoveryPolicy(options: SimRecoveryPolicyOptions): SimRecoveryPolicy {
  const factory = "createSimRecoveryPolicy";
  const gt = requireGroundTruth(factory, options?.groundTruth);
  const parsed = parseSimOptions(factory, SimRecoveryOptionsSchema, {
    seed: options.seed,
    skill: options.skill,
    falseDoneRate: options.falseDoneRate,
    forwardBias: options.forwardBias,
    harmRate: options.harmRate,
    assumeRestoredRate: options.assumeRestoredRate,
    overUndoRate: options.overUndoRate,
    contextEffects: options.contextEffects,
  });
  const task = options.task === undefined ? undefined : requireTask(factory, options.task);
  const { seed, skill } = parsed;
  const falseDoneRate = parsed.falseDoneRate ?? round(0.25 * (1 - skill));
  const forwardBias = task ? parsed.forwardBias : undefined;
  const harmRate = parsed.harmRate > 0 ? parsed.harmRate : undefined;
  const assumeRestoredRate = harmRate ? parsed.assumeRestoredRate : undefined;
  const overUndoRate = parsed.overUndoRate > 0 ? parsed.overUndoRate : undefined;
  /**
   * The task for over-undo: the given one, else the SimDesk task with the input's id (the recoverer knows its task).
   */
  const taskOf = (input: RecoveryInput): SimDeskTask | undefined =>
    task?.id === input.task.id ? task : SIMDESK_TASKS.find((t) => t.id === input.task.id);
  const effects = parsed.contextEffects as SimContextEffects;
  const label = `sim-recoverer(${formatParams({ seed, skill, falseDoneRate, forwardBias, harmRate, assumeRestoredRate, overUndoRate })}; context: ${formatParams({ ...effects })})`;

  const decide = (input: RecoveryInput): RecoveryDecision => {
    const view = contextView(input, skill, falseDoneRate, effects);
    const targetId = requireStateId(factory, input.target.observation.stateId, "the target observation");
    const rng = createRng(seed, input.task.id, "sim-recoverer", input.tick);
    const over = overUndo(input, targetId);
    if (over) return over;
    const next = gt.nextRestorativeAction(targetId);
    if (next === null) {
      // Spurious perception: a weak recoverer "sees" a problem in a state that already matches the target and acts on
      // it.
      if (harmRate !== undefined && rng.fork("spurious").chance(harmRate * (1 - view.skill)))
        return harmful(input, rng);
      return {
        actions: [],
        restored: true,
        response: `restored: the current state matches target step ${input.target.step}`,
        memo: { kind: "restored" },
      };
    }
    if (next === "unreachable") {
      // A capable recoverer sees it cannot get back and stops; a weak one keeps poking at the UI.
      if (rng.chance(view.skill)) {
        return {
          actions: [],
          restored: true,
          response: `give up: target step ${input.target.step} cannot be restored through the UI`,
          memo: { kind: "give-up" },
        };
      }
      return wrong(input, rng, "flail");
    }
    if (rng.chance(view.falseDoneRate)) {
      return {
        actions: [],
        restored: true,
        response: `restored: believes target step ${input.target.step} is reached`,
        memo: { kind: "false-restored" },
      };
    }
    if (rng.chance(view.skill)) {
      return {
        actions: [next.action],
        response: `restore: ${next.rationale}: ${formatAction(next.action)}`,
        memo: { kind: "restore" },
      };
    }
    return wrong(input, rng, "wrong");
  };

  /**
   * An over-undoing attempt: decided on the attempt's first step (seeded by the episode tick) and
   * remembered in the memos of its steps. Each step takes the ground truth's restorative action
   * toward the overshoot state; once there (or when it cannot be reached) it claims the target.
   */
  const overUndo = (input: RecoveryInput, targetId: string): RecoveryDecision | null => {
    if (overUndoRate === undefined) return null;
    const task = taskOf(input);
    if (!task) return null;
    let to: number | undefined;
    if (input.recoveryHistory.length === 0) {
      const rng = createRng(seed, input.task.id, "sim-recoverer-overshoot", input.tick);
      const k = planIndexOf(gt, task, targetId);
      if (k <= 0 || !rng.chance(overUndoRate)) return null;
      to = k - rng.int(1, Math.min(3, k));
    } else {
      const memo = input.recoveryHistory[0].memo as SimRecoveryMemo | undefined;
      if (memo?.kind !== "over-undo" || typeof memo.overshoot !== "number") return null;
      to = memo.overshoot;
    }
    const claim = `restored: believes target step ${input.target.step} is reached (it over-undid to plan step ${to})`;
    const next = gt.nextRestorativeAction(gt.referenceStates(task)[to]);
    if (next === null || next === "unreachable")
      return { actions: [], restored: true, response: claim, memo: { kind: "over-undo", overshoot: to } };
    return {
      actions: [next.action],
      response: `restore: ${next.rationale} (past the target, to plan step ${to}): ${formatAction(next.action)}`,
      memo: { kind: "over-undo", overshoot: to },
    };
  };

  /**
   * The plan action the forward agent would take next: at the current state's plan index, else where its history says.
   */
  const taskStep = (input: RecoveryInput, targetId: string): { k: number; action: Action } | null => {
    if (!task) return null;
    const cur = input.observation.stateId;
    let k = cur ? planIndexOf(gt, task, cur) : -1;
    if (k < 0)
      k = input.context.history.length > 0 ? planPositionOf(input.context.history) : planIndexOf(gt, task, targetId);
    return k >= 0 && k < task.plan.length ? { k, action: task.plan[k] } : null;
  };

  /** A destructive move (harm.ts), claimed as the restoration with probability `assumeRestoredRate`. */
  const harmful = (input: RecoveryInput, rng: ReturnType<typeof createRng>): RecoveryDecision => {
    const move = pickHarmfulMove(input.observation, rng.fork("harm-move"));
    const text = `${move.what}: ${move.actions.map(formatAction).join(" ")}`;
    if (rng.fork("assume").chance(assumeRestoredRate ?? 0)) {
      return {
        actions: move.actions,
        restored: true,
        response: `restored: ${text}; believes target step ${input.target.step} is reached`,
        memo: { kind: "harm", harm: move.kind },
      };
    }
    return { actions: move.actions, response: `continue: ${text}`, memo: { kind: "harm", harm: move.kind } };
  };

  const wrong = (
    input: RecoveryInput,
    rng: ReturnType<typeof createRng>,
    kind: "wrong" | "flail",
  ): RecoveryDecision => {
    if (harmRate !== undefined && rng.fork("harm").chance(harmRate)) return harmful(input, rng);
    if (forwardBias !== undefined && rng.fork("bias").chance(forwardBias)) {
      const step = taskStep(input, input.target.observation.stateId!);
      if (step)
        return {
          actions: [step.action],
          response: `continue: task step ${step.k}: ${formatAction(step.action)}`,
          memo: { kind },
        };
    }
    const action = pickWrongAction(gt, rng.fork("wrong"), true);
    if (!action)
      return { actions: [{ type: "WAIT", seconds: 1 }], response: "continue: nothing to try, waiting", memo: { kind } };
    return { actions: [action], response: `continue: ${formatAction(action)}`, memo: { kind } };
  };

  return simulated("sim-recoverer", label, { propose: async (input: RecoveryInput) => decide(input) });
}
