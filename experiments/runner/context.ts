/**
 * Shared plumbing of one experiment run: the output folder, the tasks, the blob store, and the
 * pool invocation with progress. Used by every experiment kind.
 */
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { prepareOutDir } from "@retrace-cua/core/store/out-dir";
import type { Task } from "@retrace-cua/core/task";
import type { EnvSpec, ExperimentConfig } from "../config/schema.ts";
import { finalizeResults, readResults } from "./results-log.ts";
import type { EpisodeRecordsMode } from "./episode-records.ts";
import { ShardDone, type ShardMode, type ShardPool } from "./shards.ts";
import type { EpisodeJob } from "./conditions.ts";
import { runPool, type JobOutcome, type PoolProgress } from "./pool.ts";
import type { RecordingEnvironment } from "./recording-env.ts";
import type { ResultLine } from "./results-log.ts";
import type { ExperimentRuntime, SkippedTask } from "./runtime.ts";
import type { ModelCallSettings } from "../agents/model-client.ts";

/** How to run (from the CLI flags). */
export interface RunSettings {
  /** Output folder. */
  out: string;
  /** Parallel workers. @default 2 */
  workers?: number;
  /** Added to every seed. @default 0 */
  seedBase?: number;
  /** Continue a previous run in `out`. @default false */
  resume?: boolean;
  /**
   * Per-episode checkpoints: "none" (batch default: no per-step checkpoint copies), "memory",
   * "sqlite[:path]" (durable; a killed episode resumes mid-way), or a registered scheme.
   * @default "none"
   */
  checkpoint?: string;
  /** Progress of each phase ("episodes", "forward runs", "continuations"). */
  onProgress?: (phase: string, p: PoolProgress) => void;
  /** Called with plain-language notes (e.g. "annotated 7 failed runs"). */
  onNote?: (text: string) => void;
  /** Run phases on these process workers instead of in this process (the CLI sets it for --workers > 1). */
  processes?: ShardPool;
  /** Set inside a process worker: run only this shard of this phase. */
  shard?: ShardMode;
  /** Blob store to use instead of `<out>/blobs` (distributed workers pass the shared PostgreSQL one). */
  blobs?: BlobStore;
  /**
   * Folder of the run's blob store when it is not `<out>/blobs`: the demo's phases share one
   * `<demo>/blobs`, so a screen seen in several phases is stored once. Recorded (relative to the
   * run folder) in manifest.json as `blobs`. @default "<out>/blobs"
   */
  blobsDir?: string;
  /**
   * Write OSWorld's text files (traj.jsonl, result.txt, result.json) in each episode folder beside
   * trajectory.json. The demo turns them off: ~2,600 episodes x 3 small files is ~30 MB of disk
   * blocks; `retrace export --osworld` writes them (and the step PNGs) on demand. @default true
   */
  osworldFiles?: boolean;
  /**
   * Episode records (the viewer's trajectories): "folders" writes `<condition>/<task>/<seed>/trajectory.json`;
   * "pack" appends them to `<out>/trajectories.jsonl`, gzipped into `trajectories.jsonl.gz` when the
   * run completes (experiments/runner/episode-records.ts). The demo packs them. @default "folders"
   */
  episodeRecords?: EpisodeRecordsMode;
  /** Run phases elsewhere: the queue coordinator of `retrace run --queue`, or one job inside `retrace worker`. */
  remote?: RemotePhases;
  /** Deadline of each environment call in ms (a hung desktop becomes an environment error). @default 180000 */
  envTimeoutMs?: number;
  /** Model agents' run-wide settings (cache, keys, cost ledger). @default cache off */
  calls?: ModelCallSettings;
  /** Stop scheduling new episodes once the money spent (ledger) reaches this many USD. @default no cap */
  maxCostUsd?: number;
  /**
   * Check model endpoints before the first episode (GET /models); on by default for model-backed runs. @default true
   */
  preflight?: boolean;
}

