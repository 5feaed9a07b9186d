/**
 * Distributed runs on this machine: episodes per minute of a SimDesk end-to-end run (192 episodes,
 * after a warm-up run on the same workers) with 1, 2 and 4 `retrace worker` processes against one
 * Redis and one PostgreSQL (target: 4 workers >= 1.7x of 1 worker), and the queue's own overhead per episode with an
 * idle worker (enqueue -> the worker
 * picks the job up; episode finished -> its result row committed; target: < 20 ms median).
 * Uses RETRACE_TEST_REDIS_URL / RETRACE_TEST_POSTGRES_URL when set, else starts throwaway servers
 * (needs redis-server and PostgreSQL; skipped with a note when they are missing). Each worker
 * process runs with RETRACE_SHARP_CONCURRENCY=1: N processes each with a libvips pool of one
 * thread per core would only contend on a small machine.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawn, type ChildProcess } from "node:child_process";
import { EpisodeQueue } from "@retrace-cua/stores/queue/bullmq/episode-queue";
import { PgBlobStore } from "@retrace-cua/stores/postgres/blob-store";
import { connectPostgres, type PgHandle } from "@retrace-cua/stores/postgres/connect";
import { PgRunStore } from "@retrace-cua/stores/postgres/run-store";
import { hasRedis, pgBin, startPrivatePostgres, startPrivateRedis } from "@retrace-cua/testing/local-services";
import { parseExperimentConfig } from "../config/load.ts";
import { distributedRunId, queueCoordinator } from "../distributed/coordinator.ts";
import { conditionsOf, expandJobs, resolveSeeds } from "../runner/conditions.ts";
import { runExperiment } from "../runner/experiment.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import type { BenchResult } from "./result.ts";
import { killOnBenchExit, onBenchExit } from "./cleanup.ts";
import { cpuSecondsMatching, cpuSecondsOf, machineScaling, POSTGRES_PROCESSES, REDIS_PROCESSES } from "./cpu.ts";

const BIN = fileURLToPath(new URL("../bin/retrace.mjs", import.meta.url));
const benchConfig = (name: string, tasks: number, seeds: number) =>
  parseExperimentConfig({
    kind: "end-to-end",
    name,
    env: { kind: "simdesk", limit: tasks },
    seeds: { count: seeds },
    maxRecoveryIterations: [3],
    options: { maxForwardSteps: 20 },
    pairs: [
      {
        name: "p",
        forward: { kind: "sim", profile: "sloppy" },
        recovery: { kind: "sim", profile: "skilled" },
        detector: { kind: "sim", profile: "decent" },
      },
    ],
  });
/**
 * 24 tasks x 4 seeds x 2 conditions = 192 episodes: 48 per worker at 4 workers, so start-up and the last episodes' tail
 * are a few % of the run, not most of it.
 */
const CONFIG = benchConfig("bench-dist", 24, 4);
/**
 * Run on the started workers before the clock starts: module loading, JIT and caches are paid once per worker, not per
 * episode.
 */
const WARM = benchConfig("bench-dist-warm", 4, 1);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

function startWorkers(
  n: number,
  redis: string,
  postgres: string,
  queueName: string,
  cache: string,
): Promise<ChildProcess[]> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ChildProcess>((resolve, reject) => {
          const p = spawn(
            process.execPath,
            [
              BIN,
              "worker",
              "--queue",
              redis,
              "--store",
              postgres,
              "--queue-name",
              queueName,
              "--work-dir",
              cache,
              "-q",
            ],
            {
              stdio: ["ignore", "ignore", "pipe"],
              env: { ...process.env, RETRACE_LOG_LEVEL: "error", RETRACE_SHARP_CONCURRENCY: "1" },
            },
          );
          killOnBenchExit(p);
          p.stderr!.on("data", (b: Buffer) => b.toString().includes("slot(s)") && resolve(p));
          p.on("exit", (code) => reject(new Error(`bench worker exited (${code}) before it was ready`)));
        }),
    ),
  );
}

