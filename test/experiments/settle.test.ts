import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { conditionsOf } from "../../experiments/runner/conditions.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { ENV_SETTLE_MS, resolveSettleMs } from "../../experiments/runner/settle.ts";
import type { EndToEndConfig, SweepConfig } from "../../experiments/config/schema.ts";
import type { ExperimentRuntime } from "../../experiments/runner/runtime.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";
import { isTerminal } from "../../packages/core/src/action.ts";
import type { StepRecord } from "../../packages/core/src/trajectory.ts";
import { recordEnvOps, settleTrace, type EnvOp } from "../helpers/env-ops.ts";
import { standInRuntime } from "./helpers/stand-in.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-settle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const e2e = (env: Record<string, unknown>, options: Record<string, unknown> = {}) =>
  parseExperimentConfig({
    kind: "end-to-end",
    name: "settle",
    env,
    seeds: [0],
    options,
    pairs: [{ name: "a", forward: { profile: "x" } }],
    maxRecoveryIterations: [1],
  }) as EndToEndConfig;

describe("settleMs suited to the environment", () => {
  it("defaults per environment (osworld: the paper's 10 s; simdesk/x11/docker: 0) and an explicit value always wins", () => {
    expect(ENV_SETTLE_MS).toMatchObject({ simdesk: 0, x11: 0, docker: 0, osworld: 10_000 });
    for (const kind of ["simdesk", "x11", "docker", "osworld"]) {
      expect(resolveSettleMs(e2e({ kind }))).toEqual({
        settleMs: ENV_SETTLE_MS[kind],
        source: "environment default",
        env: kind,
      });
      expect(resolveSettleMs(e2e({ kind }, { settleMs: 250 }))).toEqual({ settleMs: 250, source: "config", env: kind });
    }
    expect(resolveSettleMs(e2e({ kind: "osworld" }, { settleMs: 0 }))).toMatchObject({ settleMs: 0, source: "config" });
    expect(resolveSettleMs(e2e({ kind: "counter" }))).toMatchObject({ settleMs: 0, source: "environment default" });
  });

  it("gives every condition (baseline, caps, sweep settings) the resolved value; a swept settleMs overrides it", () => {
    expect(conditionsOf(e2e({ kind: "osworld" })).map((c) => c.options.settleMs)).toEqual([10_000, 10_000]);
    expect(conditionsOf(e2e({ kind: "osworld" }, { settleMs: 2000 })).map((c) => c.options.settleMs)).toEqual([
      2000, 2000,
    ]);
    expect(conditionsOf(e2e({ kind: "simdesk" })).map((c) => c.options.settleMs)).toEqual([0, 0]);
    const sweep = parseExperimentConfig({
      kind: "sweep",
      name: "s",
      env: { kind: "osworld" },
      seeds: [0],
      pair: { name: "a", forward: { profile: "x" } },
      params: { settleMs: [0, 500] },
      maxRecoveryIterations: [1],
    }) as SweepConfig;
    expect(conditionsOf(sweep).map((c) => c.options.settleMs)).toEqual([10_000, 0, 500]);
  });

  it("the shipped model preset leaves settleMs to the environment", () => {
    const preset = parseYaml(
      readFileSync(new URL("../../experiments/configs/models/end-to-end.yaml", import.meta.url), "utf8"),
    ) as { options: Record<string, unknown> };
    expect(preset.options).not.toHaveProperty("settleMs");
  });

  it("records the value used and its source in manifest.json and summary.json", async () => {
    for (const [name, options, expected] of [
      ["default", {}, { settleMs: 0, source: "environment default", env: "counter" }],
      ["given", { settleMs: 3 }, { settleMs: 3, source: "config", env: "counter" }],
    ] as const) {
      const out = join(dir, name);
      await runExperiment(e2e({ kind: "counter" }, options), standInRuntime(join(out, "x"), { tasks: 1 }), {
        out,
        workers: 1,
      });
      expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).settle).toEqual(expected);
      expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).settle).toEqual(expected);
    }
  });
});

/** SimDesk's runtime with every environment it creates recording its calls into `ops`. */
function recordedSimDesk(ops: EnvOp[]): ExperimentRuntime {
  const base = createSimDeskRuntime();
  return { ...base, createEnv: async (spec, blobs) => recordEnvOps(await base.createEnv(spec, blobs), ops) };
}

