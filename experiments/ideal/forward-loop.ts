/**
 * A plain forward rollout (no detector, no recovery) that keeps the policy's full history,
 * memos included, plus action-prefix replay. The ideal-recovery experiment (Appendix B.1) needs
 * both: standard rollouts to find failures, and continuations that resume the forward policy
 * from a past state rebuilt by replaying the saved prefix.
 */
import { isTerminal } from "../../src/action.ts";
import type { BlobStore } from "../../src/blob-store.ts";
import type { EpisodeAccounting, EpisodeResult, StopReason } from "../../src/episode.ts";
import type { Environment } from "../../src/environment.ts";
import { EnvironmentError, describeError } from "../../src/errors.ts";
import type { Observation } from "../../src/observation.ts";
import type { ForwardPolicy, HistoryEntry } from "../../src/policy.ts";
import type { Task } from "../../src/task.ts";
import type { StepRecord, Trajectory, TrajectoryEvent } from "../../src/trajectory.ts";

/** A forward rollout's record, with the history the policy saw (for a later replay). */
export interface ForwardRun {
  result: EpisodeResult;
  history: HistoryEntry[];
  final: Observation;
}

/** Options of {@link rollForward}. */
export interface RollForwardOptions {
  env: Environment;
  policy: ForwardPolicy;
  task: Task;
  blobs: BlobStore;
  seed: number;
  /** Forward step budget, counting replayed prefix steps. @default 50 */
  maxForwardSteps?: number;
  /** Saved history to replay first (entries 0..R-1); empty = start from the initial state. */
  prefix?: readonly HistoryEntry[];
  /** Replay attempts before giving up with an EnvironmentError. @default 3 */
  replayRetries?: number;
  /** Equality of two observations' true states; defaults to equal screenshots. */
  sameState?: (a: Observation, b: Observation) => boolean;
  /** The observation the prefix should end in (o_R of the saved run), checked after replay. */
  expected?: Observation;
}

/** Reset, replay the prefix (verified), then run the forward policy until it stops. */
export async function rollForward(o: RollForwardOptions): Promise<ForwardRun> {
  const t0 = Date.now();
  const maxSteps = o.maxForwardSteps ?? 50;
  const prefix = o.prefix ?? [];
  const steps: StepRecord[] = [];
  const events: TrajectoryEvent[] = [];
  const acc: EpisodeAccounting = { forwardSteps: 0, recoverySteps: 0, replaySteps: 0, recoveryAttempts: 0, detectorCalls: 0, detectorFailures: 0, frozenSkipped: 0, policyFailures: 0, models: {}, envMs: 0, wallMs: 0 };
  const timed = async <T>(f: () => Promise<T>): Promise<T> => {
    const s = Date.now();
    try {
      return await f();
    } catch (err) {
      if (err instanceof EnvironmentError) throw err;
      throw new EnvironmentError(`environment failed: ${describeError(err)}`, { cause: err });
    } finally {
      acc.envMs += Date.now() - s;
    }
  };

  let observation!: Observation;
  let history: HistoryEntry[] = [];
  const tries = Math.max(1, o.replayRetries ?? 3);
  for (let attempt = 1; ; attempt++) {
    steps.length = 0;
    observation = await timed(() => o.env.reset(o.task));
    history = [];
    for (const entry of prefix) {
      history.push({ ...entry, observation });
      const before = observation;
      for (const action of entry.actions) observation = (await timed(() => o.env.step(action))).observation;
      steps.push({ seq: steps.length, role: "replay", step: entry.step, actions: entry.actions, before: before.screenshot, after: observation.screenshot });
      acc.replaySteps++;
    }
    const same = o.sameState ?? ((a: Observation, b: Observation) => a.screenshot === b.screenshot);
    if (!o.expected || prefix.length === 0 || same(observation, o.expected)) break;
    if (attempt >= tries) throw new EnvironmentError(`action replay of ${prefix.length} steps did not reproduce the saved state after ${tries} attempts`);
  }
  if (prefix.length > 0) events.push({ afterSeq: steps.length - 1, kind: "truncate", detail: { recoveryStep: prefix.length, via: "replay" } });

  let stopReason: StopReason = "max-steps";
  const usage = { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0, costUsd: 0 };
  while (history.length < maxSteps) {
    const t = history.length;
    const decision = await o.policy.propose({ task: { id: o.task.id, instruction: o.task.instruction }, history, observation, step: t, tick: steps.length, blobs: o.blobs });
    for (const u of decision.usage ?? []) {
      usage.calls++;
      usage.inputTokens += u.inputTokens;
      usage.outputTokens += u.outputTokens;
      usage.latencyMs += u.latencyMs;
      usage.costUsd += u.costUsd ?? 0;
    }
    const before = observation;
    let info: Record<string, unknown> = {};
    for (const action of decision.actions) {
      const out = await timed(() => o.env.step(action));
      observation = out.observation;
      info = { ...info, ...out.info };
    }
    steps.push({
      seq: steps.length, role: "forward", step: t, actions: decision.actions,
      ...(decision.response !== undefined ? { response: decision.response } : {}),
      ...(decision.failure ? { failure: decision.failure } : {}),
      before: before.screenshot, after: observation.screenshot,
      ...(Object.keys(info).length ? { info } : {}),
    });
    history.push({ step: t, observation: before, actions: decision.actions, ...(decision.response !== undefined ? { response: decision.response } : {}), ...(decision.memo !== undefined ? { memo: decision.memo } : {}) });
    acc.forwardSteps++;
    if (decision.failure) acc.policyFailures++;
    const terminal = decision.actions.find(isTerminal);
    if (terminal) {
      stopReason = terminal.type === "DONE" ? "done" : "fail";
      break;
    }
  }
  if (usage.calls > 0) acc.models.policy = usage;
  const evaluation = await timed(() => o.env.evaluate());
  acc.wallMs = Date.now() - t0;
  const trajectory: Trajectory = { taskId: o.task.id, steps, events, result: evaluation };
  const simulated = o.policy.simulated === true;
  return {
    result: { taskId: o.task.id, seed: o.seed, success: evaluation.score >= 1, evaluation, stopReason, simulated, trajectory, accounting: acc, prompts: [] },
    history,
    final: observation,
  };
}
