/**
 * `retrace worker`: consumes the episode queue. Each job is one episode of a registered run; the
 * worker runs it through the runner's own experiment code (runExperiment with a RemotePhases that
 * executes just this job), so components, seeds and result lines are exactly a local run's. Every
 * concurrent slot keeps its own environment between episodes. The episode's graph checkpoints go
 * to PostgreSQL under the thread `<run>/<key>/a<env failures>`, so when this worker dies, the
 * worker BullMQ hands the job to resumes the episode where it stopped. The result row and the
 * episode folder's files are stored in one transaction, exactly once per key.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, relative, sep } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import {
  ControlSignal,
  EnvironmentError,
  ReplayDesyncError,
  StepTimeoutError,
  describeError,
  DataError,
  InternalError,
} from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import { sha256Hex, stableStringify } from "@retrace-cua/core/hash";
import {
  checkRedisReachable,
  startEpisodeWorker,
  type EpisodeJobData,
  type EpisodeWorkerHandle,
} from "@retrace-cua/stores/queue/bullmq/episode-queue";
import { PgBlobStore } from "@retrace-cua/stores/postgres/blob-store";
import { connectPostgres } from "@retrace-cua/stores/postgres/connect";
import { createPostgresCheckpointer } from "@retrace-cua/stores/postgres/checkpointer";
import { PgRunStore, type EpisodeFile } from "@retrace-cua/stores/postgres/run-store";
import type { ExperimentConfig } from "../config/schema.ts";
import type { EpisodeJob } from "../runner/conditions.ts";
import { runExperiment } from "../runner/experiment.ts";
import type { FailedTry } from "../runner/failed-try.ts";
import { envErrorLine, envErrorOf, failedTryOf, okLine } from "../runner/pool.ts";
import { recordObservations, type RecordingEnvironment } from "../runner/recording-env.ts";
import type { RemotePhaseRequest, RemotePhases } from "../runner/remote.ts";
import type { ResultLine } from "../runner/results-log.ts";
import type { ExperimentRuntime } from "../runner/runtime.ts";

/** Options of {@link startWorker}. */
export interface WorkerOptions {
  /** redis:// URL of the queue. */
  queueUrl: string;
  queueName?: string;
  /** postgres:// URL of the shared results and blobs. */
  storeUrl: string;
  /** postgres:// URL of the LangGraph checkpointer. @default storeUrl */
  checkpointUrl?: string;
  /** Concurrent episodes (one environment each). @default 1 */
  concurrency?: number;
  /** The experiment runtime of a run's config (the CLI passes the same one as `retrace run`). */
  runtimeOf: (config: ExperimentConfig) => ExperimentRuntime;
  /** Local cache folder for blobs and scratch episode folders. */
  cacheDir: string;
  /** Lock lease in ms (a dead worker's job is handed on after it). @default 30000 */
  lockMs?: number;
  /** Name in result rows. @default "<host>:<pid>" */
  name?: string;
  /**
   * Keep an episode's LangGraph checkpoints after its result is stored. By default they are deleted
   * then (every attempt's thread): they exist to resume an unfinished episode on another worker,
   * and kept they grow PostgreSQL by ~30 KB per step forever. @default false
   */
  keepCheckpoints?: boolean;
  /** Called when an episode starts; `resumed` when its thread already had checkpoints (another worker died in it). */
  onStart?: (e: { key: string; resumed: boolean; attempt: number }) => void;
  /** Called after each stored (or skipped) episode. */
  onEpisode?: (e: { key: string; status: string; stored: boolean; ms: number; resumed?: boolean }) => void;
}

/** A running worker. */
export interface RunningWorker {
  /** Stop taking jobs; waits for the in-flight episodes unless `force` (then they are handed back). */
  close(force?: boolean): Promise<void>;
}

/** Thrown inside runExperiment once the job's episode has its line. */
class EpisodeDone extends ControlSignal {
  constructor(
    readonly line: ResultLine,
    readonly envMs: number,
    readonly callMs?: Array<number | null>,
  ) {
    super("episode done");
  }
}

interface Slot {
  rec?: RecordingEnvironment;
  /** The env spec (without the task selection) the slot's environment was made for. */
  envKey?: string;
}