async function stopWorkers(ps: ChildProcess[]): Promise<void> {
  await Promise.all(
    ps.map((p) => new Promise<void>((r) => (p.exitCode !== null ? r() : (p.on("exit", () => r()), p.kill("SIGTERM"))))),
  );
}

/**
 * Episodes per minute of the whole config with `n` worker processes, and the cores all processes kept busy meanwhile.
 */
async function throughput(
  n: number,
  redis: string,
  pg: PgHandle,
  postgres: string,
  dir: string,
): Promise<{ perMin: number; episodes: number; cores: number }> {
  const queue = new EpisodeQueue(redis, `bench-${process.pid}-${n}`);
  const workers = await startWorkers(n, redis, postgres, queue.name, join(dir, "cache"));
  try {
    const coordinated = (config: typeof CONFIG, out: string) => {
      const remote = queueCoordinator({
        runId: distributedRunId(config, 0, out),
        queue,
        store: new PgRunStore(pg),
        blobs: new PgBlobStore({ dir: join(out, "blobs"), pg }),
        config,
        seedBase: 0,
      });
      return runExperiment(config, createSimDeskRuntime(), { out, remote });
    };
    await coordinated(WARM, join(dir, `warm-${n}`));
    const cpu = () =>
      workers.reduce((a, p) => a + cpuSecondsOf(p.pid!), 0) +
      cpuSecondsMatching(POSTGRES_PROCESSES) +
      cpuSecondsMatching(REDIS_PROCESSES) +
      process.cpuUsage().user / 1e6 +
      process.cpuUsage().system / 1e6;
    const cpu0 = cpu();
    const t0 = performance.now();
    const run = await coordinated(CONFIG, join(dir, `run-${n}`));
    const ms = performance.now() - t0;
    return {
      perMin: run.lines.length / (ms / 60_000),
      episodes: run.lines.length,
      cores: (cpu() - cpu0) / (ms / 1000),
    };
  } finally {
    await stopWorkers(workers);
    await queue.close();
  }
}

/** Queue overhead with one idle worker: episodes enqueued one at a time. */
async function overhead(
  redis: string,
  pg: PgHandle,
  postgres: string,
  dir: string,
  count: number,
): Promise<{ pickup: number; store: number }> {
  const queue = new EpisodeQueue(redis, `bench-oh-${process.pid}`);
  const store = new PgRunStore(pg);
  const workers = await startWorkers(1, redis, postgres, queue.name, join(dir, "cache"));
  try {
    const runId = `bench-overhead-${process.pid}`;
    const conditions = conditionsOf(CONFIG as never);
    const tasks = createSimDeskRuntime()
      .tasks(CONFIG.env)
      .slice(0, 6)
      .map((t) => t.id);
    const jobs = expandJobs(
      conditions.map((c) => c.id),
      tasks,
      resolveSeeds(CONFIG.seeds, 0),
    ).slice(0, count);
    await store.registerRun({
      runId,
      experiment: CONFIG.name,
      config: JSON.stringify(CONFIG),
      seedBase: 0,
      total: jobs.length,
    });
    for (const j of jobs) {
      await queue.enqueue([
        { runId, key: j.key, index: j.index, phase: "episodes", condition: j.condition, enqueuedAt: Date.now() },
      ]);
      while (!(await store.storedKeys(runId)).has(j.key)) await new Promise((r) => setTimeout(r, 5));
    }
    const rows = await store.results(runId);
    const storedAt = await store.storedAt(runId);
    const t = rows.map((r) => ({
      ...(JSON.parse(r.timing) as { enqueuedAt: number; pickedAt: number; finishedAt: number }),
      at: storedAt.get(r.key)!,
    }));
    return {
      pickup: median(t.map((x) => x.pickedAt - x.enqueuedAt)),
      store: median(t.map((x) => x.at - x.finishedAt)),
    };
  } finally {
    await stopWorkers(workers);
    await queue.close();
  }
}

