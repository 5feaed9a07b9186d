/**
 * A bare episode loop for testing the simulated agents against the real SimDesk (the recovery
 * runtime lives in packages/graphs/src/ and is tested there): propose, execute, append to history.
 */
import type { Action } from "../../../../packages/core/src/action.ts";
import type { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import type { Observation } from "../../../../packages/core/src/observation.ts";
import type { ForwardPolicy, HistoryEntry } from "../../../../packages/core/src/policy.ts";
import type { RecoveryPolicy } from "../../../../packages/core/src/recovery.ts";
import type { SimDesk, SimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";

/**
 * The fast path: SimDesk's `apply` without rendering. The observation carries the true stateId and
 * the visible-state hash in place of a screenshot reference (no accessibility tree). Enough for the
 * components that read only ground truth (recoverer, detector, selector, perturber) and for the
 * forward policy when it need not see widgets.
 */
export function fastObservation(env: SimDesk, visible = true): Observation {
  const stateId = env.currentStateId();
  return { screenshot: visible ? env.visibleHash() : stateId, width: env.width, height: env.height, stateId };
}

/** Execute one action, rendering or not. */
export async function act(env: SimDesk, a: Action, render: boolean, visible = true): Promise<Observation> {
  if (render) return (await env.step(a)).observation;
  env.apply(a);
  return fastObservation(env, visible);
}

const initialOf = new WeakMap<SimDesk, { task: SimDeskTask; stateId: string }>();

/**
 * Reset to the task's initial state, rendering or not. Without rendering, a repeat start of the
 * task the env was last reset to only reloads the stored initial state (reset renders a PNG).
 */
export async function start(env: SimDesk, task: SimDeskTask, render: boolean): Promise<Observation> {
  const last = initialOf.get(env);
  if (!render && last?.task === task) {
    env.setState(env.loadState(last.stateId));
    return fastObservation(env);
  }
  const o = await env.reset(task);
  initialOf.set(env, { task, stateId: env.currentStateId() });
  return render ? o : fastObservation(env);
}

export interface ForwardRun {
  history: HistoryEntry[];
  observation: Observation;
  score: number;
  /** Ticks used. */
  ticks: number;
  declaredDone: boolean;
}

/** Run a forward policy from the task's initial state (or from `start`) until DONE or `maxSteps`. */
export async function runForward(
  env: SimDesk,
  blobs: BlobStore,
  task: SimDeskTask,
  policy: ForwardPolicy,
  opts: {
    maxSteps?: number;
    tick0?: number;
    render?: boolean;
    from?: { history: HistoryEntry[]; observation: Observation };
  } = {},
): Promise<ForwardRun> {
  const render = opts.render ?? true;
  const history: HistoryEntry[] = opts.from ? [...opts.from.history] : [];
  let observation = opts.from ? opts.from.observation : await start(env, task, render);
  let tick = opts.tick0 ?? 0;
  let declaredDone = false;
  const maxSteps = opts.maxSteps ?? task.plan.length * 2 + 5;
  while (history.length < maxSteps) {
    const d = await policy.propose({
      task: { id: task.id, instruction: task.instruction },
      history,
      observation,
      step: history.length,
      tick,
      blobs,
    });
    tick++;
    const entry: HistoryEntry = {
      step: history.length,
      observation,
      actions: d.actions,
      response: d.response,
      memo: d.memo,
    };
    history.push(entry);
    if (d.actions.some((a) => a.type === "DONE" || a.type === "FAIL")) {
      declaredDone = true;
      break;
    }
    for (const a of d.actions) observation = await act(env, a, render);
  }
  return { history, observation, score: (await env.evaluate()).score, ticks: tick, declaredDone };
}

/** Bring the env to the state after plan steps 0..k-1 of a fresh reset and return that observation. */
export async function playPlan(
  env: SimDesk,
  task: SimDeskTask,
  k: number,
  render = true,
): Promise<{ history: HistoryEntry[]; observation: Observation }> {
  let observation = await start(env, task, render);
  const history: HistoryEntry[] = [];
  for (let i = 0; i < k; i++) {
    history.push({ step: i, observation, actions: [task.plan[i]], memo: { plan: i, next: i + 1, kind: "plan" } });
    observation = await act(env, task.plan[i], render);
  }
  return { history, observation };
}

/** One recovery attempt within `budget` steps; true when the final state matches the target semantically. */
export async function recoveryAttempt(
  env: SimDesk,
  blobs: BlobStore,
  task: SimDeskTask,
  recoverer: RecoveryPolicy,
  target: { step: number; observation: Observation },
  current: Observation,
  opts: { budget?: number; tick0?: number; errorStep?: number; render?: boolean } = {},
): Promise<{ restored: boolean; declared: boolean; steps: number; responses: string[] }> {
  const budget = opts.budget ?? 10;
  const recoveryHistory: HistoryEntry[] = [];
  let observation = current;
  let declared = false;
  const responses: string[] = [];
  for (let used = 0; used < budget; used++) {
    const d = await recoverer.propose({
      task: { id: task.id, instruction: task.instruction },
      target,
      errorStep: opts.errorStep ?? target.step,
      context: { kind: "none", history: [] },
      recoveryHistory,
      observation,
      budget: { used, max: budget },
      tick: (opts.tick0 ?? 0) + used,
      blobs,
    });
    responses.push(d.response ?? "");
    if (d.restored) {
      declared = true;
      break;
    }
    recoveryHistory.push({ step: used, observation, actions: d.actions, response: d.response, memo: d.memo });
    // The recoverer reads only stateIds: skip the visible hash on the fast path.
    for (const a of d.actions as Action[]) observation = await act(env, a, opts.render ?? false, false);
  }
  const restored = env.semanticHash(observation.stateId!) === env.semanticHash(target.observation.stateId!);
  return { restored, declared, steps: recoveryHistory.length, responses };
}