/** Start consuming the queue. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  // Every dependency is reached (or given up on, with one line) before anything starts.
  await checkRedisReachable(options.queueUrl, { field: "queue" });
  // Blobs commit asynchronously; results (the acknowledgement) on their own synchronous pool.
  const pg = await connectPostgres(options.storeUrl, { max: (options.concurrency ?? 1) + 1, asyncCommit: true });
  const resultsPg = await connectPostgres(options.storeUrl, { max: 2 });
  const store = new PgRunStore(resultsPg);
  mkdirSync(options.cacheDir, { recursive: true });
  const blobs = new PgBlobStore({ dir: join(options.cacheDir, "blobs"), pg });
  const checkpointer = await createPostgresCheckpointer(options.checkpointUrl ?? options.storeUrl);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const slots: Slot[] = Array.from({ length: options.concurrency ?? 1 }, () => ({}));
  const configs = new Map<string, { config: ExperimentConfig; seedBase: number; cancelled: boolean; readAt: number }>();
  const runFilesOf = new Map<string, Array<{ path: string; bytes: Buffer }>>();
  /** Delete the checkpoint threads of every attempt of a stored episode (unless --keep-checkpoints). */
  const dropThreads = async (runId: string, key: string, envFailures: number) => {
    if (options.keepCheckpoints) return;
    for (let a = 0; a <= envFailures; a++) {
      await checkpointer.saver
        .deleteThread(`${runId}/${key}/a${a}`)
        .catch((err) =>
          logger.warn({ key, err: describeError(err) }, "deleting a finished episode's checkpoints failed"),
        );
    }
  };

  const closeStores = async () => {
    await checkpointer.close().catch(() => {});
    await blobs.flush().catch(() => {});
    await pg.close().catch(() => {});
    await resultsPg.close().catch(() => {});
  };
  let handle: EpisodeWorkerHandle;
  try {
    handle = await startEpisodeWorker({
      url: options.queueUrl,
      queue: options.queueName,
      concurrency: slots.length,
      lockMs: options.lockMs,
      process: async (job) => {
        const t0 = Date.now();
        const { data } = job;
        // The run's row (config, cancel flag), re-read at most every 2 s.
        let run = configs.get(data.runId);
        if (!run || t0 - run.readAt > 2_000) {
          const row = await store.getRun(data.runId);
          if (!row)
            throw new DataError(
              `run ${data.runId} is not registered in PostgreSQL at ${pg.where} (does the worker use the same --store as retrace run?)`,
            );
          run = {
            config: run?.config ?? (JSON.parse(row.config) as ExperimentConfig),
            seedBase: row.seedBase,
            cancelled: row.cancelled,
            readAt: t0,
          };
          configs.set(data.runId, run);
        }
        if (run.cancelled)
          return void options.onEpisode?.({ key: data.key, status: "cancelled", stored: false, ms: 0 });
        if (await store.hasResult(data.runId, data.key)) {
          // Stored already (its worker may have died between storing and cleaning up): clean up here.
          await dropThreads(data.runId, data.key, data.envFailures ?? 0);
          return void options.onEpisode?.({ key: data.key, status: "duplicate", stored: false, ms: 0 });
        }
        const scratch = mkdtempSync(join(options.cacheDir, "episode-"));
        try {
          // Run-level files of earlier phases (ideal recovery's frozen plan.json), as the coordinator
          // has them; frozen, so read once per run (a run without any is asked again: a later phase may add them).
          let runFiles = runFilesOf.get(data.runId);
          if (!runFiles) {
            runFiles = await store.runFiles(data.runId);
            if (runFiles.length) runFilesOf.set(data.runId, runFiles);
          }
          for (const f of runFiles) writeFileSync(join(scratch, f.path), f.bytes);
          const envFailures = data.envFailures ?? 0;
          const failedTries = (data.failedTries ?? []) as FailedTry[];
          const remote = jobRunner(data, slots[job.slot], store, {
            envFailures,
            failedTries,
            lastAttempt: job.attemptsMade + 1 >= job.attempts,
            markEnvFailure: (failed) =>
              job.updateData({ ...data, envFailures: envFailures + 1, failedTries: [...failedTries, failed] }),
          });
          const threadId = `${data.runId}/${data.key}/a${envFailures}`;
          const resumed = !!(await checkpointer.saver.getTuple({ configurable: { thread_id: threadId } }));
          options.onStart?.({ key: data.key, resumed, attempt: job.attemptsMade + 1 });
          const runtime = withCheckpoints(options.runtimeOf(run.config), checkpointer.saver, threadId);
          const startedAt = Date.now();
          let done: EpisodeDone | undefined;
          try {
            await runExperiment(run.config, runtime, {
              out: scratch,
              seedBase: run.seedBase,
              resume: true,
              blobs,
              remote,
              workers: 1,
            });
          } catch (err) {
            if (!(err instanceof EpisodeDone)) throw err;
            done = err;
          }
          if (!done) throw new InternalError(`phase "${data.phase}" of run ${data.runId} was not reached`);
          await blobs.flush();
          const finishedAt = Date.now();
          const timing = JSON.stringify({
            key: data.key,
            wallMs: finishedAt - startedAt,
            envMs: done.envMs,
            tries: done.line.envTries,
            ...(done.line.status === "ok" && done.callMs?.length ? { callMs: done.callMs } : {}),
            worker: name,
            enqueuedAt: data.enqueuedAt,
            pickedAt: t0,
            startedAt,
            finishedAt,
          });
          const stored = await store.storeResult(
            data.runId,
            {
              key: data.key,
              index: data.index,
              condition: data.condition,
              status: done.line.status,
              line: JSON.stringify(done.line),
              timing,
              worker: name,
            },
            await collectFiles(scratch, blobs, new Set(runFiles.map((f) => f.path))),
          );
          // The result is durable: the threads that could resume this episode are no longer needed.
          await dropThreads(data.runId, data.key, envFailures);
          options.onEpisode?.({ key: data.key, status: done.line.status, stored, ms: Date.now() - t0, resumed });
        } finally {
          rmSync(scratch, { recursive: true, force: true });
        }
      },
    });
  } catch (err) {
    await closeStores();
    throw err;
  }

  return {
    async close(force = false) {
      await handle.close(force);
      for (const s of slots)
        await s.rec?.env
          .close()
          .catch((err) => logger.warn({ err: describeError(err) }, "closing an environment failed"));
      await closeStores();
    },
  };
}

