/**
 * Distributed runs on BullMQ + PostgreSQL: `retrace run CONFIG --queue redis://...` (the
 * coordinator: enqueue, progress per condition, the run folder at the end), `retrace worker`,
 * `retrace status RUN` and `retrace cancel RUN`. RUN is a run id or a run folder (its queue.json).
 */
import { safeName } from "./terminal.ts";
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { existsSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Option, type Command } from "commander";
import type cliProgressModule from "cli-progress";
import { requireOptional } from "@retrace-cua/core/optional-import";
import { ConfigError } from "@retrace-cua/core/errors";
import { checkOutDir } from "@retrace-cua/core/store/out-dir";
import { runtimeSettings } from "@retrace-cua/core/settings";
import { setEndpointLimiter } from "@retrace-cua/core/runtime/endpoint-limit";
import { createRedisEndpointLimiter, parseMaxRps } from "@retrace-cua/stores/queue/redis-rate-limit";
import {
  EpisodeQueue,
  DEFAULT_QUEUE,
  checkRedisReachable,
  checkRedisUrl,
} from "@retrace-cua/stores/queue/bullmq/episode-queue";
import { PgBlobStore } from "@retrace-cua/stores/postgres/blob-store";
import { checkPostgresUrl, connectPostgres } from "@retrace-cua/stores/postgres/connect";
import { PgRunStore } from "@retrace-cua/stores/postgres/run-store";
import type { ExperimentConfig } from "../config/schema.ts";
import { distributedRunId, queueCoordinator, type QueueProgress } from "../distributed/coordinator.ts";
import { startWorker } from "../distributed/worker.ts";
import { runExperiment, type ExperimentRun } from "../runner/experiment.ts";
import type { ExperimentRuntime } from "../runner/runtime.ts";
import { textTable, type RunFlags } from "./run-options.ts";
import { parseIntFlag } from "./numeric-flags.ts";
import { nonEmpty } from "./common-flags.ts";

/** Flags of the queue-backed commands. */
export interface QueueFlags {
  queue?: string;
  store?: string;
  queueName?: string;
  attempts?: string;
}

/** `queue.json` in a distributed run's folder. */
export interface QueueFile {
  runId: string;
  queueName: string;
}

/** `--queue-name`: BullMQ keys its Redis entries by it, so it is a name (no empty text, no ":"). */
function queueName(value: string): string {
  nonEmpty("--queue-name", "a queue name such as retrace-episodes")(value);
  if (/[:\s]/.test(value) || value.length > 100)
    throw new ConfigError(
      `--queue-name: "${safeName(value)}" is not a queue name; use letters, digits, - and _ (at most 100)`,
      { field: "queue-name" },
    );
  return value;
}

/** Add --store and --queue-name (and, for `run`, --attempts). */
export function addQueueFlags(cmd: Command, options: { attempts?: boolean } = {}): Command {
  cmd
    .option("--store <url>", "postgres:// URL for shared results, blobs and checkpoints (default: $RETRACE_STORE_URL)")
    .option("--queue-name <name>", "BullMQ queue name", queueName, DEFAULT_QUEUE);
  if (options.attempts)
    cmd.option(
      "--attempts <n>",
      "tries per episode before it counts as failed (environment errors, lost connections; a dead worker does not count)",
      "3",
    );
  return cmd;
}

/** Resolve --queue/--store against the environment; a ConfigError naming the flag when missing. */
export function queueUrls(flags: QueueFlags): { queue: string; store: string } {
  const s = runtimeSettings();
  const queue = flags.queue ?? s.queueUrl;
  const store = flags.store ?? s.storeUrl;
  if (!queue)
    throw new ConfigError("--queue: give the redis:// URL of the episode queue (or set RETRACE_QUEUE_URL)", {
      field: "queue",
    });
  if (!store)
    throw new ConfigError(
      "--store: give the postgres:// URL for results, blobs and checkpoints (or set RETRACE_STORE_URL)",
      { field: "store" },
    );
  checkRedisUrl(queue, "queue");
  checkPostgresUrl(store, "--store");
  return { queue, store };
}

