/**
 * Batch episodes (no checkpointer) run up to 32 forward steps per `act` call, up to 64 graph phases
 * per superstep, and the recovery sub-agent as a plain loop; durable episodes keep one node per
 * superstep and the compiled subgraph. All must give the same episode, step for step (simulated
 * agents on SimDesk), whatever the bounds (a bound that cuts chains mid-way routes by `phase`).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { batchConfig, batchRecoveryGraph } from "../../packages/graphs/src/recovery-graph.ts";
import { initialGraphState } from "../../packages/graphs/src/state.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import type { EpisodeResult } from "../../packages/core/src/episode.ts";
import { EpisodeEvents } from "../../packages/core/src/runtime/events.ts";
import { SIMDESK_TASKS, createSimDesk } from "../../packages/simdesk/src/simdesk.ts";
import { createSimAgents } from "../../packages/simdesk/src/agents/index.ts";

const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-batch-")), "blobs") });
const desk = createSimDesk({ blobs });
const TASKS = SIMDESK_TASKS.filter((t) => t.plan.length >= 8).slice(0, 6);

/** The result without wall-clock fields. */
function comparable(r: EpisodeResult): unknown {
  return JSON.parse(JSON.stringify(r, (k, v) => (k === "wallMs" || k === "envMs" ? undefined : v)));
}

async function episode(
  task: (typeof TASKS)[number],
  seed: number,
  mode: { checkpointer?: MemorySaver | false; stepsPerSuperstep?: number; phasesPerSuperstep?: number },
) {
  const agents = createSimAgents({
    task,
    groundTruth: desk,
    seed,
    recoverer: "skilled",
    detector: "decent",
    forward: "sloppy",
  });
  const events = new EpisodeEvents();
  const result = await runEpisode({
    task,
    components: { policy: agents.policy, env: desk, blobs, detector: agents.detector, recoverer: agents.recoverer },
    options: { seed, maxRecoveryIterations: 3, restoration: "model" },
    checkpointer: mode.checkpointer ?? false,
    events,
    ...(mode.stepsPerSuperstep !== undefined
      ? { knobs: { stepsPerSuperstep: mode.stepsPerSuperstep, phasesPerSuperstep: mode.phasesPerSuperstep } }
      : {}),
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
        const single = await episode(task, seed, { checkpointer: false, stepsPerSuperstep: 1, phasesPerSuperstep: 1 });
        const fewPhases = await episode(task, seed, {
          checkpointer: false,
          stepsPerSuperstep: 2,
          phasesPerSuperstep: 3,
        });
        const durable = await episode(task, seed, { checkpointer: new MemorySaver() });
        // an embedded graph may chain too: flat channels, a checkpoint per chain
        const durableChained = await episode(task, seed, {
          checkpointer: new MemorySaver(),
          stepsPerSuperstep: 4,
          phasesPerSuperstep: 5,
        });
        expect(comparable(batch)).toEqual(comparable(single));
        expect(comparable(batch)).toEqual(comparable(fewPhases));
        expect(comparable(batch)).toEqual(comparable(durable));
        expect(comparable(batch)).toEqual(comparable(durableChained));
        recoveries += batch.accounting.recoveryAttempts;
        steps += batch.accounting.forwardSteps;
      }
    }
    // the comparison covered recoveries (the subgraph loop) and runs of several forward steps
    expect(recoveries).toBeGreaterThan(2);
    expect(steps).toBeGreaterThan(TASKS.length * 2 * 5);
  }, 120_000);

  it("run a batch episode, recoveries included, in a handful of supersteps of the one compiled batch graph", async () => {
    const task = TASKS[0];
    let supersteps = 0;
    let recoveries = 0;
    for (const seed of [1, 2, 3]) {
      const agents = createSimAgents({
        task,
        groundTruth: desk,
        seed,
        recoverer: "skilled",
        detector: "decent",
        forward: "sloppy",
      });
      const args = {
        components: { policy: agents.policy, env: desk, blobs, detector: agents.detector, recoverer: agents.recoverer },
        options: { seed, maxRecoveryIterations: 3, restoration: "model" as const },
        knobs: { stepsPerSuperstep: 32, phasesPerSuperstep: 64 },
      };
      const phases: string[] = [];
      let result: EpisodeResult | null = null;
      for await (const u of await batchRecoveryGraph().stream(
        { episode: initialGraphState(task) },
        { ...batchConfig(args, { thread_id: `t${seed}`, recursionLimit: 100 }), streamMode: "updates" },
      )) {
        for (const [, v] of Object.entries(
          u as Record<string, { episode: { phase: string | null; result: EpisodeResult | null } }>,
        )) {
          phases.push(v.episode.phase ?? "?");
          result = v.episode.result ?? result;
        }
      }
      expect(result).not.toBeNull();
      // the same episode as runEpisode's
      expect(comparable(result!)).toEqual(comparable(await episode(task, seed, { checkpointer: false })));
      expect(phases[phases.length - 1]).toBe("evaluate");
      supersteps += phases.length;
      recoveries += result!.accounting.recoveryAttempts;
    }
    expect(recoveries).toBeGreaterThan(0);
    // one node per superstep would take >= 4 per episode plus 5 per recovery
    expect(supersteps).toBe(3);
  });

  it("refuses a stepsPerSuperstep that is not a whole number >= 1", async () => {
    const task = TASKS[0];
    await expect(episode(task, 1, { stepsPerSuperstep: 0 })).rejects.toThrow(
      /^knobs\.stepsPerSuperstep must be a whole number >= 1, got 0$/,
    );
  });
});
