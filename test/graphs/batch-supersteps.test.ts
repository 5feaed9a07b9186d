/**
 * Batch episodes (no checkpointer) run up to 32 forward steps per `act` superstep and the recovery
 * sub-agent as a plain loop; durable episodes keep one forward step per superstep and the compiled
 * subgraph. Both must give the same episode, step for step (simulated agents on SimDesk).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { runEpisode } from "../../graphs/run-episode.ts";
import { BlobStore } from "../../src/blob-store.ts";
import type { EpisodeResult } from "../../src/episode.ts";
import { EpisodeEvents } from "../../src/runtime/events.ts";
import { SIMDESK_TASKS, createSimDesk } from "../../adapters/environments/simdesk/index.ts";
import { createSimAgents } from "../../adapters/policies/simulated/index.ts";

const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-batch-")), "blobs") });
const desk = createSimDesk({ blobs });
const TASKS = SIMDESK_TASKS.filter((t) => t.plan.length >= 8).slice(0, 6);

/** The result without wall-clock fields. */
function comparable(r: EpisodeResult): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (k === "wallMs" || k === "envMs" ? undefined : v)));
}

async function episode(task: (typeof TASKS)[number], seed: number, mode: { checkpointer?: MemorySaver | false; stepsPerSuperstep?: number }) {
  const agents = createSimAgents({ task, groundTruth: desk, seed, recoverer: "skilled", detector: "decent", forward: "sloppy" });
  const events = new EpisodeEvents();
  const result = await runEpisode({
    task,
    components: { policy: agents.policy, env: desk, blobs, detector: agents.detector, recoverer: agents.recoverer },
    options: { seed, maxRecoveryIterations: 3, restoration: "model" },
    checkpointer: mode.checkpointer ?? false,
    events,
    ...(mode.stepsPerSuperstep !== undefined ? { knobs: { stepsPerSuperstep: mode.stepsPerSuperstep } } : {}),
  });
  return result;
}

describe("batch supersteps", () => {
  it("give the same episodes as one forward step per superstep, recoveries included", async () => {
    let recoveries = 0;
    let steps = 0;
    for (const task of TASKS) {
      for (const seed of [1, 2]) {
        const batch = await episode(task, seed, { checkpointer: false });
        const single = await episode(task, seed, { checkpointer: false, stepsPerSuperstep: 1 });
        const durable = await episode(task, seed, { checkpointer: new MemorySaver() });
        expect(comparable(batch)).toEqual(comparable(single));
        expect(comparable(batch)).toEqual(comparable(durable));
        recoveries += batch.accounting.recoveryAttempts;
        steps += batch.accounting.forwardSteps;
      }
    }
    // the comparison covered recoveries (the subgraph loop) and runs of several forward steps
    expect(recoveries).toBeGreaterThan(2);
    expect(steps).toBeGreaterThan(TASKS.length * 2 * 5);
  }, 120_000);

  it("refuses a stepsPerSuperstep that is not a whole number >= 1", async () => {
    const task = TASKS[0];
    await expect(episode(task, 1, { stepsPerSuperstep: 0 })).rejects.toThrow(/^knobs\.stepsPerSuperstep must be a whole number >= 1, got 0$/);
  });
});
