/**
 * One end-to-end episode of a condition: build the components, call the runtime's runEpisode,
 * compute the stability metrics, write the episode folder, and turn the result into a line.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Trajectory } from "@retrace-cua/core/trajectory";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { createCheckpointer } from "@retrace-cua/graphs/checkpointers";
import { checkpointThread, registerCheckpointSchemes } from "./checkpoints.ts";
import type { EpisodeComponents, EpisodeResult } from "@retrace-cua/core/episode";
import type { StabilityMetrics } from "@retrace-cua/evaluation/metrics/stability";
import { detectorStability } from "@retrace-cua/evaluation/metrics/trajectory-labels";
import type { JsonValue } from "@retrace-cua/core/policy";
import type { Task } from "@retrace-cua/core/task";
import type { Condition, EpisodeJob } from "./conditions.ts";
import type { JobOutcome } from "./pool.ts";
import type { RecordingEnvironment } from "./recording-env.ts";
import type { ComponentContext, ExperimentRuntime, OffTrackMark } from "./runtime.ts";
import { ModelMeter, round, type RoleCalls } from "../agents/meter.ts";
import type { ModelCallSettings } from "../agents/model-client.ts";
import { resolvePair } from "../config/agents.ts";
import { billedOf, tokenSplit, type ModelRole } from "@retrace-cua/core/usage";
import { emptyAccounting } from "@retrace-cua/core/runtime/accounting";
import { isSimulated } from "@retrace-cua/graphs/context";
import { redactText } from "@retrace-cua/core/secrets";
import { pathInside } from "@retrace-cua/core/store/safe-path";
import { appendRecord, type EpisodeRecordsMode } from "./episode-records.ts";
import { drawScopeFor, type DrawsMode } from "@retrace-cua/models/models/draws";
import type { CallRecord } from "../agents/call-log.ts";
import { attachTryFacts, detectorFailureCounts } from "./failed-try.ts";

/** Everything an episode needs besides its job. */
export interface EpisodeDeps {
  runtime: ExperimentRuntime;
  blobs: BlobStore;
  /** Run folder; episodes go to `<out>/<condition>/<task>/<seed>/`. */
  out: string;
  /**
   * Checkpoint spec (`--checkpoint`): none (default), memory, sqlite[:path], postgres://..., or a registered scheme.
   */
  checkpoint?: string;
  /** Run-wide model settings (cache, keys, cost ledger), for model agents. */
  calls?: ModelCallSettings;
  /** Wall-clock deadline per episode in ms (the episode is aborted then). @default none */
  episodeTimeoutMs?: number;
  /** How conditions draw (config `draws`). @default "paired" */
  draws?: DrawsMode;
  /**
   * Write OSWorld's traj.jsonl / result.txt / result.json beside trajectory.json (RunSettings.osworldFiles). @default
   * true
   */
  osworldFiles?: boolean;
  /** Episode records in a folder per episode or one pack per run (RunSettings.episodeRecords). @default "folders" */
  episodeRecords?: EpisodeRecordsMode;
}

/** `trajectory.json` in each episode folder: what the report's trajectory viewer reads. */
export interface EpisodeRecord {
  key: string;
  condition: string;
  task: string;
  instruction: string;
  seed: number;
  success: boolean;
  score: number;
  detail: string;
  stopReason: string;
  simulated: boolean;
  trajectory: Trajectory;
  extra?: Record<string, JsonValue>;
  /** Every model call of the episode, each with the step it belongs to (absent when no model was called). */
  calls?: CallRecord[];
  /**
   * Ground truth (environments that have it): the step a failed episode went off track for good (runtime.ts
   * OffTrackMark).
   */
  offTrack?: OffTrackMark;
}

