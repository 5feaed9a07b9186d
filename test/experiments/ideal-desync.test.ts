/**
 * Replay desyncs in ideal recovery (paper App. B.1: "we retry replay up to three times per
 * continuation"): on a SimDesk that loses inputs now and then (experiments/recovery-eval/flaky-env.ts),
 * a prefix replay that does not reproduce o_R is retried from reset; every desync is counted in the
 * episode's line and the summary, and a continuation whose 3 attempts all desync is an env error
 * that the runner does not run again (its instance is excluded from Success@K, as in the paper).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Trajectory } from "../../packages/core/src/trajectory.ts";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { createFlakyEnvironment } from "../../experiments/recovery-eval/flaky-env.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import type { ExperimentRuntime } from "../../experiments/runner/runtime.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-desync-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * SimDesk losing `dropRate` of its inputs (flaky-env's reset and step; every other SimDesk method as is, for ground
 * truth).
 */
function flakySimDesk(dropRate: number): ExperimentRuntime {
  const base = createSimDeskRuntime();
  return {
    ...base,
    async createEnv(spec, blobs) {
      const desk = await base.createEnv(spec, blobs);
      const flaky = createFlakyEnvironment(desk, { dropRate, seed: 3 });
      return new Proxy(desk, {
        get(target, prop) {
          if (prop === "reset" || prop === "step") return flaky[prop];
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
    },
  };
}

describe("replay desyncs in ideal recovery", () => {
  it("retries a desynced prefix replay up to 3 attempts, counts every desync, and excludes a replay that never reproduces o_R", async () => {
    const out = join(dir, "run");
    const config = parseExperimentConfig({
      kind: "ideal-recovery",
      name: "desync",
      env: { kind: "simdesk", limit: 4 },
      seeds: [0, 1, 2],
      k: 3,
      strategies: ["error-minus-1", "error-random"],
      forward: { kind: "sim", profile: "sloppy" },
      detector: { kind: "sim" },
      options: { maxForwardSteps: 14 },
    });
    const run = await runExperiment(config, flakySimDesk(0.12), { out, workers: 1 });
    const continuations = run.lines.filter((l) => l.condition !== "forward");
    expect(continuations.length).toBeGreaterThan(10);

    // a desync retried and then reproduced: the line counts it, the record shows each reset
    const retried = continuations.filter((l) => l.status === "ok" && (l.replayDesyncs ?? 0) > 0);
    expect(retried.length).toBeGreaterThan(0);
    for (const l of retried) {
      expect(l.replayDesyncs).toBeLessThanOrEqual(2);
      const R = Number(l.extra?.recoveryStep);
      expect(l.replaySteps).toBe(R * (l.replayDesyncs! + 1));
      const k = l.key.split("/").pop();
      const { trajectory } = JSON.parse(
        readFileSync(join(out, l.condition, l.task, `${l.seed}-${k}`, "trajectory.json"), "utf8"),
      ) as { trajectory: Trajectory };
      expect(trajectory.events.filter((e) => e.kind === "reset" && e.detail.reason === "replay desync")).toHaveLength(
        l.replayDesyncs!,
      );
    }

    // three desyncs: given up at once (no second try of the episode), excluded, still counted
    const failed = continuations.filter((l) => l.status === "env-error");
    expect(failed.length).toBeGreaterThan(0);
    for (const l of failed) {
      expect(l).toMatchObject({ replayDesyncs: 3, envTries: 1 });
      expect(l.envError).toMatch(/did not reproduce the saved state after 3 attempts/);
    }

    const desyncs = continuations.reduce((n, l) => n + (l.replayDesyncs ?? 0), 0);
    expect(run.summary.replay).toEqual({
      episodes: continuations.filter((l) => l.replaySteps > 0 || l.replayDesyncs).length,
      desyncs,
      failed: failed.length,
    });
    const byCondition = run.summary.conditions.filter((c) => c.replay);
    expect(byCondition.reduce((n, c) => n + c.replay!.desyncs, 0)).toBe(desyncs);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).replay).toEqual(run.summary.replay);
    // the exclusions by reason: a continuation whose replay never reproduced o_R (App. B.1's only exclusion)
    expect(run.summary.ideal?.exclusions.replayFailed).toEqual({
      continuations: failed.length,
      runs: new Set(failed.map((l) => `${l.task}/${l.seed}`)).size,
    });
  }, 180_000);

  it("the runtime's replay restoration counts its desyncs the same way (end-to-end, restoration: replay)", async () => {
    const out = join(dir, "e2e");
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "desync-e2e",
      env: { kind: "simdesk", limit: 4 },
      seeds: [0, 1, 2],
      maxRecoveryIterations: [3],
      pairs: [{ name: "s", forward: { kind: "sim", profile: "sloppy" } }],
      options: { maxForwardSteps: 14, restoration: "replay", freezeWindow: 0 },
    });
    const run = await runExperiment(config, flakySimDesk(0.12), { out, workers: 1 });
    const withDesync = run.lines.filter((l) => (l.replayDesyncs ?? 0) > 0);
    expect(withDesync.length).toBeGreaterThan(0);
    for (const l of withDesync) {
      const { trajectory } = JSON.parse(
        readFileSync(join(out, l.condition, l.task, String(l.seed), "trajectory.json"), "utf8"),
      ) as { trajectory: Trajectory };
      // each replay try is a reset event; every try but the one a restoration ends restored on is a desync
      const tries = trajectory.events.filter((e) => e.kind === "reset" && e.detail.reason === "replay").length;
      const restored = trajectory.events.filter((e) => e.kind === "recovery-end" && e.detail.restored === true).length;
      expect(l.replayDesyncs).toBe(tries - restored);
    }
    expect(run.summary.replay!.desyncs).toBe(run.lines.reduce((n, l) => n + (l.replayDesyncs ?? 0), 0));
  }, 180_000);
});
