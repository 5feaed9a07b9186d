/**
 * One recovery attempt from a reconstructed error state, for at most r steps: implicit (the
 * forward policy continues with the history up to the error state) or explicit (a recovery policy
 * with the target observation and a recovery context).
 */
import type { Action } from "@retrace-cua/core/action";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import type { ForwardPolicy, HistoryEntry } from "@retrace-cua/core/policy";
import type { RecoveryContext, RecoveryContextKind, RecoveryPolicy, Summarizer } from "@retrace-cua/core/recovery";
import type { Task } from "@retrace-cua/core/task";
import type { RecoverySample } from "../dataset/types.ts";
import { toHistory } from "../dataset/rollout.ts";
import { executeStep } from "../replay/replay.ts";

/** What a recovery attempt did. */
export interface RecoveryEpisode {
  /** The observation of the recovered state. */
  recovered: Observation;
  /** Steps taken (policy decisions, including a final declaration). */
  steps: number;
  actions: Action[][];
  rationales: (string | undefined)[];
  /** Implicit: the policy said DONE/FAIL; explicit: it declared the target restored. */
  declaredDone: boolean;
}

interface EpisodeInput {
  env: Environment;
  task: Task;
  sample: RecoverySample;
  budget: number;
  errorObs: Observation;
  blobs: BlobReader;
  /** Wait after each executed step before observing (packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
  signal?: AbortSignal;
}

/**
 * The history up to the error state (0-E, as the paper defines it for recovery evaluation):
 * ground-truth steps 0..t-1, then the perturbation steps as bare observation-action pairs (the
 * perturbation agent's text and memo would tell the recoverer what went wrong).
 */
export function historyToError(sample: RecoverySample): HistoryEntry[] {
  const perturbation = sample.perturbation.map((s) => ({
    observation: s.observation,
    stateHash: s.stateHash,
    actions: s.actions,
  }));
  return toHistory([...sample.trajectory.steps.slice(0, sample.targetStep), ...perturbation]);
}

/** The history up to the target state (0-R): ground-truth steps 0..t-1. */
export function historyToTarget(sample: RecoverySample): HistoryEntry[] {
  return toHistory(sample.trajectory.steps.slice(0, sample.targetStep));
}

/** Implicit recovery: the forward policy, unchanged, continues from the error state. */
export async function runImplicit(input: EpisodeInput & { policy: ForwardPolicy }): Promise<RecoveryEpisode> {
  const { env, task, sample, policy, blobs, signal } = input;
  const history = historyToError(sample);
  const start = history.length;
  let obs = input.errorObs;
  const actions: Action[][] = [];
  const rationales: (string | undefined)[] = [];
  for (let i = 0; i < input.budget; i++) {
    signal?.throwIfAborted();
    const d = await policy.propose({
      task: { id: task.id, instruction: task.instruction },
      history,
      observation: obs,
      step: start + i,
      tick: start + i,
      blobs,
      signal,
    });
    actions.push(d.actions);
    rationales.push(d.response);
    if (d.actions.some((a) => a.type === "DONE" || a.type === "FAIL"))
      return { recovered: obs, steps: i + 1, actions, rationales, declaredDone: true };
    const before = obs;
    obs = await executeStep(env, d.actions, obs, { settleMs: input.settleMs, signal });
    history.push({ step: start + i, observation: before, actions: d.actions, response: d.response, memo: d.memo });
  }
  return { recovered: obs, steps: input.budget, actions, rationales, declaredDone: false };
}

/** Build the explicit recovery context of a sample. */
export async function recoveryContextFor(
  sample: RecoverySample,
  task: Task,
  kind: RecoveryContextKind,
  blobs: BlobReader,
  summarizer?: Summarizer,
  signal?: AbortSignal,
): Promise<RecoveryContext> {
  switch (kind) {
    case "0-E":
      return { kind, history: historyToError(sample) };
    case "0-R":
      return { kind, history: historyToTarget(sample) };
    case "none":
      return { kind, history: [] };
    case "contextualized": {
      const s = await summarizer!.summarize({
        task: { id: task.id, instruction: task.instruction },
        history: historyToTarget(sample),
        target: { step: sample.targetStep, observation: sample.target.observation },
        blobs,
        signal,
      });
      return { kind, history: [], summary: s.summary };
    }
  }
}

/** Explicit recovery: a recovery policy acts toward the target for at most `budget` steps. */
export async function runExplicit(
  input: EpisodeInput & { recoverer: RecoveryPolicy; context: RecoveryContextKind; summarizer?: Summarizer },
): Promise<RecoveryEpisode> {
  const { env, task, sample, recoverer, blobs, signal } = input;
  const context = await recoveryContextFor(sample, task, input.context, blobs, input.summarizer, signal);
  const tick0 = sample.targetStep + sample.perturbation.length;
  const recoveryHistory: HistoryEntry[] = [];
  let obs = input.errorObs;
  const actions: Action[][] = [];
  const rationales: (string | undefined)[] = [];
  for (let i = 0; i < input.budget; i++) {
    signal?.throwIfAborted();
    const d = await recoverer.propose({
      task: { id: task.id, instruction: task.instruction },
      target: { step: sample.targetStep, observation: sample.target.observation },
      errorStep: sample.targetStep,
      context,
      recoveryHistory,
      observation: obs,
      budget: { used: i, max: input.budget },
      tick: tick0 + i,
      blobs,
      signal,
    });
    actions.push(d.actions);
    rationales.push(d.response);
    const before = obs;
    obs = await executeStep(env, d.actions, obs, { settleMs: input.settleMs, signal });
    recoveryHistory.push({ step: i, observation: before, actions: d.actions, response: d.response, memo: d.memo });
    if (d.restored) return { recovered: obs, steps: i + 1, actions, rationales, declaredDone: true };
  }
  return { recovered: obs, steps: input.budget, actions, rationales, declaredDone: false };
}
