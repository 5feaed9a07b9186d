/**
 * A plain on-policy rollout (no detector, no recovery): the policy proposes, the environment
 * executes, every step is recorded with the ground-truth state hash when the environment has one.
 * Also the perturbation rollout used to drift a trajectory off track.
 */
import { terminalOf } from "@retrace-cua/core/action";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { describeError } from "@retrace-cua/core/errors";
import type { Observation } from "@retrace-cua/core/observation";
import type { ForwardPolicy, HistoryEntry } from "@retrace-cua/core/policy";
import type { Task } from "@retrace-cua/core/task";
import { executeStep } from "../replay/replay.ts";
import type { RecordedState, RecordedStep } from "./types.ts";

/** Options of {@link rolloutPolicy}. */
export interface RolloutOptions {
  env: Environment;
  task: Task;
  policy: ForwardPolicy;
  blobs: BlobReader;
  /** Step budget. @default 30 */
  maxSteps?: number;
  /** Wait after each executed step before observing (packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
  signal?: AbortSignal;
}

/** A rollout's record. */
export interface RolloutResult {
  steps: RecordedStep[];
  final?: RecordedState;
  /** Task evaluator score (absent after an environment failure). */
  score?: number;
  envError?: string;
}

/** The state hash of a ground-truth environment, else undefined. */
export function stateHashOf(env: Environment): string | undefined {
  return env.capabilities.groundTruth && typeof env.stateHash === "function" ? env.stateHash() : undefined;
}

/** History entries for a policy from recorded steps (indices from `offset`). */
export function toHistory(steps: readonly RecordedStep[], offset = 0): HistoryEntry[] {
  return steps.map((s, i) => ({
    step: offset + i,
    observation: s.observation,
    actions: s.actions,
    response: s.response,
    memo: s.memo,
  }));
}

/** Run the policy from a reset until DONE/FAIL or the step budget; then evaluate. */
export async function rolloutPolicy(options: RolloutOptions): Promise<RolloutResult> {
  const { env, task, policy, blobs, signal } = options;
  const maxSteps = options.maxSteps ?? 30;
  const steps: RecordedStep[] = [];
  try {
    let obs = await env.reset(task);
    let hash = stateHashOf(env);
    for (let t = 0; t < maxSteps; t++) {
      signal?.throwIfAborted();
      const d = await policy.propose({
        task: { id: task.id, instruction: task.instruction },
        history: toHistory(steps),
        observation: obs,
        step: t,
        tick: t,
        blobs,
        signal,
      });
      steps.push({ observation: obs, stateHash: hash, actions: d.actions, response: d.response, memo: d.memo });
      const end = d.actions.findIndex((a) => a.type === "DONE" || a.type === "FAIL");
      const terminal = end >= 0;
      obs = await executeStep(env, terminal ? d.actions.slice(0, end) : d.actions, obs, {
        settleMs: options.settleMs,
        signal,
      });
      hash = stateHashOf(env);
      if (terminal) break;
    }
    const ev = await env.evaluate({ terminal: terminalOf(steps.map((s) => s.actions)) });
    return { steps, final: { observation: obs, stateHash: hash }, score: ev.score };
  } catch (err) {
    signal?.throwIfAborted();
    return { steps, envError: describeError(err) };
  }
}

/** Options of {@link perturb}. */
export interface PerturbOptions {
  env: Environment;
  task: Task;
  policy: ForwardPolicy;
  blobs: BlobReader;
  /** History before the perturbation (the ground-truth steps 0..t-1). */
  history: readonly RecordedStep[];
  /** The current (target) observation. */
  observation: Observation;
  /** Forward step index t of the first perturbation step. */
  startStep: number;
  /** Perturbation steps d. */
  steps: number;
  /** Wait after each executed step before observing (packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
  signal?: AbortSignal;
}

/**
 * Let a perturbation policy act for `steps` steps from the current state (terminal actions are recorded, not executed).
 */
export async function perturb(options: PerturbOptions): Promise<{ steps: RecordedStep[]; final: RecordedState }> {
  const { env, task, policy, blobs, signal } = options;
  const out: RecordedStep[] = [];
  let obs = options.observation;
  let hash = stateHashOf(env);
  for (let i = 0; i < options.steps; i++) {
    signal?.throwIfAborted();
    const step = options.startStep + i;
    const d = await policy.propose({
      task: { id: task.id, instruction: task.instruction },
      history: [...toHistory(options.history), ...toHistory(out, options.history.length)],
      observation: obs,
      step,
      tick: step,
      blobs,
      signal,
    });
    out.push({ observation: obs, stateHash: hash, actions: d.actions, response: d.response, memo: d.memo });
    obs = await executeStep(env, d.actions, obs, { settleMs: options.settleMs, signal });
    hash = stateHashOf(env);
  }
  return { steps: out, final: { observation: obs, stateHash: hash } };
}