/** CPU ms per episode (all processes: workers, PostgreSQL, Redis, coordinator) at 1, 2 and 4 workers. */
function cpuPerEpisode(rates: Record<1 | 2 | 4, number>, cores?: Record<1 | 2 | 4, number>): Record<string, number> {
  if (!cores) return {};
  return Object.fromEntries(([1, 2, 4] as const).map((n) => [`cpuMsPerEpisodeW${n}`, (cores[n] * 60_000) / rates[n]]));
}

/**
 * The two bench lines in the shared format (figure, unit, target, PASS/MISS):
 * `distributed-scaling` (episodes/min with 4 worker processes / with 1; target >= 1.7) and
 * `queue-overhead` (the larger of the two per-episode medians, enqueue -> pickup and finished ->
 * result row committed, in ms; target < 20).
 */
export function distributedLines(
  rates: Record<1 | 2 | 4, number>,
  episodes: number,
  oh: { pickup: number; store: number },
  cores: number,
  load: { w1Cores: number; machine: number; cores?: Record<1 | 2 | 4, number> } = { w1Cores: NaN, machine: NaN },
): BenchResult[] {
  const scale = rates[4] / rates[1];
  const overheadMs = Math.max(oh.pickup, oh.store);
  return [
    {
      name: "distributed-scaling",
      ratioOf: "episodes/min with 4 worker processes / with 1 (1 libvips thread per worker)",
      ratio: scale,
      value: scale,
      unit: "x",
      target: ">= 1.7",
      pass: scale >= 1.7,
      details: {
        w1PerMin: rates[1],
        w2PerMin: rates[2],
        w4PerMin: rates[4],
        episodes,
        cores,
        coresBusyAt1Worker: load.w1Cores,
        ...cpuPerEpisode(rates, load.cores),
        machineScaling2: load.machine,
      },
    },
    {
      name: "queue-overhead",
      ratioOf: "median ms per episode, max of enqueue->pickup and finished->result row",
      ratio: overheadMs / 20,
      value: overheadMs,
      unit: "ms",
      target: "< 20",
      pass: overheadMs < 20,
      details: { enqueueToPickupMs: oh.pickup, finishToRowMs: oh.store, episodes: 12 },
    },
  ];
}

export async function run(): Promise<BenchResult[]> {
  let redis = process.env.RETRACE_TEST_REDIS_URL;
  let postgres = process.env.RETRACE_TEST_POSTGRES_URL;
  const cleanup: Array<() => void> = [];
  if (!redis || !postgres) {
    if (!hasRedis() || !pgBin()) {
      process.stderr.write("distributed bench skipped: needs redis-server and PostgreSQL (source .ci/services.sh)\n");
      return [];
    }
    const r = await startPrivateRedis();
    cleanup.push(onBenchExit(r.stop));
    const p = await startPrivatePostgres();
    cleanup.push(onBenchExit(p.stop));
    redis = r.url;
    postgres = p.url;
  }
  const dir = mkdtempSync(join(tmpdir(), "bench-dist-"));
  cleanup.push(onBenchExit(() => rmSync(dir, { recursive: true, force: true })));
  const pg = await connectPostgres(postgres);
  try {
    const rates: Record<1 | 2 | 4, number> = { 1: 0, 2: 0, 4: 0 };
    let episodes = 0;
    const cores: Record<1 | 2 | 4, number> = { 1: NaN, 2: NaN, 4: NaN };
    for (const n of [1, 2, 4] as const) {
      const r = await throughput(n, redis, pg, postgres, dir);
      rates[n] = r.perMin;
      episodes = r.episodes;
      cores[n] = r.cores;
    }
    const oh = await overhead(redis, pg, postgres, dir, 12);
    const machine = await machineScaling(Math.min(2, availableParallelism()));
    return distributedLines(rates, episodes, oh, availableParallelism(), { w1Cores: cores[1], machine, cores });
  } finally {
    await pg.close();
    for (const c of cleanup.reverse()) c();
  }
}
