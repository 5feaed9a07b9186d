/**
 * The coordinator of `retrace run CONFIG --queue redis://...`: the experiment is expanded exactly
 * as a local run (same code, same order, same keys); each phase's episodes are registered in
 * PostgreSQL and enqueued on BullMQ (one job per episode key), then the coordinator waits, reporting
 * progress per condition, and finally writes the run folder from the stored rows (see
 * materialize.ts), so `results.jsonl` is byte-identical to a local run's.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, RunFailedError } from "@retrace-cua/core/errors";
import { hashValue } from "@retrace-cua/core/hash";
import type { EpisodeQueue } from "@retrace-cua/stores/queue/bullmq/episode-queue";
import type { PgRunStore } from "@retrace-cua/stores/postgres/run-store";
import type { PgBlobStore } from "@retrace-cua/stores/postgres/blob-store";
import type { ExperimentConfig } from "../config/schema.ts";
import type { EpisodeJob } from "../runner/conditions.ts";
import { RUN_FILES, type RemotePhaseRequest, type RemotePhases } from "../runner/remote.ts";
import type { ResultLine } from "../runner/results-log.ts";
import { createMaterializer } from "./materialize.ts";

/** Progress of one condition of a queued run. */
export interface ConditionProgress {
  condition: string;
  total: number;
  done: number;
  running: number;
  /** Jobs that used up their attempts (BullMQ "failed"). */
  failed: number;
  envErrors: number;
}

/** A progress snapshot. */
export interface QueueProgress {
  runId: string;
  phase: string;
  conditions: ConditionProgress[];
  /** Episodes finished before this invocation (a re-run of the same command). */
  skipped: number;
  startedAt: number;
}

/** Options of {@link queueCoordinator}. */
export interface CoordinatorOptions {
  runId: string;
  queue: EpisodeQueue;
  store: PgRunStore;
  /** Shared blobs (the run folder's blobs/ is filled from it at the end). */
  blobs: PgBlobStore;
  config: ExperimentConfig;
  seedBase: number;
  /** Tries per episode. @default 3 */
  attempts?: number;
  /** First retry delay. @default 2000 */
  backoffMs?: number;
  /** Poll interval of the progress loop. @default 300 */
  pollMs?: number;
  onProgress?: (p: QueueProgress) => void;
}

/** The run id of a distributed run: the experiment name plus a hash of config, seed and run folder. */
export function distributedRunId(config: ExperimentConfig, seedBase: number, out: string): string {
  const slug = config.name.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 40);
  return `${slug}-${hashValue({ config, seedBase, out }).slice(0, 12)}`;
}

/** A RemotePhases that enqueues each phase and waits for its results. */
export function queueCoordinator(options: CoordinatorOptions): RemotePhases {
  return {
    role: "coordinator",
    async runPhase<J extends EpisodeJob>(req: RemotePhaseRequest<J>): Promise<ResultLine[]> {
      const { runId, queue, store } = options;
      await store.registerRun({
        runId,
        experiment: options.config.name,
        config: JSON.stringify(options.config),
        seedBase: options.seedBase,
        total: req.jobs.length,
      });
      // Run-level files made here between phases (ideal recovery's plan.json) go to the workers.
      for (const name of RUN_FILES) {
        const file = join(req.ctx.settings.out, name);
        if (existsSync(file)) await store.putRunFile(runId, name, readFileSync(file));
      }
      const stored = await store.storedKeys(runId);
      const todo = req.jobs.filter((j) => !stored.has(j.key));
      const now = Date.now();
      await queue.enqueue(
        todo.map((j) => ({
          runId,
          key: j.key,
          index: j.index,
          phase: req.phase,
          condition: j.condition,
          enqueuedAt: now,
        })),
        { attempts: options.attempts, backoffMs: options.backoffMs },
      );
      // The run folder fills while the workers run (the coordinator mostly waits), so the end of
      // the run copies only the last episodes' files instead of all of them.
      const folder = createMaterializer({
        runId,
        store,
        blobs: options.blobs,
        out: req.ctx.settings.out,
        keys: req.jobs.map((j) => j.key),
      });
      await waitForRun(options, req.phase, req.jobs, req.jobs.length - todo.length, folder);
      return folder.finish();
    },
  };
}

async function waitForRun(
  options: CoordinatorOptions,
  phase: string,
  jobs: readonly EpisodeJob[],
  skipped: number,
  folder: ReturnType<typeof createMaterializer>,
): Promise<void> {
  const { runId, queue, store } = options;
  const totals = new Map<string, number>();
  for (const j of jobs) totals.set(j.condition, (totals.get(j.condition) ?? 0) + 1);
  const startedAt = Date.now();
  let lastFullScan = 0;
  let copied = 0;
  for (;;) {
    // Each poll reads the active and failed jobs only (their number is bounded by the workers'
    // slots and the failures); the waiting ones are read only when nothing runs, at most every
    // 5 s: reading every job's data at every poll cost the coordinator ~25 ms of CPU per episode.
    const [counts, busy, run] = await Promise.all([
      store.countsByCondition(runId),
      queue.jobsOf(runId, ["active", "failed"]),
      store.getRun(runId),
    ]);
    const idle = !busy.some((j) => j.state === "active");
    const fullScan = idle && Date.now() - lastFullScan >= 5_000;
    if (fullScan) lastFullScan = Date.now();
    const open = fullScan ? [...busy, ...(await queue.jobsOf(runId, ["waiting", "delayed", "prioritized"]))] : busy;
    const storedKeys = counts;
    const conditions: ConditionProgress[] = [...totals].map(([condition, total]) => {
      const c = storedKeys.get(condition) ?? { done: 0, envErrors: 0 };
      const mine = open.filter((j) => j.condition === condition);
      return {
        condition,
        total,
        done: c.done,
        envErrors: c.envErrors,
        running: mine.filter((j) => j.state === "active").length,
        failed: mine.filter((j) => j.state === "failed").length,
      };
    });
    options.onProgress?.({ runId, phase, conditions, skipped, startedAt });
    const done = conditions.reduce((s, c) => s + c.done, 0);
    if (done >= jobs.length) return;
    if (done > copied) copied += await folder.episodes(await store.storedKeys(runId));
    if (run?.cancelled)
      throw new ConfigError(
        `run ${runId} was cancelled (retrace cancel); ${done}/${jobs.length} episodes are stored: re-run the same command to continue it`,
      );
    const failed = open.filter((j) => j.state === "failed");
    const pending = open.filter((j) => j.state !== "failed").length;
    if (failed.length > 0 && pending === 0 && done + failed.length >= jobs.length)
      throw new RunFailedError(
        `${failed.length} episode(s) of run ${runId} failed on every attempt (first: ${failed[0].key}: ${failed[0].failedReason ?? "unknown"}); fix the cause and re-run the same command to retry them`,
      );
    if (
      fullScan &&
      pending === 0 &&
      failed.length === 0 &&
      done < jobs.length &&
      Date.now() - startedAt > 5_000 &&
      !(await store.getRun(runId))?.cancelled
    ) {
      // Jobs vanished (queue flushed or removed by cancel): enqueue the missing ones again.
      const have = await store.storedKeys(runId);
      const now = Date.now();
      await queue.enqueue(
        jobs
          .filter((j) => !have.has(j.key))
          .map((j) => ({ runId, key: j.key, index: j.index, phase, condition: j.condition, enqueuedAt: now })),
        { attempts: options.attempts, backoffMs: options.backoffMs },
      );
    }
    await new Promise((r) => setTimeout(r, options.pollMs ?? 300));
  }
}
