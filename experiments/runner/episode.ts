/**
 * One end-to-end episode of a condition: build the components, call the runtime's runEpisode,
 * compute the stability metrics, write the episode folder, and turn the result into a line.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Trajectory } from "../../src/trajectory.ts";
import type { BlobStore } from "../../src/blob-store.ts";
import type { EpisodeComponents, EpisodeResult } from "../../src/episode.ts";
import type { StabilityMetrics } from "../../src/metrics/stability.ts";
import { detectorStability } from "../../src/metrics/trajectory-labels.ts";
import type { JsonValue } from "../../src/policy.ts";
import type { Task } from "../../src/task.ts";
import type { Condition, EpisodeJob } from "./conditions.ts";
import type { JobOutcome } from "./pool.ts";
import type { RecordingEnvironment } from "./recording-env.ts";
import type { ExperimentRuntime } from "./runtime.ts";
import { redactText } from "../../src/secrets.ts";

/** Everything an episode needs besides its job. */
export interface EpisodeDeps {
  runtime: ExperimentRuntime;
  blobs: BlobStore;
  /** Run folder; episodes go to `<out>/<condition>/<task>/<seed>/`. */
  out: string;
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
}

/** Run one job of an end-to-end or sweep condition. */
export async function runConditionEpisode(job: EpisodeJob, condition: Condition, task: Task, rec: RecordingEnvironment, deps: EpisodeDeps): Promise<JobOutcome> {
  const { runtime } = deps;
  const ctx = { task, seed: job.seed, env: rec.env };
  const components: EpisodeComponents = { policy: runtime.forwardPolicy(condition.pair.forward, ctx), env: rec.env, blobs: deps.blobs };
  if (condition.recovery) {
    const sim = condition.pair.forward;
    components.detector = runtime.detector(condition.pair.detector ?? { kind: sim.kind, profile: "default" }, ctx);
    components.recoverer = runtime.recoveryPolicy(condition.pair.recovery ?? sim, ctx);
    components.selector = runtime.selector(condition.pair.selector ?? { kind: sim.kind, profile: "default" }, ctx);
  }
  const result = await runtime.runEpisode({ task, options: { ...condition.options, seed: job.seed }, components });
  return finishEpisode(job, task, result, rec, deps);
}

/** Stability, episode folder and the result line of a finished episode. */
export async function finishEpisode(job: EpisodeJob, task: Task, result: EpisodeResult, rec: RecordingEnvironment, deps: EpisodeDeps, extra?: Record<string, JsonValue>, folder?: string): Promise<JobOutcome> {
  if (result.stopReason === "env-error") return outcomeOf(result, null, extra);
  const stability = deps.runtime.groundTruthStability?.({ env: rec.env, task, result, observed: rec.observed }) ?? detectorStability(result.trajectory);
  const dir = join(deps.out, folder ?? join(job.condition, job.task, String(job.seed)));
  mkdirSync(dir, { recursive: true });
  // The viewer's record: the whole trajectory (screenshots by reference into <out>/blobs).
  const record: EpisodeRecord = { key: job.key, condition: job.condition, task: job.task, instruction: task.instruction, seed: job.seed, success: result.success, score: result.evaluation.score, detail: result.evaluation.detail ?? "", stopReason: result.stopReason, simulated: result.simulated, trajectory: result.trajectory, ...(extra ? { extra } : {}) };
  writeFileSync(join(dir, "trajectory.json"), redactText(JSON.stringify(record)) + "\n");
  if (deps.runtime.writeEpisode) await deps.runtime.writeEpisode({ dir, result, blobs: deps.blobs, simulated: result.simulated });
  return outcomeOf(result, stability, extra);
}

/** The deterministic line fields of an episode result. */
export function outcomeOf(result: EpisodeResult, stability: StabilityMetrics | null, extra?: Record<string, JsonValue>): JobOutcome {
  const a = result.accounting;
  const models = Object.values(a.models);
  return {
    success: result.success,
    score: result.evaluation.score,
    stopReason: result.stopReason,
    ...(result.envError ? { envError: result.envError } : {}),
    simulated: result.simulated,
    forwardSteps: a.forwardSteps,
    recoverySteps: a.recoverySteps,
    replaySteps: a.replaySteps,
    recoveryAttempts: a.recoveryAttempts,
    detectorCalls: a.detectorCalls,
    policyFailures: a.policyFailures,
    tokens: models.reduce((s, m) => s + (m?.inputTokens ?? 0) + (m?.outputTokens ?? 0), 0),
    costUsd: models.reduce((s, m) => s + (m?.costUsd ?? 0), 0),
    stability,
    prompts: [...result.prompts].sort(),
    ...(extra ? { extra } : {}),
    envMs: a.envMs,
  };
}