/** Run one job of an end-to-end or sweep condition. */
export async function runConditionEpisode(
  job: EpisodeJob,
  condition: Condition,
  task: Task,
  rec: RecordingEnvironment,
  deps: EpisodeDeps,
): Promise<JobOutcome> {
  const { runtime } = deps;
  const meter = new ModelMeter(deps.calls?.ledger);
  const draws = drawScopeFor(deps.draws, { seed: job.seed, task: job.task, condition: job.condition });
  const ctx: ComponentContext = {
    task,
    seed: job.seed,
    env: rec.env,
    blobs: deps.blobs,
    meter,
    calls: deps.calls,
    draws,
  };
  const agents = resolvePair(condition.pair);
  const components: EpisodeComponents = {
    policy: runtime.forwardPolicy(agents.forward, ctx),
    env: rec.env,
    blobs: deps.blobs,
  };
  if (condition.recovery) {
    components.detector = runtime.detector(agents.detector, ctx);
    components.selector = runtime.selector(agents.selector, ctx);
    // The recovery sub-agent (and its summarizer) only act under model restoration.
    if ((condition.options.restoration ?? "model") === "model") {
      components.recoverer = runtime.recoveryPolicy(agents.recovery, ctx);
      if (agents.summarizer && runtime.summarizer) components.summarizer = runtime.summarizer(agents.summarizer, ctx);
    }
    if (agents.verifier && runtime.verifier) components.verifier = runtime.verifier(agents.verifier, ctx);
  }
  const signal = deps.episodeTimeoutMs ? AbortSignal.timeout(deps.episodeTimeoutMs) : undefined;
  registerCheckpointSchemes();
  const checkpointer = createCheckpointer(deps.checkpoint, { out: deps.out });
  let result: EpisodeResult;
  try {
    result = await runtime.runEpisode({
      task,
      options: { ...condition.options, seed: job.seed },
      components,
      signal,
      checkpointer,
      ...(checkpointer ? { threadId: checkpointThread(deps.out, job.key) } : {}),
    });
  } catch (err) {
    if (!signal?.aborted) {
      // The pool may throw this try away (an environment error): its model calls still count.
      const models = meter.snapshot();
      if (Object.keys(models).length) attachTryFacts(err, { models });
      throw err;
    }
    // The deadline passed (e.g. a hung model server): record the episode as a failure that says so.
    result = deadlineResult(task, job.seed, deps.episodeTimeoutMs!, isSimulated(components));
  }
  return finishEpisode(job, task, result, rec, deps, undefined, undefined, meter);
}

/** Stability, episode folder and the result line of a finished episode. */
export async function finishEpisode(
  job: EpisodeJob,
  task: Task,
  result: EpisodeResult,
  rec: RecordingEnvironment,
  deps: EpisodeDeps,
  extra?: Record<string, JsonValue>,
  folder?: readonly string[],
  meter?: ModelMeter,
): Promise<JobOutcome> {
  if (result.stopReason === "env-error") return outcomeOf(result, null, extra, meter);
  const stability =
    deps.runtime.groundTruthStability?.({ env: rec.env, task, result, observed: rec.observed }) ??
    detectorStability(result.trajectory);
  // Ids, never paths: a condition or task id that is not a plain name never writes outside its folder.
  const dir = pathInside(deps.out, folder ?? [job.condition, job.task, String(job.seed)], `episode ${job.key}`);
  // The viewer's record: the whole trajectory (screenshots by reference into the run's blob store).
  const record: EpisodeRecord = {
    key: job.key,
    condition: job.condition,
    task: job.task,
    instruction: task.instruction,
    seed: job.seed,
    success: result.success,
    score: result.evaluation.score,
    detail: result.evaluation.detail ?? "",
    stopReason: result.stopReason,
    simulated: result.simulated,
    trajectory: result.trajectory,
    ...(extra ? { extra } : {}),
  };
  const calls = meter?.callLog() ?? [];
  if (calls.length) record.calls = calls;
  const offTrack = result.success ? undefined : deps.runtime.groundTruthOffTrack?.({ env: rec.env, task, result });
  if (offTrack) record.offTrack = offTrack;
  const osworld = deps.osworldFiles !== false && deps.runtime.writeEpisode;
  // Without measured times (the steps' envMs, the model calls' latencyMs): same config and seed,
  // byte-identical records. The episode's timing and its calls' latencies are in timings.jsonl.
  const text = redactText(JSON.stringify(record, withoutTimes));
  if (deps.episodeRecords === "pack") appendRecord(deps.out, text);
  if (deps.episodeRecords !== "pack" || osworld) mkdirSync(dir, { recursive: true });
  if (deps.episodeRecords !== "pack") writeFileSync(join(dir, "trajectory.json"), text + "\n");
  if (osworld) await deps.runtime.writeEpisode!({ dir, result, blobs: deps.blobs, simulated: result.simulated });
  const outcome = outcomeOf(result, stability, extra, meter);
  return calls.length
    ? { ...outcome, callMs: calls.map((c) => (typeof c.latencyMs === "number" ? c.latencyMs : null)) }
    : outcome;
}

/** JSON.stringify replacer that leaves out measured times (they differ from run to run). */
function withoutTimes(key: string, value: unknown): unknown {
  return key === "envMs" || key === "latencyMs" ? undefined : value;
}

