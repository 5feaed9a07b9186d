/**
 * A plain forward rollout (no detector, no recovery) that keeps the policy's full history,
 * memos included, plus action-prefix replay. The ideal-recovery experiment (Appendix B.1) needs
 * both: standard rollouts to find failures, and continuations that resume the forward policy
 * from a past state rebuilt by replaying the saved prefix.
 *
 * Every executed step (replayed or forward) waits `settleMs` before its observation
 * (packages/core/src/settle.ts). The replayed prefix is checked against the saved o_R with the runtime's own
 * replay comparison: ground truth where the runtime has it (`sameState`), else SSIM >= 0.99
 * (packages/core/src/replay/state-check.ts) plus the probe reports when both observations carry one; never byte
 * equality. A desync retries from reset up to `replayRetries` attempts; each one is counted
 * (`accounting.replayDesyncs`), and a replay that never reproduces o_R throws a ReplayDesyncError
 * (not retried by the runner: the instance is excluded, as in the paper).
 */
import { atCallSite } from "@retrace-cua/core/runtime/call-site";
import { isTerminal, terminalOf } from "@retrace-cua/core/action";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeAccounting, EpisodeResult, RoleUsage, StopReason } from "@retrace-cua/core/episode";
import type { Environment } from "@retrace-cua/core/environment";
import { EnvironmentError, ReplayDesyncError, describeError } from "@retrace-cua/core/errors";
import type { Observation } from "@retrace-cua/core/observation";
import { createProbeVerifier } from "@retrace-cua/evaluation/probes/verifier";
import { screensMatch } from "@retrace-cua/core/replay/state-check";
import { settleAfterStep } from "@retrace-cua/core/settle";
import { servedBySimulation } from "@retrace-cua/core/runtime/accounting";
import type { ForwardPolicy, HistoryEntry } from "@retrace-cua/core/policy";
import type { Task } from "@retrace-cua/core/task";
import type { StepRecord, Trajectory, TrajectoryEvent } from "@retrace-cua/core/trajectory";

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
  /** Forward step budget. @default 50 */
  maxForwardSteps?: number;
  /**
   * Whether the replayed prefix counts against `maxForwardSteps`: "from-restore" (the paper's
   * reading) gives the policy `maxForwardSteps` steps after R; "total" stops at `maxForwardSteps`
   * history entries, prefix included. @default "from-restore"
   */
  budget?: "from-restore" | "total";
  /** Saved history to replay first (entries 0..R-1); empty = start from the initial state. */
  prefix?: readonly HistoryEntry[];
  /** Replay attempts before giving up with a ReplayDesyncError. @default 3 */
  replayRetries?: number;
  /** Ground-truth equality of two observations' states (SimDesk); without it, {@link replayMatches}. */
  sameState?: (a: Observation, b: Observation) => boolean | Promise<boolean>;
  /** The observation the prefix should end in (o_R of the saved run), checked after replay. */
  expected?: Observation;
  /** Wait after each executed step before observing (packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
}

/**
 * Whether a replayed state reproduces the saved one on an environment without ground truth:
 * SSIM >= 0.99 between the screenshots and, when both observations carry probe reports, no probe
 * item differing (an abstaining probe comparison leaves the decision to SSIM).
 */
export async function replayMatches(
  current: Observation,
  expected: Observation,
  blobs: BlobStore,
  env?: Environment,
): Promise<{ match: boolean; reason: string }> {
  const screen = await screensMatch(current, expected, blobs);
  if (!screen.match) return { match: false, reason: `SSIM ${screen.ssim.toFixed(4)} < 0.99` };
  if (current.probe && expected.probe) {
    const v = await createProbeVerifier().verify({ target: expected, current, blobs, env });
    if (v.verdict === "mismatch") return { match: false, reason: `probes differ: ${v.reason}` };
  }
  return { match: true, reason: `SSIM ${screen.ssim.toFixed(4)} >= 0.99` };
}

