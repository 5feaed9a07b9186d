/**
 * The worker pool: runs episode jobs on N workers, each with its own environment instance,
 * appends each finished episode to results.jsonl (fsync'd), retries environment failures up to a
 * cap with a fresh environment, and skips finished episodes on resume.
 */
import type { Environment } from "@retrace-cua/core/environment";
import { EnvironmentError, ReplayDesyncError, StepTimeoutError, describeError } from "@retrace-cua/core/errors";
import { diskFullOf } from "@retrace-cua/core/store/write-file";
import { logger } from "@retrace-cua/core/logger";
import type { EpisodeJob } from "./conditions.ts";
import { appendTiming, finalizeResults, readResults, ResultsLog, type ResultLine } from "./results-log.ts";
import { recordObservations, type RecordingEnvironment } from "./recording-env.ts";
import { DEFAULT_ENV_TIMEOUT_MS, withEnvDeadline } from "./env-deadline.ts";
import { factsOfThrown, type FailedTry } from "./failed-try.ts";

/** What executing one job produced (the runner adds the bookkeeping fields). */
export type JobOutcome = Omit<
  ResultLine,
  "key" | "index" | "experiment" | "condition" | "task" | "seed" | "envTries" | "status" | "failedTries"
> & {
  envMs: number;
  /** Measured latency of each call of the episode's call log, in its order (to timings.jsonl, not the record). */
  callMs?: Array<number | null>;
  /**
   * Detector failures in the episode's trajectory, and those followed by a recovery (kept for a failed try's record).
   */
  detectorFailureCounts?: { failures: number; triggered: number };
};

/** Progress after each finished episode. */
export interface PoolProgress {
  total: number;
  /** Finished in this invocation plus skipped as already done. */
  done: number;
  skipped: number;
  successes: number;
  /** Episodes with a usable result (success-rate denominator). */
  valid: number;
  envErrors: number;
}

/** Options of {@link runPool}. */
export interface PoolOptions<J extends EpisodeJob> {
  /** Experiment name written into every line. */
  experiment: string;
  jobs: readonly J[];
  /** Parallel workers, each with its own environment. @default 1 */
  workers?: number;
  createEnv: () => Promise<Environment>;
  /** Run one job on this worker's (recording) environment. Throw EnvironmentError for env failures. */
  execute: (job: J, env: RecordingEnvironment) => Promise<JobOutcome>;
  resultsFile: string;
  timingsFile: string;
  /** Extra tries after an environment failure. @default 2 */
  envRetries?: number;
  /**
   * Skip jobs already finished in `resultsFile` (re-run missing and env-error ones). Fresh-run checks are the caller's.
   * @default false
   */
  resume?: boolean;
  onProgress?: (p: PoolProgress) => void;
  /** Called with each line as it is appended. */
  onLine?: (line: ResultLine) => void;
  /** Rewrite the results file in index order at the end (process workers leave this to the parent). @default true */
  finalize?: boolean;
  /**
   * Deadline of each environment call; a call that does not answer is an environment error. @default
   * DEFAULT_ENV_TIMEOUT_MS (180 s)
   */
  envTimeoutMs?: number;
  /**
   * Asked before each job starts: a reason string stops scheduling new jobs (those in flight
   * finish); `onStop` gets the reason and how many jobs were left unrun. @default never
   */
  stopWhen?: () => string | undefined;
  onStop?: (reason: string, notRun: number) => void;
  /**
   * Asked before each job starts; false means another process took it (process workers pull
   * jobs one at a time from the parent instead of a fixed share, so no worker idles at the end
   * of a phase while another still has a queue). @default every job is ours
   */
  claim?: (job: J) => Promise<boolean>;
  /**
   * The order this worker walks the jobs in: task by task (each task's jobs in list order, so
   * the conditions and seeds of one task, which share their first screens, run back to back), the
   * tasks rotated so that part k of `parts` starts k/parts of the way into the task list. Process
   * workers that claim from one list then start on different tasks, and the second to reach a task
   * reuses the screens the first rendered (the shared derived-blob memo) instead of both rendering
   * them at once. Results do not depend on the order. @default the list order
   */
  startAt?: { part: number; parts: number };
}