/** Per-run context shared by the experiment kinds. */
export class RunContext {
  readonly blobs: BlobStore;
  readonly resultsFile: string;
  readonly timingsFile: string;
  /** Set when scheduling stopped early (cost cap): why, and how many episodes were not run. */
  stopped?: { reason: string; notRun: number };
  constructor(
    readonly runtime: ExperimentRuntime,
    readonly settings: RunSettings,
    readonly config: ExperimentConfig,
  ) {
    prepareOutDir(settings.out);
    this.blobs = settings.blobs ?? new BlobStore({ dir: settings.blobsDir ?? join(settings.out, "blobs") });
    this.resultsFile = join(settings.out, "results.jsonl");
    this.timingsFile = join(settings.out, "timings.jsonl");
  }

  get experiment(): string {
    return this.config.name;
  }
  get envSpec(): EnvSpec {
    return this.config.env;
  }

  /** The config's tasks, in order; unknown ids are a ConfigError. */
  tasks(): Task[] {
    return selectTasks(this.runtime, this.envSpec);
  }

  /** The pool's cost-cap hooks (when --max-cost-usd is set). */
  private costCap(): Pick<Parameters<typeof runPool>[0], "stopWhen" | "onStop"> {
    const cap = this.settings.maxCostUsd;
    const ledger = this.settings.calls?.ledger;
    if (cap === undefined || !ledger) return {};
    return {
      stopWhen: () =>
        ledger.spentUsd >= cap ? `--max-cost-usd ${cap}: $${ledger.spentUsd.toFixed(4)} spent` : undefined,
      onStop: (reason, notRun) => {
        this.stopped = { reason, notRun: (this.stopped?.notRun ?? 0) + notRun };
        this.settings.onNote?.(
          `stopped scheduling: ${reason}; ${notRun} episode(s) not run (in-flight ones finished; --resume continues)`,
        );
      },
    };
  }

  /** Run jobs on the pool (in this process, or on the process workers), appending to this run's results file. */
  async pool<J extends EpisodeJob>(
    phase: string,
    jobs: readonly J[],
    execute: (job: J, env: RecordingEnvironment) => Promise<JobOutcome>,
  ): Promise<ResultLine[]> {
    const { shard, processes, remote } = this.settings;
    if (remote) return remote.runPhase({ phase, jobs, execute, ctx: this });
    const keys = new Set(jobs.map((j) => j.key));
    if (shard) {
      // Inside a process worker: earlier phases are finished (by the parent); run the jobs of ours the parent hands us.
      if (shard.phase !== phase)
        return [...readResults(this.resultsFile).values()]
          .filter((l) => keys.has(l.key))
          .sort((a, b) => a.index - b.index);
      await runPool({
        experiment: this.experiment,
        jobs,
        claim: (j) => shard.claim(j.key),
        startAt: { part: shard.shard, parts: shard.shards },
        workers: 1,
        createEnv: () => this.runtime.createEnv(this.envSpec, this.blobs),
        execute,
        resultsFile: this.resultsFile,
        timingsFile: this.timingsFile,
        envRetries: this.config.envRetries,
        resume: true,
        finalize: false,
        envTimeoutMs: this.settings.envTimeoutMs,
        onLine: (l) => shard.onEpisode(l.status, l.success),
      });
      throw new ShardDone(phase);
    }
    // Process workers only when some job is left: a resumed run that is already complete starts none
    // (each child costs a few CPU-seconds to load); the in-process pool below skips the finished jobs.
    const previous = processes && jobs.length > 0 ? readResults(this.resultsFile) : undefined;
    if (processes && previous && jobs.some((j) => previous.get(j.key)?.status !== "ok")) {
      const progress: PoolProgress = { total: jobs.length, done: 0, skipped: 0, successes: 0, valid: 0, envErrors: 0 };
      for (const j of jobs) {
        const l = previous.get(j.key);
        if (l?.status !== "ok") continue;
        progress.done++;
        progress.skipped++;
        progress.valid++;
        if (l.success) progress.successes++;
      }
      this.settings.onProgress?.(phase, { ...progress });
      await processes.run(
        {
          config: this.config,
          out: this.settings.out,
          seedBase: this.settings.seedBase ?? 0,
          ...(this.settings.checkpoint ? { checkpoint: this.settings.checkpoint } : {}),
          ...(this.settings.blobsDir ? { blobsDir: this.settings.blobsDir } : {}),
          ...(this.settings.osworldFiles === false ? { osworldFiles: false } : {}),
          ...(this.settings.episodeRecords ? { episodeRecords: this.settings.episodeRecords } : {}),
          phase,
        },
        (status, success) => {
          progress.done++;
          if (status === "ok") {
            progress.valid++;
            if (success) progress.successes++;
          } else progress.envErrors++;
          this.settings.onProgress?.(phase, { ...progress });
        },
      );
      return finalizeResults(this.resultsFile).filter((l) => keys.has(l.key));
    }
    return runPool({
      experiment: this.experiment,
      jobs,
      workers: this.settings.workers ?? 2,
      createEnv: () => this.runtime.createEnv(this.envSpec, this.blobs),
      execute,
      resultsFile: this.resultsFile,
      timingsFile: this.timingsFile,
      envRetries: this.config.envRetries,
      envTimeoutMs: this.settings.envTimeoutMs,
      resume: true,
      onProgress: (p) => this.settings.onProgress?.(phase, p),
      ...this.costCap(),
    });
  }
}

