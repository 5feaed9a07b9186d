/**
 * The episode queue on BullMQ (Redis): one job per episode, its id derived from the run id and
 * the episode key, so enqueuing a run twice never duplicates a job. Retries with exponential
 * backoff are BullMQ's (`attempts`), a dead worker's job comes back through BullMQ's stalled-job
 * check (its lock lapses after `lockMs`), and `removeOnComplete` keeps finished ids for a day so
 * re-enqueuing still finds them.
 */
import { Queue, Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import { ConfigError, describeError } from "../../../src/errors.ts";
import { logger } from "../../../src/logger.ts";

/** What a job carries: enough to find the run (in PostgreSQL) and the episode in its expansion. */
export interface EpisodeJobData {
  runId: string;
  key: string;
  index: number;
  phase: string;
  condition: string;
  /** Epoch ms when the job was enqueued (queue-overhead measurement). */
  enqueuedAt: number;
  /** Attempts that ended in an environment error (the result line's envTries counts them). */
  envFailures?: number;
}

/** The default queue name. */
export const DEFAULT_QUEUE = "retrace-episodes";

/** Check a redis:// URL; a ConfigError naming the flag otherwise. */
export function checkRedisUrl(url: string, field = "queue"): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(`--${field}: "${url}" is not a URL; expected redis://HOST:PORT`, { field });
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") throw new ConfigError(`--${field}: expected redis://HOST:PORT, got ${u.protocol}//...`, { field });
}

/** An ioredis client for a redis:// URL, as BullMQ needs it (no per-request retry cap). */
export function redisClient(url: string, field = "queue"): Redis {
  checkRedisUrl(url, field);
  const client = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (n) => Math.min(100 * n, 1_000) });
  client.on("error", (err) => logger.debug({ err: describeError(err) }, "redis connection error (reconnecting)"));
  return client;
}

/** The BullMQ job id of an episode (BullMQ forbids ":" in custom ids). */
export function episodeJobId(runId: string, key: string): string {
  return `${runId}|${key}`.replaceAll(":", "%3A");
}

/** One job's state, for status and progress. */
export interface EpisodeJobState {
  key: string;
  condition: string;
  state: string;
  attemptsMade: number;
  failedReason?: string;
}

/** Enqueue options. */
export interface EnqueueOptions {
  /** Tries per job (environment errors and lost connections count, a dead worker does not). @default 3 */
  attempts?: number;
  /** First backoff delay in ms, doubled per retry. @default 2000 */
  backoffMs?: number;
}

/** The producer side: enqueue, inspect and cancel a run's jobs. */
export class EpisodeQueue {
  readonly queue: Queue;
  private readonly client: Redis;
  constructor(url: string, readonly name = DEFAULT_QUEUE) {
    this.client = redisClient(url);
    this.queue = new Queue(name, { connection: this.client });
    this.queue.on("error", (err) => logger.debug({ err: describeError(err) }, "queue error"));
  }

  /** Enqueue jobs of episodes that have no result yet (waiting/active ids are kept; failed and completed ones run again). */
  async enqueue(jobs: readonly EpisodeJobData[], options: EnqueueOptions = {}): Promise<{ added: number; retried: number; existing: number }> {
    let added = 0;
    let retried = 0;
    let existing = 0;
    const fresh: EpisodeJobData[] = [];
    for (const data of jobs) {
      const job = await this.queue.getJob(episodeJobId(data.runId, data.key));
      const state = job && (await job.getState());
      if (!job) fresh.push(data);
      else if (state === "failed") {
        await job.retry("failed");
        retried++;
      } else if (state === "completed") {
        // Callers enqueue only episodes without a result: a completed job without one was skipped
        // (its run was cancelled at the time), so it runs again.
        await job.remove();
        fresh.push(data);
      } else existing++;
    }
    const opts = { attempts: options.attempts ?? 3, backoff: { type: "exponential", delay: options.backoffMs ?? 2_000 }, removeOnComplete: { age: 86_400 }, removeOnFail: { age: 7 * 86_400 } };
    for (let i = 0; i < fresh.length; i += 500) {
      const batch = fresh.slice(i, i + 500);
      const res = await this.queue.addBulk(batch.map((data) => ({ name: "episode", data, opts: { ...opts, jobId: episodeJobId(data.runId, data.key) } })));
      added += res.length;
    }
    return { added, retried, existing };
  }

