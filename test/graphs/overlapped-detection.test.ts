/**
 * Overlapped detection on SimDesk with the seeded simulated agents (results simulated): the same
 * episodes as sequential detection, with the proposals made alongside a firing detector thrown
 * away, and wall time close to the bare agent when policy and detector both take time.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import type { ErrorDetector } from "../../packages/core/src/detector.ts";
import type { EpisodeResult } from "../../packages/core/src/episode.ts";
import { withoutTiming } from "../../packages/core/src/runtime/accounting.ts";
import { SIMDESK_TASKS, createSimDesk } from "../../packages/simdesk/src/simdesk.ts";
import { createSimAgents } from "../../packages/simdesk/src/agents/index.ts";

const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-overlap-")), "blobs") });
const desk = createSimDesk({ blobs });
const TASKS = SIMDESK_TASKS.filter((t) => t.plan.length >= 6).slice(0, 5);

async function episode(
  taskIndex: number,
  seed: number,
  detection: "sequential" | "overlapped",
  latency?: "model",
): Promise<EpisodeResult> {
  const task = TASKS[taskIndex];
  const a = createSimAgents({ task, groundTruth: desk, seed, forward: "sloppy" });
  const detector: ErrorDetector = latency
    ? { ...a.detector, name: a.detector.name, simulated: true, latency, detect: (i) => a.detector.detect(i) }
    : a.detector;
  return runEpisode({
    task,
    components: { policy: a.policy, env: desk, blobs, detector, recoverer: a.recoverer },
    options: { seed, detection },
    checkpointer: false,
  });
}

/** Everything but wall time and the discarded-proposal counter. */
function comparable(r: EpisodeResult) {
  const { discardedProposals: _d, ...acc } = withoutTiming(r.accounting);
  return {
    ...r,
    accounting: acc,
    trajectory: { ...r.trajectory, steps: r.trajectory.steps.map(({ envMs: _e, ...st }) => st) },
  };
}

describe("overlapped detection", () => {
  it("gives the same results as sequential detection under a seed, and discards one proposal per recovery", async () => {
    let recoveries = 0;
    for (let i = 0; i < TASKS.length; i++) {
      for (const seed of [1, 2]) {
        const seq = await episode(i, seed, "sequential");
        const ovl = await episode(i, seed, "overlapped");
        expect(comparable(ovl)).toEqual(comparable(seq));
        expect(seq.accounting.discardedProposals).toBe(0);
        expect(ovl.accounting.discardedProposals).toBe(ovl.accounting.recoveryAttempts);
        recoveries += seq.accounting.recoveryAttempts;
      }
    }
    expect(recoveries).toBeGreaterThan(0); // the comparison covered episodes that recovered
  });

  it('"auto" overlaps a detector that declares latency "model" and keeps other detectors sequential', async () => {
    const seq = await episode(0, 3, "sequential");
    const auto = await runEpisodeAuto(0, 3, "model");
    const autoInstant = await runEpisodeAuto(0, 3, undefined);
    expect(comparable(auto)).toEqual(comparable(seq));
    expect(auto.accounting.discardedProposals).toBe(seq.accounting.recoveryAttempts);
    expect(autoInstant.accounting.discardedProposals).toBe(0);
  });

  it("asks the policy for step t+1 before the detector judging step t has answered, and only in overlapped mode", async () => {
    const task = TASKS[0];
    const a = createSimAgents({ task, groundTruth: desk, seed: 1, forward: "careful", detector: "perfect" });
    const run = async (detection: "sequential" | "overlapped") => {
      const proposed: number[] = [];
      let alreadyAsked = 0;
      const policy = {
        ...a.policy,
        name: a.policy.name,
        propose: (i: Parameters<typeof a.policy.propose>[0]) => (proposed.push(i.step), a.policy.propose(i)),
      };
      const detector: ErrorDetector = {
        name: "watching",
        simulated: true,
        detect: async (i) => {
          if (proposed.includes(i.step)) alreadyAsked++;
          return a.detector.detect(i);
        },
      };
      const r = await runEpisode({
        task,
        components: { policy, env: desk, blobs, detector, recoverer: a.recoverer },
        options: { seed: 1, detection },
        checkpointer: false,
      });
      return { alreadyAsked, calls: r.accounting.detectorCalls };
    };
    const seq = await run("sequential");
    const ovl = await run("overlapped");
    expect(seq.calls).toBeGreaterThan(2);
    expect(ovl.calls).toBe(seq.calls);
    expect(seq.alreadyAsked).toBe(0);
    expect(ovl.alreadyAsked).toBe(ovl.calls);
  });
});

async function runEpisodeAuto(taskIndex: number, seed: number, latency: "model" | undefined): Promise<EpisodeResult> {
  const task = TASKS[taskIndex];
  const a = createSimAgents({ task, groundTruth: desk, seed, forward: "sloppy" });
  const detector: ErrorDetector = {
    name: a.detector.name,
    simulated: true,
    ...(latency ? { latency } : {}),
    detect: (i) => a.detector.detect(i),
  };
  return runEpisode({
    task,
    components: { policy: a.policy, env: desk, blobs, detector, recoverer: a.recoverer },
    options: { seed },
    checkpointer: false,
  });
}