/** The deterministic line fields of an episode result. */
export function outcomeOf(
  result: EpisodeResult,
  stability: StabilityMetrics | null,
  extra?: Record<string, JsonValue>,
  meter?: ModelMeter,
): JobOutcome {
  const a = result.accounting;
  const perRole = modelCallsOf(result, meter);
  const roles = Object.values(perRole);
  return {
    success: result.success,
    score: result.evaluation.score,
    stopReason: result.stopReason,
    ...(result.envError ? { envError: result.envError } : {}),
    simulated: result.simulated,
    forwardSteps: a.forwardSteps,
    recoverySteps: a.recoverySteps,
    replaySteps: a.replaySteps,
    ...(a.replayDesyncs ? { replayDesyncs: a.replayDesyncs } : {}),
    ...(a.selectorFallbacks ? { selectorFallbacks: a.selectorFallbacks } : {}),
    ...(a.degraded ? { degraded: a.degraded } : {}),
    recoveryAttempts: a.recoveryAttempts,
    detectorCalls: a.detectorCalls,
    ...(a.detectorGates ? { detectorGates: a.detectorGates } : {}),
    policyFailures: a.policyFailures,
    tokens: roles.reduce((s, m) => s + m.inputTokens + m.outputTokens, 0),
    // billed-equivalent tokens of the episode, once a provider reported a prompt cache (else = tokens)
    ...(roles.some((m) => m.billedTokens !== undefined) && {
      billedTokens: roles.reduce((s, m) => s + billedOf(m), 0),
    }),
    costUsd: round(roles.reduce((s, m) => s + m.costUsd, 0)),
    ...(roles.length ? { models: perRole } : {}),
    stability,
    prompts: [...result.prompts].sort(),
    ...(extra ? { extra } : {}),
    envMs: a.envMs,
    detectorFailureCounts: detectorFailureCounts(result.trajectory),
  };
}

/**
 * Model calls per role of an episode: the meter's counts (every call, failed ones included, cost
 * at list price) for roles it saw, the episode's own accounting for the rest (agents with their
 * own SDK clients: OpenAI and Anthropic computer use), whose failed calls are the steps that
 * failed with "model-error".
 */
export function modelCallsOf(result: EpisodeResult, meter?: ModelMeter): Partial<Record<ModelRole, RoleCalls>> {
  const out: Partial<Record<ModelRole, RoleCalls>> = meter ? meter.snapshot() : {};
  for (const [role, u] of Object.entries(result.accounting.models) as Array<
    [ModelRole, NonNullable<EpisodeResult["accounting"]["models"][ModelRole]>]
  >) {
    if (out[role] || !u) continue;
    const errors =
      role === "policy" ? result.trajectory.steps.filter((s) => s.failure?.kind === "model-error").length : 0;
    out[role] = {
      calls: u.calls + errors,
      errors,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      ...cacheSplit(u),
      costUsd: round(u.costUsd),
    };
  }
  return Object.fromEntries(
    Object.entries(out)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([role, m]) => [role, { ...m, ...cacheSplit(m) }]),
  );
}

/**
 * The prompt-cache fields of a role's line entry: uncached, cached, cache-write and billed-equivalent
 * tokens (packages/core/src/usage.ts tokenSplit), present only once some call of the role reported a prompt
 * cache, so lines of runs whose providers report none keep their shape (there, cached is 0 and
 * billed = input + output).
 */
function cacheSplit(
  u: Pick<RoleCalls, "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteInputTokens" | "billedTokens">,
): Partial<RoleCalls> {
  if (u.billedTokens === undefined) return {};
  const t = tokenSplit(u);
  return {
    uncachedInputTokens: t.uncachedInputTokens,
    cachedInputTokens: t.cachedInputTokens,
    cacheWriteInputTokens: t.cacheWriteInputTokens,
    billedTokens: t.billedTokens,
  };
}

/** The result of an episode cut off at its wall-clock deadline (no trajectory survives the abort). */
export function deadlineResult(task: Task, seed: number, timeoutMs: number, simulated: boolean): EpisodeResult {
  const detail = `episode deadline: still running after ${timeoutMs} ms (episodeTimeoutMs), aborted`;
  return {
    taskId: task.id,
    seed,
    success: false,
    evaluation: { score: 0, detail },
    stopReason: "aborted",
    simulated,
    trajectory: { taskId: task.id, steps: [], events: [], result: { score: 0, detail } },
    accounting: emptyAccounting(),
    prompts: [],
  };
}
