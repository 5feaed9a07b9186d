/**
 * The episode queue on BullMQ (Redis): one job per episode, its id derived from the run id and
 * the episode key, so enqueuing a run twice never duplicates a job. Retries with exponential
 * backoff are BullMQ's (`attempts`), a dead worker's job comes back through BullMQ's stalled-job
 * check (its lock lapses after `lockMs`), and `removeOnComplete` keeps finished ids for a day so
 * re-enqueuing still finds them.
 */
import type { Queue, Job } from "bullmq";
import type { Redis } from "ioredis";
import { requireOptional } from "@retrace-cua/core/optional-import";
import { ConfigError, describeError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import { redactText } from "@retrace-cua/core/secrets";

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
  /**
   * What each of those attempts did (the result line's `failedTries`: error, detector calls and
   * failures, model calls), carried to the attempt that makes the line. Plain JSON.
   */
  failedTries?: object[];
}

/** The default queue name. */
export const DEFAULT_QUEUE = "retrace-episodes";

/** Check a redis:// URL; a ConfigError naming the flag otherwise. */
export function checkRedisUrl(url: string, field = "queue"): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(`--${field}: "${redactText(url)}" is not a URL; expected redis://HOST:PORT`, { field });
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:")
    throw new ConfigError(`--${field}: expected redis://HOST:PORT, got ${u.protocol}//...`, { field });
}

/** An ioredis client for a redis:// URL, as BullMQ needs it (no per-request retry cap). */
export function redisClient(url: string, field = "queue"): Redis {
  checkRedisUrl(url, field);
  const { Redis } = requireOptional<typeof import("ioredis")>("ioredis", "the Redis episode queue");
  const client = new Redis(url, {
    maxRetriesPerRequest: null,
    retryStrategy: (n) => Math.min(100 * n, 1_000),
    connectTimeout: 5_000,
  });
  client.on("error", (err) => logger.debug({ err: describeError(err) }, "redis connection error (reconnecting)"));
  return client;
}

/** How long a command waits for Redis at start before it gives up. @default 10000 */
export const REDIS_CONNECT_DEADLINE_MS = 10_000;

/** A redis:// URL without its password, for messages. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(unparseable URL)";
  }
}

/**
 * Wait until `client` is connected, for at most `deadlineMs`. On the deadline the client is
 * disconnected (no reconnect timer left behind) and a ConfigError names the URL and the last
 * connection error. Once connected, the client keeps reconnecting on its own (a Redis restart
 * mid-run is ridden out); only the first connection has a deadline.
 */
export async function redisReady(
  client: Redis,
  url: string,
  options: { field?: string; deadlineMs?: number } = {},
): Promise<void> {
  if (client.status === "ready") return;
  const deadlineMs = options.deadlineMs ?? REDIS_CONNECT_DEADLINE_MS;
  let last = "";
  const onError = (err: Error) => (last = describeError(err));
  client.on("error", onError);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("deadline")), deadlineMs);
      client.once("ready", () => (clearTimeout(timer), resolve()));
    });
  } catch {
    client.disconnect();
    const flag = options.field ? `--${options.field}: ` : "";
    throw new ConfigError(
      `${flag}cannot reach Redis at ${redactRedisUrl(url)} within ${Math.round(deadlineMs / 1000)} s${last ? ` (${last.split("\n")[0]})` : ""}; start it, or pass another URL`,
      { field: options.field ?? "queue" },
    );
  } finally {
    client.off("error", onError);
  }
}

/**
 * Connect to Redis once and disconnect: a ConfigError naming `--field` when it is not reachable within the deadline.
 */