/** The tasks an env spec selects, in order (`tasks`, then `sample`, then `limit`); unknown ids are a ConfigError. */
export function selectTasks(runtime: ExperimentRuntime, envSpec: EnvSpec): Task[] {
  const all = runtime.tasks(envSpec);
  let tasks = all;
  if (envSpec.tasks) {
    const byId = new Map(all.map((t) => [t.id, t]));
    const skipped = new Set((runtime.skipped?.(envSpec) ?? []).map((s) => s.task));
    tasks = envSpec.tasks
      .filter((id) => !skipped.has(id))
      .map((id) => {
        const i = envSpec.tasks!.indexOf(id);
        const t = byId.get(id);
        if (!t)
          throw new ConfigError(
            `config.env.tasks.${i}: unknown task "${id}" for ${envSpec.kind} (known: ${all
              .slice(0, 12)
              .map((x) => x.id)
              .join(", ")}${all.length > 12 ? ", ..." : ""})`,
            { field: `env.tasks.${i}` },
          );
        return t;
      });
  }
  if (envSpec.sample && tasks.length > envSpec.sample) {
    const list = tasks;
    const n = envSpec.sample;
    tasks = Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
  }
  return envSpec.limit ? tasks.slice(0, envSpec.limit) : tasks;
}

/**
 * The tasks a run leaves out (the runtime cannot run them here), limited to the config's `tasks` when it lists some.
 */
export function skippedTasks(runtime: ExperimentRuntime, envSpec: EnvSpec): SkippedTask[] {
  const all = runtime.skipped?.(envSpec) ?? [];
  return envSpec.tasks ? all.filter((s) => envSpec.tasks!.includes(s.task)) : all;
}

/** One phase handed to a {@link RemotePhases}. */
export interface RemotePhaseRequest<J extends EpisodeJob> {
  phase: string;
  /** The phase's jobs in expansion order. */
  jobs: readonly J[];
  /** Run one job on a (recording) environment: the runner's per-episode function. */
  execute: (job: J, env: RecordingEnvironment) => Promise<JobOutcome>;
  ctx: RunContext;
}

/** Where the phases of an experiment run when they do not run on the local pool. */
export interface RemotePhases {
  /** "coordinator" writes the run folder; "worker" writes nothing but its episode. */
  readonly role: "coordinator" | "worker";
  /** Run (or look up) the phase's jobs and return their lines in job order. */
  runPhase<J extends EpisodeJob>(req: RemotePhaseRequest<J>): Promise<ResultLine[]>;
}