/** Run a config through the queue and write the run folder (what `retrace run --queue` does). */
export async function runQueued(
  config: ExperimentConfig,
  registered: ExperimentConfig,
  runtime: ExperimentRuntime,
  flags: RunFlags & QueueFlags,
  out: string,
  seedBase: number,
  quiet: boolean,
): Promise<ExperimentRun> {
  const urls = queueUrls(flags);
  const attempts = positiveInt(flags.attempts ?? "3", "--attempts", 100);
  // Nothing is written before both services answer (each within its deadline).
  checkOutDir(out);
  const pg = await connectPostgres(urls.store);
  const queue = await openQueue(urls.queue, flags.queueName ?? DEFAULT_QUEUE, pg);
  const runId = distributedRunId(config, seedBase, out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "queue.json"), JSON.stringify({ runId, queueName: queue.name } satisfies QueueFile) + "\n");
  if (!quiet)
    process.stderr.write(
      `run ${runId}: episodes go to ${queue.name}; start workers with: npx retrace worker --queue ${flags.queue ?? "$RETRACE_QUEUE_URL"} --store ${flags.store ? "<url>" : "$RETRACE_STORE_URL"}\n`,
    );
  const bars = conditionBars(quiet);
  try {
    const remote = queueCoordinator({
      runId,
      queue,
      store: new PgRunStore(pg),
      blobs: new PgBlobStore({ dir: join(out, "blobs"), pg }),
      config: registered,
      seedBase,
      attempts,
      onProgress: bars.update,
    });
    return await runExperiment(config, runtime, { out, seedBase, resume: flags.resume === true, remote });
  } finally {
    bars.stop();
    await queue.close();
    await pg.close();
  }
}