/** Reset, replay the prefix (verified), then run the forward policy until it stops. */
export async function rollForward(o: RollForwardOptions): Promise<ForwardRun> {
  const t0 = Date.now();
  const maxSteps = o.maxForwardSteps ?? 50;
  const prefix = o.prefix ?? [];
  const steps: StepRecord[] = [];
  const events: TrajectoryEvent[] = [];
  const acc: EpisodeAccounting = {
    forwardSteps: 0,
    recoverySteps: 0,
    replaySteps: 0,
    recoveryAttempts: 0,
    detectorCalls: 0,
    detectorFailures: 0,
    frozenSkipped: 0,
    policyFailures: 0,
    models: {},
    envMs: 0,
    wallMs: 0,
  };
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

  const settle = o.settleMs ?? 0;
  /** Execute a step's actions (terminal ones are not sent), then settle once. */
  const execute = async (actions: HistoryEntry["actions"], from: Observation) => {
    let obs = from;
    let executed = 0;
    let info: Record<string, unknown> = {};
    for (const action of actions) {
      if (isTerminal(action)) break;
      const out = await timed(() => o.env.step(action));
      obs = out.observation;
      info = { ...info, ...out.info };
      executed++;
    }
    obs = await timed(() => settleAfterStep(o.env, executed, settle, obs));
    return { observation: obs, info };
  };
  const same = async (a: Observation, b: Observation) =>
    o.sameState
      ? { match: await o.sameState(a, b), reason: "ground-truth state differs" }
      : replayMatches(a, b, o.blobs, o.env);

  let observation!: Observation;
  let history: HistoryEntry[] = [];
  const tries = Math.max(1, o.replayRetries ?? 3);
  let desyncs = 0;
  // Every attempt's replayed steps stay in the trajectory (tagged with their try), as in the runtime's replay.
  for (let attempt = 1; ; attempt++) {
    observation = await timed(() => o.env.reset(o.task));
    history = [];
    for (const entry of prefix) {
      history.push({ ...entry, observation });
      const before = observation;
      observation = (await execute(entry.actions, observation)).observation;
      steps.push({
        seq: steps.length,
        role: "replay",
        step: entry.step,
        actions: entry.actions,
        before: before.screenshot,
        after: observation.screenshot,
        ...(tries > 1 ? { info: { try: attempt } } : {}),
      });
      acc.replaySteps++;
    }
    if (!o.expected || prefix.length === 0) break;
    const check = await same(observation, o.expected);
    if (check.match) break;
    desyncs++;
    events.push({
      afterSeq: steps.length - 1,
      kind: "reset",
      detail: { reason: "replay desync", try: attempt, check: check.reason },
    });
    if (attempt >= tries)
      throw new ReplayDesyncError(
        `action replay of ${prefix.length} steps did not reproduce the saved state after ${tries} attempts (${check.reason})`,
        { desyncs },
      );
  }
  if (prefix.length > 0 && o.expected) acc.replayDesyncs = desyncs;
  let stopReason: StopReason = "max-steps";
  const usage: RoleUsage = { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0, costUsd: 0 };
  const limit = (o.budget ?? "from-restore") === "total" ? maxSteps : prefix.length + maxSteps;
  while (history.length < limit) {
    const t = history.length;
    const decision = await atCallSite({ seq: steps.length, phase: "policy" }, () =>
      o.policy.propose({
        task: { id: o.task.id, instruction: o.task.instruction },
        history,
        observation,
        step: t,
        tick: prefix.length + acc.forwardSteps,
        blobs: o.blobs,
      }),
    );
    for (const u of decision.usage ?? []) {
      usage.calls++;
      usage.inputTokens += u.inputTokens;
      usage.outputTokens += u.outputTokens;
      usage.latencyMs += u.latencyMs;
      usage.costUsd += u.costUsd ?? 0;
      if (u.simulated === true) usage.simulated = true;
    }
    const before = observation;
    const ran = await execute(decision.actions, observation);
    observation = ran.observation;
    const info = ran.info;
    steps.push({
      seq: steps.length,
      role: "forward",
      step: t,
      actions: decision.actions,
      ...(decision.response !== undefined ? { response: decision.response } : {}),
      ...(decision.failure ? { failure: decision.failure } : {}),
      before: before.screenshot,
      after: observation.screenshot,
      ...(Object.keys(info).length ? { info } : {}),
    });
    history.push({
      step: t,
      observation: before,
      actions: decision.actions,
      ...(decision.response !== undefined ? { response: decision.response } : {}),
      ...(decision.memo !== undefined ? { memo: decision.memo } : {}),
    });
    acc.forwardSteps++;
    if (decision.failure) acc.policyFailures++;
    const terminal = decision.actions.find(isTerminal);
    if (terminal) {
      stopReason = terminal.type === "DONE" ? "done" : "fail";
      break;
    }
  }
  if (usage.calls > 0) acc.models.policy = usage;
  const evaluation = await timed(() => o.env.evaluate({ terminal: terminalOf(history.map((h) => h.actions)) }));
  acc.wallMs = Date.now() - t0;
  const trajectory: Trajectory = { taskId: o.task.id, steps, events, result: evaluation };
  const simulated = o.policy.simulated === true || servedBySimulation(acc);
  return {
    result: {
      taskId: o.task.id,
      seed: o.seed,
      success: evaluation.score >= 1,
      evaluation,
      stopReason,
      simulated,
      trajectory,
      accounting: acc,
      prompts: [],
    },
    history,
    final: observation,
  };
}