function walkOrder<J extends EpisodeJob>(jobs: J[], at: PoolOptions<J>["startAt"]): J[] {
  if (!at || at.parts <= 1) return jobs;
  const byTask = new Map<string, J[]>();
  for (const j of jobs) {
    const list = byTask.get(j.task);
    if (list) list.push(j);
    else byTask.set(j.task, [j]);
  }
  const tasks = [...byTask.keys()];
  const k = Math.floor((tasks.length * at.part) / at.parts);
  return [...tasks.slice(k), ...tasks.slice(0, k)].flatMap((t) => byTask.get(t)!);
}

/**
 * Run every job; returns this job list's final lines (deduplicated, in job order). The whole
 * results file is rewritten in index order at the end, so phases sharing one file need
 * disjoint indexes.
 */
export async function runPool<J extends EpisodeJob>(options: PoolOptions<J>): Promise<ResultLine[]> {
  const { jobs, resultsFile } = options;
  const workers = Math.max(1, Math.min(options.workers ?? 1, jobs.length || 1));
  const retries = options.envRetries ?? 2;
  const previous = options.resume ? readResults(resultsFile) : new Map<string, ResultLine>();
  const done = new Set([...previous.values()].filter((l) => l.status === "ok").map((l) => l.key));
  const todo = walkOrder(
    jobs.filter((j) => !done.has(j.key)),
    options.startAt,
  );
  const progress: PoolProgress = {
    total: jobs.length,
    done: jobs.length - todo.length,
    skipped: jobs.length - todo.length,
    successes: 0,
    valid: 0,
    envErrors: 0,
  };
  for (const j of jobs) {
    const l = previous.get(j.key);
    if (l?.status === "ok") {
      progress.valid++;
      if (l.success) progress.successes++;
    }
  }
  options.onProgress?.({ ...progress });

  const log = new ResultsLog(resultsFile);
  let next = 0;
  let fatal: unknown;
  let stopped: string | undefined;
  const worker = async (id: number) => {
    let rec: RecordingEnvironment | undefined;
    const dropEnv = async () => {
      const env = rec?.env;
      rec = undefined;
      if (env)
        await env.close().catch((e) => logger.warn({ err: describeError(e) }, "closing a failed environment failed"));
    };
    try {
      while (fatal === undefined && next < todo.length) {
        const reason = stopped ?? options.stopWhen?.();
        if (reason !== undefined) {
          if (stopped === undefined) {
            stopped = reason;
            options.onStop?.(reason, todo.length - next);
          }
          break;
        }
        const job = todo[next++];
        if (options.claim && !(await options.claim(job))) continue;
        let tries = 0;
        let line: ResultLine | undefined;
        const t0 = Date.now();
        let envMs = 0;
        let callMs: Array<number | null> | undefined;
        const failed: FailedTry[] = [];
        while (!line) {
          tries++;
          try {
            rec ??= recordObservations(
              withEnvDeadline(await options.createEnv(), options.envTimeoutMs ?? DEFAULT_ENV_TIMEOUT_MS),
            );
            rec.clear();
            const outcome = await options.execute(job, rec);
            envMs = outcome.envMs;
            callMs = outcome.callMs;
            if (outcome.stopReason === "env-error") throw envErrorOf(outcome);
            line = okLine(options.experiment, job, tries, outcome, failed);
          } catch (err) {
            // A full disk ends the run at once with its one line (no retries, no log lines); what is written stays.
            const full = diskFullOf(err);
            if (full) throw full;
            if (!(err instanceof EnvironmentError || err instanceof StepTimeoutError)) throw err;
            // The try is thrown away, not what it did: its model calls and detector failures stay on the line.
            failed.push(failedTryOf(err));
            logger.warn({ worker: id, key: job.key, tries, err: describeError(err) }, "environment error");
            await dropEnv();
            // A non-retryable failure (e.g. a replay that spent its desync retries) is not run again.
            const final = tries > retries || (err instanceof EnvironmentError && !err.retryable);
            if (final)
              line = {
                ...envErrorLine(options.experiment, job, tries, describeError(err), failed),
                ...(err instanceof ReplayDesyncError && { replayDesyncs: err.desyncs }),
              };
          }
        }
        log.append(line);
        options.onLine?.(line);
        appendTiming(options.timingsFile, {
          key: job.key,
          wallMs: Date.now() - t0,
          envMs,
          tries,
          ...(line.status === "ok" && callMs?.length ? { callMs } : {}),
        });
        progress.done++;
        if (line.status === "ok") {
          progress.valid++;
          if (line.success) progress.successes++;
        } else progress.envErrors++;
        options.onProgress?.({ ...progress });
      }
    } catch (err) {
      fatal ??= err;
    } finally {
      await dropEnv();
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));
  } finally {
    log.close();
  }
  if (fatal !== undefined) throw fatal;
  const keys = new Set(jobs.map((j) => j.key));
  if (options.finalize === false) return [];
  return finalizeResults(resultsFile).filter((l) => keys.has(l.key));
}