/** Steps of every episode record under `out` that executed an action (terminal-only steps execute nothing). */
function executedSteps(out: string): number {
  let n = 0;
  for (const f of readdirSync(out, { recursive: true, encoding: "utf8" }).filter((p) =>
    p.endsWith("trajectory.json"),
  )) {
    const steps = (JSON.parse(readFileSync(join(out, f), "utf8")) as { trajectory: { steps: StepRecord[] } }).trajectory
      .steps;
    n += steps.filter((s) => s.actions.length > 0 && !isTerminal(s.actions[0])).length;
  }
  return n;
}

describe("settleMs on every runner path (SimDesk, real timers)", () => {
  const SETTLE = 15;
  const ideal = (options: Record<string, unknown>) =>
    parseExperimentConfig({
      kind: "ideal-recovery",
      name: "settle-ideal",
      env: { kind: "simdesk", limit: 2 },
      seeds: [0, 1, 2],
      k: 2,
      strategies: ["error-minus-1", "error-random"],
      forward: { kind: "sim", profile: "sloppy" },
      detector: { kind: "sim" },
      options: { maxForwardSteps: 12, ...options },
    });
  const endToEnd = (options: Record<string, unknown>) =>
    parseExperimentConfig({
      kind: "end-to-end",
      name: "settle-e2e",
      env: { kind: "simdesk", limit: 2 },
      seeds: [0, 1],
      maxRecoveryIterations: [2],
      pairs: [{ name: "s", forward: { kind: "sim", profile: "sloppy" } }],
      options: { maxForwardSteps: 12, restoration: "replay", freezeWindow: 0, ...options },
    });

  for (const [name, make] of [
    ["ideal recovery (forward runs, prefix replays, continuations)", ideal],
    ["end-to-end (forward, detection, replay restoration)", endToEnd],
  ] as const) {
    it(`${name}: one wait after every executed step, none doubled, results unchanged, recorded in the manifest`, async () => {
      const runs: Array<{ ops: EnvOp[]; out: string }> = [];
      for (const options of [{}, { settleMs: SETTLE }]) {
        const ops: EnvOp[] = [];
        const out = join(dir, `${make === ideal ? "ideal" : "e2e"}-${"settleMs" in options ? "settled" : "plain"}`);
        await runExperiment(make(options), recordedSimDesk(ops), { out, workers: 1 });
        runs.push({ ops, out });
      }
      const [plain, settled] = runs;
      const t0 = settleTrace(plain.ops);
      const t1 = settleTrace(settled.ops);
      const steps = executedSteps(settled.out);
      expect(steps).toBeGreaterThan(20);
      expect(t1.stepRuns).toBe(steps); // each executed step settles on its own
      expect(t1.unsettled).toBe(0);
      expect(Math.min(...t1.gaps)).toBeGreaterThanOrEqual(SETTLE - 2);
      expect(t1.observes - t0.observes).toBe(steps); // exactly one wait per step
      expect(t0.gaps).toEqual([]);
      expect(readFileSync(join(settled.out, "results.jsonl"), "utf8")).toBe(
        readFileSync(join(plain.out, "results.jsonl"), "utf8"),
      );
      const settle = JSON.parse(readFileSync(join(settled.out, "manifest.json"), "utf8")).settle;
      expect(settle).toEqual({ settleMs: SETTLE, source: "config", env: "simdesk" });
      expect(JSON.parse(readFileSync(join(plain.out, "manifest.json"), "utf8")).settle).toEqual({
        settleMs: 0,
        source: "environment default",
        env: "simdesk",
      });
      const results = readFileSync(join(settled.out, "results.jsonl"), "utf8");
      expect(results).toMatch(/"replaySteps":[1-9]/); // replays ran (prefix replay / replay restoration)
      if (make === ideal) expect(results).toContain('"phase":"continuation"');
    }, 180_000);
  }

  it("ideal recovery on osworld defaults to the paper's 10 s, and an explicit value wins", () => {
    expect(
      resolveSettleMs(
        parseExperimentConfig({
          kind: "ideal-recovery",
          name: "i",
          env: { kind: "osworld" },
          forward: { kind: "sim" },
          detector: { kind: "sim" },
        }),
      ),
    ).toEqual({ settleMs: 10_000, source: "environment default", env: "osworld" });
    expect(resolveSettleMs(ideal({ settleMs: 7 }))).toEqual({ settleMs: 7, source: "config", env: "simdesk" });
  });
});