export async function checkRedisReachable(
  url: string,
  options: { field?: string; deadlineMs?: number } = {},
): Promise<void> {
  const client = redisClient(url, options.field);
  await redisReady(client, url, options);
  client.disconnect();
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
  constructor(
    private readonly url: string,
    readonly name = DEFAULT_QUEUE,
  ) {
    this.client = redisClient(url);
    const { Queue } = requireOptional<typeof import("bullmq")>("bullmq", "the Redis episode queue");
    this.queue = new Queue(name, { connection: this.client });
    this.queue.on("error", (err) => logger.debug({ err: describeError(err) }, "queue error"));
  }

  /** Wait for the first connection (see {@link redisReady}); a ConfigError after the deadline. */
  async ready(deadlineMs?: number): Promise<void> {
    try {
      await redisReady(this.client, this.url, { deadlineMs });
    } catch (err) {
      await this.queue.close().catch(() => {});
      throw err;
    }
  }

  /**
   * Enqueue jobs of episodes that have no result yet (waiting/active ids are kept; failed and completed ones run
   * again).
   */
  async enqueue(
    jobs: readonly EpisodeJobData[],
    options: EnqueueOptions = {},
  ): Promise<{ added: number; retried: number; existing: number }> {
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
    const opts = {
      attempts: options.attempts ?? 3,
      backoff: { type: "exponential", delay: options.backoffMs ?? 2_000 },
      removeOnComplete: { age: 86_400 },
      removeOnFail: { age: 7 * 86_400 },
    };
    for (let i = 0; i < fresh.length; i += 500) {
      const batch = fresh.slice(i, i + 500);
      const res = await this.queue.addBulk(
        batch.map((data) => ({ name: "episode", data, opts: { ...opts, jobId: episodeJobId(data.runId, data.key) } })),
      );
      added += res.length;
    }
    return { added, retried, existing };
  }

  /** Every not-yet-completed job of a run with its state. */
  async jobsOf(
    runId: string,
    states: Array<"active" | "waiting" | "delayed" | "failed" | "prioritized"> = [
      "active",
      "waiting",
      "delayed",
      "failed",
      "prioritized",
    ],
  ): Promise<EpisodeJobState[]> {
    const out: EpisodeJobState[] = [];
    for (const state of states) {
      const jobs = (await this.queue.getJobs([state], 0, -1)) as Job<EpisodeJobData>[];
      for (const j of jobs)
        if (j?.data?.runId === runId)
          out.push({
            key: j.data.key,
            condition: j.data.condition,
            state,
            attemptsMade: j.attemptsMade,
            failedReason: j.failedReason || undefined,
          });
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
  /** How long to wait for the first connection to Redis. @default REDIS_CONNECT_DEADLINE_MS */
  connectDeadlineMs?: number;
  /** Run one job. Throwing fails this attempt (BullMQ retries with backoff while attempts remain). */
  process: (job: {
    data: EpisodeJobData;
    attemptsMade: number;
    attempts: number;
    slot: number;
    updateData: (d: EpisodeJobData) => Promise<void>;
  }) => Promise<void>;
}

/** A running queue consumer. */
export interface EpisodeWorkerHandle {
  /** Stop taking jobs and wait for the in-flight ones (`force`: hand them back without waiting). */
  close(force?: boolean): Promise<void>;
}

/** Consume the episode queue with `concurrency` slots (after the first connection to Redis, within its deadline). */
export async function startEpisodeWorker(options: EpisodeWorkerOptions): Promise<EpisodeWorkerHandle> {
  const client = redisClient(options.url);
  await redisReady(client, options.url, { deadlineMs: options.connectDeadlineMs });
  const lockMs = options.lockMs ?? 30_000;
  const free = Array.from({ length: options.concurrency }, (_, i) => options.concurrency - 1 - i);
  const { Worker } = requireOptional<typeof import("bullmq")>("bullmq", "the Redis episode queue");
  const worker = new Worker<EpisodeJobData>(
    options.queue ?? DEFAULT_QUEUE,
    async (job) => {
      const slot = free.pop() ?? 0;
      try {
        await options.process({
          data: job.data,
          attemptsMade: job.attemptsMade,
          attempts: job.opts.attempts ?? 1,
          slot,
          updateData: (d) => job.updateData(d),
        });
      } finally {
        free.push(slot);
      }
    },
    {
      connection: client,
      concurrency: options.concurrency,
      lockDuration: lockMs,
      stalledInterval: options.stalledIntervalMs ?? Math.max(500, Math.floor(lockMs / 2)),
      maxStalledCount: 5,
      autorun: true,
    },
  );
  // While Redis is down BullMQ reports every reconnect attempt (several a second): one line when
  // the connection is lost, then one every 30 s, and one when it is back.
  let lostAt = 0;
  let lastLog = 0;
  worker.on("error", (err) => {
    if (
      !/ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|Connection is closed/i.test(describeError(err))
    )
      return void logger.warn({ err: describeError(err) }, "queue worker error");
    const now = Date.now();
    if (lostAt && now - lastLog < 30_000) return;
    if (!lostAt) lostAt = now;
    lastLog = now;
    logger.warn(
      { err: describeError(err), downForMs: now - lostAt },
      lostAt === now ? "queue worker error (Redis unreachable? retrying)" : "Redis still unreachable, retrying",
    );
  });
  client.on("ready", () => {
    if (lostAt) logger.warn({ downForMs: Date.now() - lostAt }, "Redis reachable again");
    lostAt = 0;
  });
  worker.on("failed", (job, err) =>
    logger.warn({ key: job?.data.key, attempt: job?.attemptsMade, err: describeError(err) }, "episode attempt failed"),
  );
  return {
    async close(force = false) {
      // With Redis gone, BullMQ's close waits for a connection that may never come: hand the
      // jobs back (their locks lapse) and stop within seconds instead.
      const lost = client.status !== "ready";
      const closed = worker
        .close(force || lost)
        .catch((err) => logger.warn({ err: describeError(err) }, "closing the queue worker failed"));
      if (force || lost) await Promise.race([closed, new Promise((r) => setTimeout(r, 3_000).unref())]);
      else await closed;
      client.disconnect();
    },
  };
}