/** The runtime with this episode's durable thread. */
function withCheckpoints(runtime: ExperimentRuntime, saver: BaseCheckpointSaver, threadId: string): ExperimentRuntime {
  return { ...runtime, runEpisode: (input) => runtime.runEpisode({ ...input, threadId, checkpointer: saver }) };
}

interface Attempt {
  envFailures: number;
  /** Records of the earlier tries that ended in an environment error (carried in the job's data). */
  failedTries: readonly FailedTry[];
  lastAttempt: boolean;
  /** Count this try as an environment failure and keep its record for the next attempt. */
  markEnvFailure: (failed: FailedTry) => Promise<void>;
}

/** A RemotePhases that runs just this job's episode on the slot's environment. */
function jobRunner(data: EpisodeJobData, slot: Slot, store: PgRunStore, attempt: Attempt): RemotePhases {
  return {
    role: "worker",
    async runPhase<J extends EpisodeJob>(req: RemotePhaseRequest<J>): Promise<ResultLine[]> {
      if (req.phase !== data.phase) {
        // An earlier phase: its results are final in PostgreSQL.
        const keys = new Set(req.jobs.map((j) => j.key));
        return (await store.results(data.runId))
          .filter((r) => keys.has(r.key))
          .map((r) => JSON.parse(r.line) as ResultLine);
      }
      const job = req.jobs.find((j) => j.key === data.key);
      if (!job)
        throw new DataError(
          `episode ${data.key} is not in the expansion of run ${data.runId} (was the config changed?)`,
        );
      const { ctx } = req;
      const tries = attempt.envFailures + 1;
      let failed: FailedTry;
      let spent: { desyncs?: number } | undefined;
      const { tasks: _t, sample: _s, limit: _l, ...envShape } = ctx.envSpec;
      const envKey = stableStringify(envShape);
      if (slot.rec && slot.envKey !== envKey) {
        // A run with another environment: this slot's environment does not fit it.
        await slot.rec.env.close().catch(() => {});
        slot.rec = undefined;
      }
      slot.envKey = envKey;
      try {
        slot.rec ??= recordObservations(await ctx.runtime.createEnv(ctx.envSpec, ctx.blobs));
        slot.rec.clear();
        const outcome = await req.execute(job, slot.rec);
        if (outcome.stopReason !== "env-error")
          throw new EpisodeDone(
            okLine(ctx.experiment, job, tries, outcome, attempt.failedTries),
            outcome.envMs,
            outcome.callMs,
          );
        throw envErrorOf(outcome);
      } catch (err) {
        if (!(err instanceof EnvironmentError || err instanceof StepTimeoutError)) throw err;
        // The try is thrown away, not what it did: its record goes on the line, as in a local run.
        failed = failedTryOf(err);
        // Not retryable (e.g. a replay that spent its desync retries): record it now.
        if (err instanceof EnvironmentError && !err.retryable)
          spent = { ...(err instanceof ReplayDesyncError && { desyncs: err.desyncs }) };
      }
      // An environment error: drop the environment; BullMQ retries with backoff while attempts remain.
      const env = slot.rec?.env;
      slot.rec = undefined;
      await env?.close().catch(() => {});
      if (!attempt.lastAttempt && !spent) {
        await attempt.markEnvFailure(failed);
        throw new EnvironmentError(`${data.key}: ${failed.envError}`);
      }
      throw new EpisodeDone(
        {
          ...envErrorLine(ctx.experiment, job, tries, failed.envError, [...attempt.failedTries, failed]),
          ...(spent?.desyncs && { replayDesyncs: spent.desyncs }),
        },
        0,
      );
    },
  };
}

/**
 * The scratch episode folder's files, relative to the run folder. A file identical to a stored
 * blob (the step_N.png copies of screenshots) is stored as its reference, not a second time.
 */
async function collectFiles(
  dir: string,
  blobs: PgBlobStore,
  skip: ReadonlySet<string> = new Set(),
): Promise<EpisodeFile[]> {
  const out: EpisodeFile[] = [];
  const walk = async (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) await walk(p);
      else {
        const path = relative(dir, p).split(sep).join("/");
        if (/^(results|timings)\.jsonl$/.test(path) || path === "manifest.json" || skip.has(path)) continue;
        const bytes = readFileSync(p);
        const ref = name.endsWith(".png") ? sha256Hex(bytes) : undefined;
        out.push(ref && blobs.isUploaded(ref) ? { path, ref } : { path, bytes });
      }
    }
  };
  await walk(dir);
  return out;
}
