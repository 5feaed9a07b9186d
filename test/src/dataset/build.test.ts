import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { sha256Hex } from "../../../packages/core/src/hash.ts";
import type { ForwardPolicy } from "../../../packages/core/src/policy.ts";
import { buildRecoveryDataset } from "../../../packages/evaluation/src/dataset/build.ts";
import { loadRecoveryDataset, saveRecoveryDataset } from "../../../packages/evaluation/src/dataset/store.ts";
import { getSimDeskTask, type SimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { createEvalSimDesk, simulatedDatasetPolicies } from "../../../experiments/recovery-eval/simdesk.ts";
import { createSimForwardPolicy } from "../../../packages/simdesk/src/agents/index.ts";

const TASKS = ["files-rename-draft", "files-trash-two", "files-restore-report"].map((id) => getSimDeskTask(id));

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), "retrace-dataset-"));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  return { dir, blobs, desk: createEvalSimDesk(blobs, join(dir, "states")) };
}

/** A forward policy that follows the plan exactly (no slips), so every rollout succeeds. */
const planFollower = (task: SimDeskTask) => createSimForwardPolicy({ task, seed: 0, slipRate: 0, noticeRate: 0 });

describe("buildRecoveryDataset", () => {
  it("drops a perturbation that leaves the task solvable (a pointer move is no error)", async () => {
    const { blobs, desk } = fixture();
    const mover: ForwardPolicy = {
      name: "mover",
      async propose() {
        return { actions: [{ type: "MOVE_TO", x: 700, y: 500 }], response: "move the pointer" };
      },
    };
    const r = await buildRecoveryDataset({
      env: desk,
      blobs,
      tasks: TASKS.slice(0, 2),
      forwardPolicy: ({ task }) => planFollower(task as SimDeskTask),
      perturbationPolicy: () => mover,
      distances: [1],
      seedStepsPerTrajectory: 2,
      replays: 2,
    });
    expect(r.trajectories).toMatchObject({ rollouts: 2, successful: 2, wellFormed: 2, transitionConsistent: 2 });
    const [s] = r.stages;
    expect(s.seedSteps).toBe(4);
    expect(s.targetReproduced).toBe(4);
    expect(s.perturbationWellFormed).toBe(4);
    expect(s.genuineError).toBe(0);
    expect(r.samples).toHaveLength(0);
  });

  it("drops WAIT-only short-horizon perturbations and multi-action steps", async () => {
    const { blobs, desk } = fixture();
    const waiter: ForwardPolicy = {
      name: "waiter",
      async propose() {
        return { actions: [{ type: "WAIT" }] };
      },
    };
    const r = await buildRecoveryDataset({
      env: desk,
      blobs,
      tasks: TASKS.slice(0, 1),
      forwardPolicy: ({ task }) => planFollower(task as SimDeskTask),
      perturbationPolicy: () => waiter,
      distances: [1],
      replays: 1,
    });
    expect(r.stages[0].perturbed).toBe(2);
    expect(r.stages[0].perturbationWellFormed).toBe(0);
    const doubler: ForwardPolicy = {
      name: "doubler",
      async propose(input) {
        return {
          actions: [
            { type: "MOVE_TO", x: 1, y: 1 },
            { type: "MOVE_TO", x: 2, y: 2 },
          ],
        };
      },
    };
    const r2 = await buildRecoveryDataset({
      env: desk,
      blobs,
      tasks: TASKS.slice(0, 1),
      forwardPolicy: () => doubler,
      perturbationPolicy: () => waiter,
      distances: [1],
      maxSteps: 3,
      replays: 1,
    });
    expect(r2.trajectories.rollouts).toBe(1);
    expect(r2.trajectories.wellFormed).toBe(0);
  });

  it("builds genuine error states with the simulated perturber, saves them versioned and loads them back", async () => {
    const { dir, blobs, desk } = fixture();
    const policies = simulatedDatasetPolicies(desk, 4);
    const build = await buildRecoveryDataset({
      env: desk,
      blobs,
      tasks: TASKS,
      forwardPolicy: ({ task }) => planFollower(task as SimDeskTask),
      perturbationPolicy: policies.perturbationPolicy,
      distances: [1, 3],
      seedStepsPerTrajectory: 3,
      replays: 2,
      seed: 4,
    });
    expect(build.simulated).toBe(true);
    expect(build.samples.length).toBeGreaterThan(0);
    for (const s of build.stages) {
      expect(s.seedSteps).toBeGreaterThanOrEqual(s.targetReproduced);
      expect(s.targetReproduced).toBeGreaterThanOrEqual(s.perturbed);
      expect(s.perturbed).toBeGreaterThanOrEqual(s.perturbationWellFormed);
      expect(s.perturbationWellFormed).toBeGreaterThanOrEqual(s.genuineError);
      expect(s.genuineError).toBeGreaterThanOrEqual(s.notNearIdentical);
      expect(s.notNearIdentical).toBeGreaterThanOrEqual(s.deduplicated);
      expect(s.final).toBe(build.samples.filter((x) => x.distance === s.distance).length);
    }
    for (const s of build.samples) {
      expect(s.perturbation).toHaveLength(s.distance);
      expect(s.errorTargetSsim).toBeLessThan(0.999);
      expect(s.error.stateHash).not.toBe(s.target.stateHash);
      expect(s.target.observation.screenshot).toBe(
        s.targetStep === s.trajectory.steps.length
          ? s.trajectory.final.observation.screenshot
          : s.trajectory.steps[s.targetStep].observation.screenshot,
      );
    }
    // Same seed, same samples.
    const again = await buildRecoveryDataset({
      env: desk,
      blobs,
      tasks: TASKS,
      forwardPolicy: ({ task }) => planFollower(task as SimDeskTask),
      perturbationPolicy: policies.perturbationPolicy,
      distances: [1, 3],
      seedStepsPerTrajectory: 3,
      replays: 2,
      seed: 4,
    });
    expect(again.samples.map((s) => s.id)).toEqual(build.samples.map((s) => s.id));

    const out = join(dir, "ds");
    const manifest = saveRecoveryDataset({ dir: out, build, tasks: TASKS, blobs, simulatedLabel: policies.label });
    expect(manifest.version).toMatch(/^[0-9a-f]{16}$/);
    expect(manifest.retention).toBe(1);
    const loaded = loadRecoveryDataset(out);
    expect(loaded.samples).toEqual(build.samples);
    expect(loaded.manifest.stages).toEqual(build.stages);
    expect([...loaded.tasks.keys()].sort()).toEqual([...new Set(build.samples.map((s) => s.taskId))].sort());
    // Screenshots were copied into the dataset's own blobs folder (SimDesk screens as gzipped SVG),
    // and the dataset's store alone renders them back to the PNG their reference names.
    const ref = build.samples[0].error.observation.screenshot;
    expect(readFileSync(join(out, "blobs", ref.slice(0, 2), `${ref}.svgz`)).length).toBeGreaterThan(200);
    expect(sha256Hex(await new BlobStore({ dir: join(out, "blobs") }).get(ref))).toBe(ref);
  });

  it("keeps a seeded subset of at most maxSamplesPerDistance samples", async () => {
    const { blobs, desk } = fixture();
    const policies = simulatedDatasetPolicies(desk, 4);
    const opts = {
      env: desk,
      blobs,
      tasks: TASKS,
      forwardPolicy: ({ task }: { task: unknown }) => planFollower(task as SimDeskTask),
      perturbationPolicy: policies.perturbationPolicy,
      distances: [3],
      seedStepsPerTrajectory: 3,
      replays: 1,
      seed: 4,
    };
    const all = await buildRecoveryDataset(opts);
    expect(all.samples.length).toBeGreaterThan(2);
    const sub = await buildRecoveryDataset({ ...opts, maxSamplesPerDistance: 2 });
    expect(sub.stages[0]).toMatchObject({ deduplicated: all.samples.length, final: 2 });
    const ids = new Set(all.samples.map((s) => s.id));
    expect(sub.samples.every((s) => ids.has(s.id))).toBe(true);
    expect((await buildRecoveryDataset({ ...opts, maxSamplesPerDistance: 2 })).samples.map((s) => s.id)).toEqual(
      sub.samples.map((s) => s.id),
    );
  });

  it("rejects bad settings with a ConfigError naming the field, and a missing dataset with a hint", async () => {
    const { blobs, desk } = fixture();
    await expect(
      buildRecoveryDataset({
        env: desk,
        blobs,
        tasks: TASKS,
        forwardPolicy: () => planFollower(TASKS[0]),
        perturbationPolicy: () => planFollower(TASKS[0]),
        replays: 0,
      }),
    ).rejects.toThrow(/"replays" is invalid/);
    expect(() => loadRecoveryDataset(join(tmpdir(), "no-such-dataset"))).toThrow(ConfigError);
    expect(() => loadRecoveryDataset(join(tmpdir(), "no-such-dataset"))).toThrow(/retrace dataset build/);
  });
});
