/**
 * Process workers: `--workers N` runs N child processes (each with its own environment), so the
 * episodes of a phase use more than one core. Each child runs the same experiment code in "shard
 * mode": it executes only the jobs of the requested phase whose index % N is its shard, appends
 * its lines to the shared results.jsonl (one O_APPEND write per line), and reports each finished
 * episode. The parent aggregates progress and finalises the file. Children live for the whole
 * command (starting one costs seconds) and exit when the parent goes away.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../src/errors.ts";
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
  phase: string;
  shard: number;
  shards: number;
  runtime: ChildRuntimeSpec;
}

/** Messages from a child. */
export type ShardMessage =
  | { type: "episode"; status: "ok" | "env-error"; success: boolean }
  | { type: "done" }
  | { type: "error"; message: string; config: boolean };

/** Shard-mode settings inside a child. */
export interface ShardMode {
  phase: string;
  shard: number;
  shards: number;
  onEpisode: (status: "ok" | "env-error", success: boolean) => void;
}

/** Thrown inside a child once its phase is done, to stop the experiment code there. */
export class ShardDone extends Error {}

const CHILD = fileURLToPath(new URL("./shard-child.ts", import.meta.url));
/**
 * tsx resolved from this package, not from the current folder: `--import tsx` alone fails with
 * ERR_MODULE_NOT_FOUND when the command runs outside the repository.
 */
const TSX_LOADER = import.meta.resolve("tsx");

/** A set of long-lived child processes. */
export class ShardPool {
  private children: ChildProcess[] = [];
  constructor(readonly size: number, readonly runtime: ChildRuntimeSpec) {}

  private child(i: number): ChildProcess {
    let c = this.children[i];
    if (!c || c.exitCode !== null || c.killed) {
      c = fork(CHILD, [], { execArgv: ["--import", TSX_LOADER], stdio: ["ignore", "ignore", "inherit", "ipc"], serialization: "advanced" });
      this.children[i] = c;
    }
    return c;
  }

  /** Run one phase on every child; `onEpisode` sees each finished episode. */
  async run(req: Omit<ShardRequest, "shard" | "shards" | "runtime">, onEpisode: (status: "ok" | "env-error", success: boolean) => void): Promise<void> {
    const runs = Array.from({ length: this.size }, (_, shard) => {
      const c = this.child(shard);
      return new Promise<void>((resolve, reject) => {
        const onMessage = (m: ShardMessage) => {
          if (m.type === "episode") onEpisode(m.status, m.success);
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