  /** Every not-yet-completed job of a run with its state. */
  async jobsOf(runId: string, states: Array<"active" | "waiting" | "delayed" | "failed" | "prioritized"> = ["active", "waiting", "delayed", "failed", "prioritized"]): Promise<EpisodeJobState[]> {
    const out: EpisodeJobState[] = [];
    for (const state of states) {
      const jobs = (await this.queue.getJobs([state], 0, -1)) as Job<EpisodeJobData>[];
      for (const j of jobs) if (j?.data?.runId === runId) out.push({ key: j.data.key, condition: j.data.condition, state, attemptsMade: j.attemptsMade, failedReason: j.failedReason || undefined });
    }
    return out;
  }

  /** Remove a run's waiting, delayed and failed jobs; returns how many (active ones finish or see the cancel flag). */
  async removePending(runId: string): Promise<number> {
    let n = 0;
    for (const state of ["waiting", "delayed", "prioritized", "failed"] as const) {
      const jobs = (await this.queue.getJobs([state], 0, -1)) as Job<EpisodeJobData>[];
      for (const j of jobs)
        if (j?.data?.runId === runId) {
          await j.remove().catch(() => {});
          n++;
        }
    }
    return n;
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.client.disconnect();
  }
}

/** Options of {@link startEpisodeWorker}. */
export interface EpisodeWorkerOptions {
  url: string;
  queue?: string;
  /** Episodes run at once (one environment each). @default 1 */
  concurrency: number;
  /** Lock lease: a worker silent for this long is presumed dead and its job handed to another. @default 30000 */
  lockMs?: number;
  /** How often the stalled-job check runs. @default lockMs / 2 */
  stalledIntervalMs?: number;
  /** Run one job. Throwing fails this attempt (BullMQ retries with backoff while attempts remain). */
  process: (job: { data: EpisodeJobData; attemptsMade: number; attempts: number; slot: number; updateData: (d: EpisodeJobData) => Promise<void> }) => Promise<void>;
}

/** A running queue consumer. */
export interface EpisodeWorkerHandle {
  /** Stop taking jobs and wait for the in-flight ones (`force`: hand them back without waiting). */
  close(force?: boolean): Promise<void>;
}

/** Consume the episode queue with `concurrency` slots. */
export function startEpisodeWorker(options: EpisodeWorkerOptions): EpisodeWorkerHandle {
  const client = redisClient(options.url);
  const lockMs = options.lockMs ?? 30_000;
  const free = Array.from({ length: options.concurrency }, (_, i) => options.concurrency - 1 - i);
  const worker = new Worker<EpisodeJobData>(
    options.queue ?? DEFAULT_QUEUE,
    async (job) => {
      const slot = free.pop() ?? 0;
      try {
        await options.process({ data: job.data, attemptsMade: job.attemptsMade, attempts: job.opts.attempts ?? 1, slot, updateData: (d) => job.updateData(d) });
      } finally {
        free.push(slot);
      }
    },
    { connection: client, concurrency: options.concurrency, lockDuration: lockMs, stalledInterval: options.stalledIntervalMs ?? Math.max(500, Math.floor(lockMs / 2)), maxStalledCount: 5, autorun: true },
  );
  worker.on("error", (err) => logger.warn({ err: describeError(err) }, "queue worker error"));
  worker.on("failed", (job, err) => logger.warn({ key: job?.data.key, attempt: job?.attemptsMade, err: describeError(err) }, "episode attempt failed"));
  return {
    async close(force = false) {
      await worker.close(force);
      client.disconnect();
    },
  };
}
