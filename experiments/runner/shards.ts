/**
 * Process workers: `--workers N` runs N child processes (each with its own environment), so the
 * episodes of a phase use more than one core. Each child runs the same experiment code in "shard
 * mode": it walks the requested phase's jobs in order and asks the parent for each (the parent
 * grants a job to the first child that asks), so children pull work as they free up instead of
 * owning a fixed share and idling at the phase's end while another still has a queue. A child
 * appends its lines to the shared results.jsonl (one O_APPEND write per line) and reports each
 * finished episode; the parent aggregates progress and finalises the file. Children live for the
 * whole command (starting one costs seconds) and exit when the parent goes away. Each child gets
 * floor(cores / N) libvips threads unless RETRACE_SHARP_CONCURRENCY says otherwise.
 */
import { fork, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { ConfigError, ControlSignal } from "@retrace-cua/core/errors";
import type { EpisodeRecordsMode } from "./episode-records.ts";
import type { ExperimentConfig } from "../config/schema.ts";

/** How a child builds its runtime: `(await import(module))[exportName](...args)`. */
export interface ChildRuntimeSpec {
  module: string;
  exportName: string;
  args?: unknown[];
}

/** What the runner tells a child to do. */
export interface ShardRequest {
  config: ExperimentConfig;
  out: string;
  seedBase: number;
  /** Checkpoint spec of the run (`--checkpoint`). */
  checkpoint?: string;
  /** The run's blob folder when it is not `<out>/blobs` (RunSettings.blobsDir). */
  blobsDir?: string;
  /** RunSettings.osworldFiles. */
  osworldFiles?: boolean;
  /** RunSettings.episodeRecords. */
  episodeRecords?: EpisodeRecordsMode;
  phase: string;
  shard: number;
  shards: number;
  runtime: ChildRuntimeSpec;
}

/** Messages from a child. */
export type ShardMessage =
  | { type: "episode"; status: "ok" | "env-error"; success: boolean }
  | { type: "claim"; id: number; key: string }
  | { type: "done" }
  | { type: "error"; message: string; config: boolean };

/** Shard-mode settings inside a child. */
export interface ShardMode {
  phase: string;
  shard: number;
  shards: number;
  onEpisode: (status: "ok" | "env-error", success: boolean) => void;
  /** Ask the parent for a job: true when this child is the one to run it. */
  claim: (key: string) => Promise<boolean>;
}

/** The parent's answer to a claim. */
export interface ClaimReply {
  type: "claimed";
  id: number;
  granted: boolean;
}

/** Thrown inside a child once its phase is done, to stop the experiment code there. */
export class ShardDone extends ControlSignal {}

/** Running from the sources (tsx) the child is shard-child.ts; from the built package, shard-child.js. */
const FROM_SOURCES = import.meta.url.endsWith(".ts");
const CHILD = fileURLToPath(new URL(FROM_SOURCES ? "./shard-child.ts" : "./shard-child.js", import.meta.url));
/**
 * tsx resolved from this package, not from the current folder: `--import tsx` alone fails with
 * ERR_MODULE_NOT_FOUND when the command runs outside the repository. Only the sources need it.
 */
const childExecArgv = (): string[] =>
  FROM_SOURCES ? ["--conditions=retrace-dev", "--import", import.meta.resolve("tsx")] : [];

/** A set of long-lived child processes. */
export class ShardPool {
  private children: ChildProcess[] = [];
  constructor(
    readonly size: number,
    readonly runtime: ChildRuntimeSpec,
  ) {}

  private child(i: number): ChildProcess {
    let c = this.children[i];
    if (!c || c.exitCode !== null || c.killed) {
      const env = {
        ...process.env,
        RETRACE_SHARP_CONCURRENCY:
          process.env.RETRACE_SHARP_CONCURRENCY || String(Math.max(1, Math.floor(availableParallelism() / this.size))),
      };
      c = fork(CHILD, [], {
        execArgv: childExecArgv(),
        env,
        stdio: ["ignore", "ignore", "inherit", "ipc"],
        serialization: "advanced",
      });
      this.children[i] = c;
    }
    return c;
  }

  /** Run one phase on every child; `onEpisode` sees each finished episode. */
  async run(
    req: Omit<ShardRequest, "shard" | "shards" | "runtime">,
    onEpisode: (status: "ok" | "env-error", success: boolean) => void,
  ): Promise<void> {
    const claimed = new Set<string>();
    const runs = Array.from({ length: this.size }, (_, shard) => {
      const c = this.child(shard);
      return new Promise<void>((resolve, reject) => {
        const onMessage = (m: ShardMessage) => {
          if (m.type === "claim") {
            const granted = !claimed.has(m.key);
            claimed.add(m.key);
            c.send({ type: "claimed", id: m.id, granted } satisfies ClaimReply);
          } else if (m.type === "episode") onEpisode(m.status, m.success);
          else {
            cleanup();
            if (m.type === "done") resolve();
            else reject(m.config ? new ConfigError(m.message) : new Error(`worker ${shard}: ${m.message}`));
          }
        };
        const onExit = (code: number | null, signal: string | null) => {
          cleanup();
          reject(new Error(`worker ${shard} exited (${signal ?? code}) during ${req.phase}`));
        };
        const cleanup = () => {
          c.off("message", onMessage);
          c.off("exit", onExit);
        };
        c.on("message", onMessage);
        c.on("exit", onExit);
        c.send({ ...req, shard, shards: this.size, runtime: this.runtime } satisfies ShardRequest);
      });
    });
    const settled = await Promise.allSettled(runs);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** Stop every child. */
  close(): void {
    for (const c of this.children) if (c && c.exitCode === null) c.kill();
    this.children = [];
  }
}