/** One progress bar per condition: done / running / failed / ETA. */
function conditionBars(quiet: boolean): { update: (p: QueueProgress) => void; stop: () => void } {
  if (quiet) return { update: () => {}, stop: () => {} };
  const cliProgress = requireOptional<typeof cliProgressModule>(
    "cli-progress",
    "retrace status --watch (progress bars)",
  );
  const multi = new cliProgress.MultiBar(
    {
      format:
        "{condition} |{bar}| {value}/{total} done | running {running} | failed {failed} | env err {envErrors} | ETA {eta}",
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const bars = new Map<string, cliProgressModule.SingleBar>();
  return {
    update(p) {
      const width = Math.max(...p.conditions.map((c) => safeName(c.condition).length));
      const doneNow = p.conditions.reduce((s, c) => s + c.done, 0) - p.skipped;
      const rate = doneNow / Math.max(1, Date.now() - p.startedAt);
      for (const c of p.conditions) {
        const eta = rate > 0 ? `${Math.round((c.total - c.done) / rate / 1000)}s` : "-";
        const payload = {
          condition: safeName(c.condition).padEnd(width),
          running: c.running,
          failed: c.failed,
          envErrors: c.envErrors,
          eta,
        };
        let bar = bars.get(c.condition);
        if (!bar) bars.set(c.condition, (bar = multi.create(c.total, c.done, payload)));
        bar.update(c.done, payload);
      }
    },
    stop: () => multi.stop(),
  };
}

function positiveInt(v: string, flag: string, max = 1_000, min = 1): number {
  return parseIntFlag(flag, v, { min, max, expect: `expected a whole number from ${min} to ${max}` });
}

/** A RUN argument: a run id, or a run folder with queue.json. */
function runIdOf(run: string): { runId: string; queueName?: string } {
  const file = join(run, "queue.json");
  if (existsSync(file)) {
    const q = readJsonFile<QueueFile>(file, {
      what: "queue.json",
      hint: "it should be the queue.json written by `retrace run --queue`; give the run id instead",
    });
    if (typeof q !== "object" || q === null || typeof q.runId !== "string" || !q.runId)
      throw new ConfigError(
        `${file} has no "runId"; it should be the queue.json written by \`retrace run --queue\`; give the run id instead`,
      );
    return q;
  }
  if (existsSync(run))
    throw new ConfigError(
      `${run} has no queue.json: it is not a distributed run folder (give the run id printed by retrace run --queue)`,
    );
  return { runId: run };
}

/** Register `worker`, `status` and `cancel`. `runtimeFor` builds the runtime of an env kind. */
export function registerQueueCommands(
  program: Command,
  runtimeFor: (envKind: string, env: ExperimentConfig["env"]) => ExperimentRuntime,
): void {
  addQueueFlags(
    program
      .command("worker")
      .description(
        "Run queued episodes (of any `retrace run --queue` run) until stopped; SIGTERM finishes the episodes in flight, a second SIGTERM hands them back",
      )
      .option("--queue <url>", "redis:// URL of the episode queue (default: $RETRACE_QUEUE_URL)")
      .option("-c, --concurrency <n>", "episodes at once, each with its own environment", "1")
      .option("--checkpoint <url>", "postgres:// URL of the LangGraph checkpointer (default: --store)")
      .option(
        "--work-dir <dir>",
        "local folder for cached blobs and scratch episode folders",
        join(tmpdir(), "retrace-worker"),
      )
      .addOption(new Option("--cache <dir>", "renamed: use --work-dir").hideHelp())
      .addOption(new Option("--cache-dir <dir>", "renamed: use --work-dir").hideHelp())
      .option(
        "--max-rps <spec...>",
        "cap requests per second to model endpoints, shared by every worker through Redis: N (each endpoint) or BASE_URL=N",
      )
      .option(
        "--lock-ms <n>",
        "lock lease: a worker silent this long is presumed dead and its episode handed on",
        "30000",
      )
      .option(
        "--keep-checkpoints",
        "keep each episode's LangGraph checkpoints after its result is stored (default: delete them then)",
      )
      .addOption(
        new Option(
          "--env <kind>",
          "environment override for every run: simdesk, x11, docker, browser or osworld (default: each run's env.kind)",
        ).choices(["simdesk", "x11", "docker", "browser", "osworld"]),
      )
      .addOption(new Option("-q, --quiet", "no per-episode lines")),
  ).action(
    async (
      flags: QueueFlags & {
        concurrency: string;
        checkpoint?: string;
        cache?: string;
        cacheDir?: string;
        workDir: string;
        lockMs: string;
        env?: string;
        quiet?: boolean;
        maxRps?: string[];
        keepCheckpoints?: boolean;
      },
    ) => {
      // One meaning per flag name: --cache is the model-call cache mode and --cache-dir its folder in
      // `run`, `chaos`, `report`; the worker's own scratch folder is --work-dir.
      if (flags.cache !== undefined)
        throw new ConfigError(
          `worker: --cache is now --work-dir <dir> (the worker's local folder); --cache names the model-call cache mode in \`retrace run\``,
          { field: "cache" },
        );
      if (flags.cacheDir !== undefined)
        throw new ConfigError(
          `worker: --cache-dir is now --work-dir <dir> (the worker's local folder); --cache-dir names the model-call cache folder in \`retrace run\``,
          { field: "cache-dir" },
        );
      const urls = queueUrls(flags);
      if (flags.checkpoint) checkPostgresUrl(flags.checkpoint, "--checkpoint");
      const concurrency = positiveInt(flags.concurrency, "--concurrency", 64);
      const lockMs = positiveInt(flags.lockMs, "--lock-ms", 3_600_000, 1_000);
      const rpsSpec = flags.maxRps?.length ? parseMaxRps(flags.maxRps) : undefined;
      checkOutDir(flags.workDir, { flag: "--work-dir" });
      // Redis first, with a deadline: an unreachable queue is one line, not a retry loop.
      await checkRedisReachable(urls.queue, { field: "queue" });
      const rps = rpsSpec ? createRedisEndpointLimiter(urls.queue, rpsSpec) : undefined;
      if (rps) setEndpointLimiter(rps.limiter);
      // One runtime per env kind; a run's config names its kind unless --env overrides it.
      const runtimes = new Map<string, ExperimentRuntime>();
      const runtimeOf = (config: ExperimentConfig) => {
        const kind = flags.env ?? config.env.kind;
        const key = `${kind}:${JSON.stringify(config.env)}`;
        if (!runtimes.has(key)) runtimes.set(key, runtimeFor(kind, config.env));
        return runtimes.get(key)!;
      };
      let worker: Awaited<ReturnType<typeof startWorker>>;
      try {
        worker = await startWorker({
          queueUrl: urls.queue,
          queueName: flags.queueName,
          storeUrl: urls.store,
          checkpointUrl: flags.checkpoint,
          concurrency,
          runtimeOf,
          cacheDir: join(flags.workDir, String(process.pid)),
          lockMs,
          keepCheckpoints: flags.keepCheckpoints === true,
          onStart: (e) =>
            flags.quiet ||
            process.stderr.write(
              `start ${safeName(e.key, 300)}${e.resumed ? " (resuming its checkpoints)" : ""}${e.attempt > 1 ? ` attempt ${e.attempt}` : ""}\n`,
            ),
          onEpisode: (e) =>
            flags.quiet ||
            process.stderr.write(
              `done ${safeName(e.key, 300)}: ${e.status}${e.stored ? "" : " (not stored: already done)"}${e.resumed ? " (resumed)" : ""} ${e.ms} ms\n`,
            ),
        });
      } catch (err) {
        rps?.close();
        throw err;
      }
      process.stderr.write(`worker ${process.pid}: ${concurrency} slot(s) on ${flags.queueName ?? DEFAULT_QUEUE}\n`);
      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = () => {
          const force = stopping;
          stopping = true;
          process.stderr.write(
            force
              ? "handing the in-flight episodes back\n"
              : "finishing the in-flight episodes (SIGTERM again to hand them back)\n",
          );
          // A forced stop ends the process within seconds even when Redis or PostgreSQL hang the close.
          if (force)
            setTimeout(
              () => (process.stderr.write("retrace: worker stopped before its connections closed\n"), process.exit(1)),
              8_000,
            ).unref();
          void worker.close(force).finally(() => {
            rps?.close();
            resolve();
          });
        };
        process.on("SIGTERM", stop);
        process.on("SIGINT", stop);
      });
    },
  );

  addQueueFlags(
    program
      .command("status")
      .description("Progress of a distributed run: done / running / waiting / failed per condition")
      .argument("<run>", "run id or run folder")
      .option("--queue <url>", "redis:// URL of the episode queue (default: $RETRACE_QUEUE_URL)"),
  ).action(async (run: string, flags: QueueFlags) => {
    await withRunHandles(run, flags, async ({ runId, pg, queue }) => {
      const store = new PgRunStore(pg);
      const row = await store.getRun(runId);
      if (!row) throw new ConfigError(`no run ${runId} in ${pg.where}`);
      const counts = await store.countsByCondition(runId);
      const open = await queue.jobsOf(runId);
      const conds = new Set([...counts.keys(), ...open.map((j) => j.condition)]);
      const rows = [...conds].sort().map((c) => {
        const mine = open.filter((j) => j.condition === c);
        const n = (s: string) => String(mine.filter((j) => j.state === s).length);
        return [
          c,
          String(counts.get(c)?.done ?? 0),
          n("active"),
          String(mine.filter((j) => ["waiting", "delayed", "prioritized"].includes(j.state)).length),
          n("failed"),
          String(counts.get(c)?.envErrors ?? 0),
        ];
      });
      const done = [...counts.values()].reduce((s, c) => s + c.done, 0);
      process.stdout.write(
        `run ${safeName(runId)} (${safeName(row.experiment)})${row.cancelled ? " CANCELLED" : ""}: ${done}/${row.total} episodes stored\n${textTable(["condition", "done", "running", "waiting", "failed", "env err"], rows)}\n`,
      );
      for (const f of open.filter((j) => j.state === "failed").slice(0, 5))
        process.stdout.write(
          `failed ${safeName(f.key, 300)} after ${f.attemptsMade} attempt(s): ${safeName(f.failedReason ?? "?", 300)}\n`,
        );
    });
  });

  addQueueFlags(
    program
      .command("cancel")
      .description(
        "Cancel a distributed run: its waiting jobs are removed, workers skip the rest; stored results stay (re-run the same command to continue)",
      )
      .argument("<run>", "run id or run folder")
      .option("--queue <url>", "redis:// URL of the episode queue (default: $RETRACE_QUEUE_URL)"),
  ).action(async (run: string, flags: QueueFlags) => {
    await withRunHandles(run, flags, async ({ runId, pg, queue }) => {
      if (!(await new PgRunStore(pg).setCancelled(runId))) throw new ConfigError(`no run ${runId} in ${pg.where}`);
      const removed = await queue.removePending(runId);
      process.stdout.write(`run ${runId} cancelled: ${removed} queued episode(s) removed; episodes in flight finish\n`);
    });
  });
}

/**
 * The run id, PostgreSQL store and episode queue of a run named by id or folder (status, cancel); both closed after
 * `fn`.
 */
async function withRunHandles(
  run: string,
  flags: QueueFlags,
  fn: (h: { runId: string; pg: Awaited<ReturnType<typeof connectPostgres>>; queue: EpisodeQueue }) => Promise<void>,
): Promise<void> {
  const urls = queueUrls(flags);
  const { runId, queueName } = runIdOf(run);
  const pg = await connectPostgres(urls.store);
  const queue = await openQueue(
    urls.queue,
    flags.queueName !== DEFAULT_QUEUE ? flags.queueName! : (queueName ?? DEFAULT_QUEUE),
    pg,
  );
  try {
    await fn({ runId, pg, queue });
  } finally {
    await queue.close();
    await pg.close();
  }
}

/** The episode queue once Redis answers (within its deadline); on failure `pg` is closed too. */
async function openQueue(url: string, name: string, pg: { close(): Promise<void> }): Promise<EpisodeQueue> {
  const queue = new EpisodeQueue(url, name);
  try {
    await queue.ready();
  } catch (err) {
    await pg.close().catch(() => {});
    throw err;
  }
  return queue;
}