/** Facts of a try that returned an env-error outcome, for its {@link FailedTry} record. */
const failedTryFacts = new WeakMap<object, Omit<FailedTry, "envError">>();

/**
 * The error that ends a try whose outcome is an environment error, carrying what the try did
 * (read back by {@link failedTryOf}). The local pool and the distributed worker both use it, so a
 * thrown-away try leaves the same record wherever it ran.
 */
export function envErrorOf(outcome: JobOutcome): EnvironmentError {
  const failure = new EnvironmentError(outcome.envError ?? "environment error");
  failedTryFacts.set(failure, triedFacts(outcome));
  return failure;
}

/** The record of a try thrown away after `err` (an environment error or a step timeout). */
export function failedTryOf(err: unknown): FailedTry {
  return {
    envError: describeError(err),
    ...((err !== null && typeof err === "object" && failedTryFacts.get(err)) || factsOfThrown(err)),
  };
}

/** What a try that ended in an env-error outcome did (detector calls and failures, model calls). */
function triedFacts(outcome: JobOutcome): Omit<FailedTry, "envError"> {
  const d = outcome.detectorFailureCounts;
  return {
    ...(outcome.detectorCalls ? { detectorCalls: outcome.detectorCalls } : {}),
    ...(d?.failures ? { detectorFailures: d.failures } : {}),
    ...(d?.triggered ? { detectorFailuresThatTriggeredRecovery: d.triggered } : {}),
    ...(outcome.models ? { models: outcome.models } : {}),
  };
}

/** The result line of a finished episode (same fields, same order, wherever it ran). */
export function okLine(
  experiment: string,
  job: EpisodeJob,
  tries: number,
  outcome: JobOutcome,
  failedTries: readonly FailedTry[] = [],
): ResultLine {
  const { envMs: _drop, callMs: _calls, detectorFailureCounts: _counts, ...rest } = outcome;
  return {
    key: job.key,
    index: job.index,
    experiment,
    condition: job.condition,
    task: job.task,
    seed: job.seed,
    status: "ok",
    envTries: tries,
    ...(failedTries.length ? { failedTries: [...failedTries] } : {}),
    ...rest,
  };
}

/** The result line of an episode whose environment failed on every try. */
export function envErrorLine(
  experiment: string,
  job: EpisodeJob,
  tries: number,
  message: string,
  failedTries: readonly FailedTry[] = [],
): ResultLine {
  return {
    key: job.key,
    index: job.index,
    experiment,
    condition: job.condition,
    task: job.task,
    seed: job.seed,
    status: "env-error",
    success: false,
    score: 0,
    stopReason: "env-error",
    envError: message,
    envTries: tries,
    ...(failedTries.length ? { failedTries: [...failedTries] } : {}),
    simulated: false,
    forwardSteps: 0,
    recoverySteps: 0,
    replaySteps: 0,
    recoveryAttempts: 0,
    detectorCalls: 0,
    policyFailures: 0,
    tokens: 0,
    costUsd: 0,
    stability: null,
    prompts: [],
  };
}
