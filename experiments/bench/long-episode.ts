/**
 * Bench fixture: a SimDesk episode that runs as long as asked. The simulated forward policy
 * follows a task's plan (slipping now and then, judged by the simulated detector and repaired by
 * the skilled simulated recoverer); once it would declare DONE it waits instead, so the episode
 * runs to `steps` forward steps. Only for benchmarks: the product never ends an episode this way.
 */
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeResult, RecoveryOptionsInput } from "@retrace-cua/core/episode";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import { runEpisode } from "@retrace-cua/graphs/run-episode";
import { createSqliteCheckpointer } from "@retrace-cua/graphs/checkpointers";
import { SIMDESK_TASKS, createSimDesk, type SimDesk } from "@retrace-cua/simdesk/simdesk";
import { createSimAgents } from "@retrace-cua/simdesk/agents/index";

/** A forward policy that never ends the episode: DONE/FAIL become WAIT. */
export function neverDone(policy: ForwardPolicy): ForwardPolicy {
  return {
    name: `${policy.name}-looping`,
    simulated: policy.simulated,
    propose: async (input) => {
      const d = await policy.propose(input);
      if (!d.actions?.some((a) => a.type === "DONE" || a.type === "FAIL")) return d;
      return { ...d, actions: [{ type: "WAIT", seconds: 0 }] };
    },
  };
}

/** A scratch folder with a blob store and a SimDesk, removed by `close()`. */
export function benchDesk(prefix: string): { dir: string; blobs: BlobStore; env: SimDesk; close(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), `retrace-bench-${prefix}-`));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  const env = createSimDesk({ blobs });
  return {
    dir,
    blobs,
    env,
    close: async () => {
      await env.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Arguments of {@link runLongEpisode}. */
export interface LongEpisodeArgs {
  steps: number;
  seed?: number;
  /** Index into SIMDESK_TASKS. @default 0 */
  taskIndex?: number;
  checkpointer?: BaseCheckpointSaver | false;
  options?: RecoveryOptionsInput;
  /** Wrap the detector (latency, cascade). */
  detector?: (d: ErrorDetector) => ErrorDetector;
  /** Wrap the policy (latency). */
  policy?: (p: ForwardPolicy) => ForwardPolicy;
}

/** Run one long episode; returns the result and the time at which each forward step finished. */
export async function runLongEpisode(
  desk: { blobs: BlobStore; env: SimDesk },
  args: LongEpisodeArgs,
): Promise<{ result: EpisodeResult; stepEndMs: number[] }> {
  const task = SIMDESK_TASKS[args.taskIndex ?? 0];
  const seed = args.seed ?? 1;
  const agents = createSimAgents({ task, groundTruth: desk.env, seed });
  const events = new EpisodeEvents();
  const stepEndMs: number[] = [];
  events.on("step", (e) => {
    if (e.record.role === "forward") stepEndMs.push(performance.now());
  });
  const policy = (args.policy ?? ((p) => p))(neverDone(agents.policy));
  const detector = (args.detector ?? ((d) => d))(agents.detector);
  const result = await runEpisode({
    task,
    components: { policy, env: desk.env, blobs: desk.blobs, detector, recoverer: agents.recoverer },
    options: { seed, maxForwardSteps: args.steps, ...args.options },
    checkpointer: args.checkpointer,
    events,
  });
  return { result, stepEndMs };
}

/** Bytes of a SQLite database with its WAL and journal files. */
export function sqliteBytes(path: string): number {
  let total = 0;
  for (const f of [path, `${path}-wal`, `${path}-journal`, `${path}-shm`]) if (existsSync(f)) total += statSync(f).size;
  return total;
}

/** A fresh SqliteSaver in `dir`. */
export function benchSqlite(dir: string, name: string) {
  const path = join(dir, `${name}.sqlite`);
  return { path, saver: createSqliteCheckpointer(path) };
}
