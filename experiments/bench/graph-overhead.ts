/**
 * Graph overhead per forward step: the recovery graph (propose -> execute -> detect, checkpointed)
 * around an instant policy, environment and detector, against a bare loop over the same three.
 * Printed as a ratio; absolute ms per step in the details.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { Environment } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import type { ForwardPolicy, HistoryEntry } from "@retrace-cua/core/policy";
import type { Task } from "@retrace-cua/core/task";
import { createSqliteCheckpointer } from "@retrace-cua/graphs/checkpointers";
import { runEpisode } from "@retrace-cua/graphs/run-episode";
import type { BenchResult } from "./result.ts";
import { InternalError } from "@retrace-cua/core/errors";

const STEPS = 50;
const TASK: Task = { id: "bench", instruction: "nothing", env: "instant", setup: null, evaluator: null };

function instant(blobs: BlobStore) {
  const obs: Observation = { screenshot: blobs.putSync(Buffer.from("instant-screen")), width: 1280, height: 800 };
  const env: Environment = {
    kind: "instant",
    capabilities: { reset: true, snapshot: false, groundTruth: false, accessibility: false },
    reset: async () => obs,
    step: async () => ({ observation: obs, info: {} }),
    observe: async () => obs,
    evaluate: async () => ({ score: 0 }),
    close: async () => {},
  };
  const policy: ForwardPolicy = {
    name: "instant",
    propose: async () => ({ actions: [{ type: "CLICK", x: 1, y: 1, button: "left", numClicks: 1 }] }),
  };
  const detector: ErrorDetector = {
    name: "instant",
    detect: async () => ({ isError: false, errorStep: null, reason: "", confidence: 1 }),
  };
  return { env, policy, detector, obs };
}

async function bareLoop(blobs: BlobStore): Promise<number> {
  const { env, policy, detector } = instant(blobs);
  const started = performance.now();
  let obs = await env.reset(TASK);
  const history: HistoryEntry[] = [];
  for (let t = 0; t < STEPS; t++) {
    const d = await policy.propose({ task: TASK, history, observation: obs, step: t, tick: t, blobs });
    const before = obs;
    for (const a of d.actions) obs = (await env.step(a)).observation;
    history.push({ step: t, observation: before, actions: d.actions });
    await detector.detect({ task: TASK, history, observation: obs, step: t + 1, tick: t + 1, blobs });
  }
  return (performance.now() - started) / STEPS;
}

async function graphEpisode(
  blobs: BlobStore,
  checkpointer?: ReturnType<typeof createSqliteCheckpointer> | false,
): Promise<number> {
  const { env, policy, detector } = instant(blobs);
  const started = performance.now();
  const r = await runEpisode({
    task: TASK,
    components: { env, policy, detector, blobs },
    options: { maxForwardSteps: STEPS, restoration: "none" },
    checkpointer,
  });
  if (r.accounting.forwardSteps !== STEPS)
    throw new InternalError(`bench episode ran ${r.accounting.forwardSteps} steps`);
  return (performance.now() - started) / STEPS;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function run(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-graph-"));
  try {
    const blobs = new BlobStore({ dir: join(dir, "blobs") });
    const bare: number[] = [];
    const mem: number[] = [];
    const sql: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < 2; i++) await graphEpisode(blobs); // warm-up
    for (let i = 0; i < 7; i++) {
      bare.push(await bareLoop(blobs));
      mem.push(await graphEpisode(blobs));
      sql.push(await graphEpisode(blobs, createSqliteCheckpointer(join(dir, `ckpt-${i}.sqlite`))));
      none.push(await graphEpisode(blobs, false));
    }
    const b = median(bare);
    const m = median(mem);
    const s = median(sql);
    const n = median(none);
    return [
      {
        name: "graph overhead (no checkpointer)",
        ratioOf: "graph step / bare loop step",
        ratio: n / b,
        details: { graphMsPerStep: n, bareMsPerStep: b, steps: STEPS },
      },
      {
        name: "graph overhead (MemorySaver)",
        ratioOf: "graph step / bare loop step",
        ratio: m / b,
        details: { graphMsPerStep: m, bareMsPerStep: b, steps: STEPS },
      },
      {
        name: "graph overhead (SqliteSaver)",
        ratioOf: "graph step / bare loop step",
        ratio: s / b,
        details: { graphMsPerStep: s, bareMsPerStep: b, steps: STEPS },
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
