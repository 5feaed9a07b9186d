import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { conditionsOf, expandJobs } from "../../experiments/runner/conditions.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { readResults } from "../../experiments/runner/results-log.ts";
import { runPool } from "../../experiments/runner/pool.ts";
import type { EndToEndConfig, SweepConfig } from "../../experiments/config/schema.ts";
import { standInRuntime } from "./helpers/stand-in.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "retrace-runner-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const e2e = (extra: object = {}) =>
  parseExperimentConfig({
    kind: "end-to-end",
    name: "e2e-test",
    env: { kind: "counter" },
    seeds: { count: 3 },
    pairs: [{ name: "a", forward: { profile: "x" } }],
    maxRecoveryIterations: [1, 3],
    ...extra,
  });

describe("condition expansion", () => {
  it("expands pairs x caps with a baseline per pair, then conditions x tasks x seeds in order", () => {
    const config = e2e({
      pairs: [
        { name: "a", forward: { profile: "x" } },
        { name: "b", forward: { profile: "y" } },
      ],
    }) as EndToEndConfig;
    const ids = conditionsOf(config).map((c) => c.id);
    expect(ids).toEqual(["a.no-recovery", "a.max-rec-1", "a.max-rec-3", "b.no-recovery", "b.max-rec-1", "b.max-rec-3"]);
    const jobs = expandJobs(ids.slice(0, 2), ["t1", "t2"], [0, 1]);
    expect(jobs.map((j) => j.key)).toEqual([
      "a.no-recovery/t1/0",
      "a.no-recovery/t1/1",
      "a.no-recovery/t2/0",
      "a.no-recovery/t2/1",
      "a.max-rec-1/t1/0",
      "a.max-rec-1/t1/1",
      "a.max-rec-1/t2/0",
      "a.max-rec-1/t2/1",
    ]);
    expect(jobs.map((j) => j.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(conditionsOf(config)[0].options.maxRecoveryIterations).toBe(0);
    expect(conditionsOf(config)[2].recovery).toBe(true);
  });

  it("crosses a preset with max recovery iterations as a grid, and varies one parameter at a time in each mode", () => {
    const sweep = parseExperimentConfig({
      kind: "sweep",
      name: "s",
      pair: { name: "a", forward: { profile: "x" } },
      preset: "freeze-window",
      maxRecoveryIterations: [1, 3],
    }) as SweepConfig;
    const ids = conditionsOf(sweep).map((c) => c.id);
    expect(ids).toHaveLength(1 + 5 * 2);
    expect(ids.slice(0, 4)).toEqual([
      "no-recovery",
      "freezeWindow=0,maxRecoveryIterations=1",
      "freezeWindow=0,maxRecoveryIterations=3",
      "freezeWindow=1,maxRecoveryIterations=1",
    ]);
    expect(conditionsOf(sweep)[3].options).toMatchObject({ freezeWindow: 1, maxRecoveryIterations: 1 });
    const grid = parseExperimentConfig({
      kind: "sweep",
      name: "s",
      pair: { name: "a", forward: { profile: "x" } },
      params: { freezeWindow: [1, 5], recoveryBudget: [3, 10] },
      maxRecoveryIterations: [2],
      baseline: false,
    }) as SweepConfig;
    expect(conditionsOf(grid).map((c) => c.id)).toEqual([
      "freezeWindow=1,recoveryBudget=3,maxRecoveryIterations=2",
      "freezeWindow=1,recoveryBudget=10,maxRecoveryIterations=2",
      "freezeWindow=5,recoveryBudget=3,maxRecoveryIterations=2",
      "freezeWindow=5,recoveryBudget=10,maxRecoveryIterations=2",
    ]);
    const each = parseExperimentConfig({ ...grid, mode: "each" }) as SweepConfig;
    expect(conditionsOf(each)).toHaveLength(4);
  });
});

describe("sweep flags and sampling", () => {
  it("turns --param flags into a sweep over an end-to-end config's single pair", async () => {
    const { sweepConfigFrom, parseParamFlag } = await import("../../experiments/commands/sweep.ts");
    expect(parseParamFlag("freezeWindow=0, 1,3")).toEqual(["freezeWindow", [0, 1, 3]]);
    expect(parseParamFlag("recoveryStep=zero,llm")).toEqual(["recoveryStep", ["zero", "llm"]]);
    expect(() => parseParamFlag("freezeWindow")).toThrow(/name=v1,v2/);
    const sweep = sweepConfigFrom(e2e(), {
      param: ["recoveryBudget=1,3"],
      maxRecoveryIterations: "1,5",
    }) as SweepConfig;
    expect(conditionsOf(sweep).map((c) => c.id)).toEqual([
      "no-recovery",
      "recoveryBudget=1,maxRecoveryIterations=1",
      "recoveryBudget=1,maxRecoveryIterations=5",
      "recoveryBudget=3,maxRecoveryIterations=1",
      "recoveryBudget=3,maxRecoveryIterations=5",
    ]);
    expect(() => sweepConfigFrom(e2e(), { param: ["bogus=1"] })).toThrow(/sweep\.params\.bogus: not a recovery option/);
  });
  it("skips a pair's baseline on request and samples tasks evenly", async () => {
    const config = e2e({
      pairs: [
        { name: "a", forward: { profile: "x" } },
        { name: "b", forward: { profile: "x" }, baseline: false },
      ],
      env: { kind: "counter", sample: 2 },
      seeds: [5],
    }) as EndToEndConfig;
    expect(conditionsOf(config).map((c) => c.id)).toEqual([
      "a.no-recovery",
      "a.max-rec-1",
      "a.max-rec-3",
      "b.max-rec-1",
      "b.max-rec-3",
    ]);
    const out = tmp();
    const run = await runExperiment(config, standInRuntime(join(out, "x"), { tasks: 4 }), { out, workers: 2 });
    expect([...new Set(run.lines.map((l) => l.task))]).toEqual(["t1", "t3"]);
    expect(run.lines).toHaveLength(5 * 2);
  });
});

describe("config validation", () => {
  it("names the bad field in one line", () => {
    expect(() => e2e({ pairs: [{ name: "a", forward: { profile: 3 } }] })).toThrow(
      /^config\.pairs\.0\.forward\.profile: /,
    );
    expect(() => e2e({ maxRecoveryIterations: [0] })).toThrow(/config\.maxRecoveryIterations\.0/);
    expect(() => e2e({ colour: "red" })).toThrow(/unknown field\(s\) "colour"/);
    expect(() => parseExperimentConfig({ kind: "nope", name: "x" })).toThrow(/config\.kind/);
    expect(() =>
      parseExperimentConfig({
        kind: "sweep",
        name: "s",
        pair: { name: "a", forward: { profile: "x" } },
        params: { freezWindow: [1] },
      }),
    ).toThrow(/config\.params\.freezWindow: not a recovery option/);
    expect(() =>
      parseExperimentConfig({
        kind: "sweep",
        name: "s",
        pair: { name: "a", forward: { profile: "x" } },
        params: { freezeWindow: [-1] },
      }),
    ).toThrow(/config\.params\.freezeWindow\.0/);
    try {
      e2e({ seeds: "many" });
    } catch (e) {
      expect(String((e as Error).message)).not.toContain("\n");
    }
  });
});

describe("running", () => {
  it("gives byte-identical results.jsonl for the same config and seed, with timings kept apart", async () => {
    const a = tmp(),
      b = tmp();
    await runExperiment(e2e(), standInRuntime(join(a, "x")), { out: a, workers: 2 });
    await runExperiment(e2e(), standInRuntime(join(b, "x")), { out: b, workers: 1 });
    const ra = readFileSync(join(a, "results.jsonl"));
    expect(ra.equals(readFileSync(join(b, "results.jsonl")))).toBe(true);
    expect(ra.toString().trim().split("\n")).toHaveLength(3 * 3 * 3);
    expect(ra.toString()).not.toMatch(/wallMs|envMs/);
    expect(readFileSync(join(a, "timings.jsonl"), "utf8")).toMatch(/wallMs/);
    const c = tmp();
    await runExperiment(e2e(), standInRuntime(join(c, "x")), { out: c, workers: 2, seedBase: 100 });
    expect(readFileSync(join(c, "results.jsonl")).equals(ra)).toBe(false);
    const manifest = JSON.parse(readFileSync(join(a, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({ experiment: "e2e-test", packageVersion: "0.1.0", seeds: [0, 1, 2] });
    expect(manifest.configHash).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.prompts.length).toBeGreaterThan(3);
    // Each condition records what an unconfirmed restoration does; experiment configs default to the paper's.
    expect(manifest.conditions.length).toBeGreaterThan(0);
    for (const c of manifest.conditions) expect(c.unconfirmedRestoration).toBe("claim-recovered");
  });

  it("keeps environment errors out of success rates, counts them, retries up to the cap, and re-runs only them on resume", async () => {
    const out = tmp();
    const runtime = standInRuntime(join(out, "x"), { failures: { "t1/0": "always", "t2/1": [1] } });
    const run = await runExperiment(e2e({ envRetries: 1, maxRecoveryIterations: [1] }), runtime, { out, workers: 1 });
    const lines = run.lines;
    const bad = lines.filter((l) => l.status === "env-error");
    expect(bad.map((l) => l.key)).toEqual(["a.no-recovery/t1/0", "a.max-rec-1/t1/0"]);
    expect(bad[0].envTries).toBe(2);
    expect(lines.find((l) => l.key === "a.no-recovery/t2/1")).toMatchObject({ status: "ok", envTries: 2 });
    const base = run.summary.conditions.find((c) => c.condition === "a.no-recovery")!;
    expect(base.episodes).toBe(9);
    expect(base.envErrors).toBe(1);
    expect(base.success.n).toBe(8);
    expect(base.success.successes).toBe(
      lines.filter((l) => l.condition === "a.no-recovery" && l.status === "ok" && l.success).length,
    );
    expect(run.summary.envErrors).toBe(2);
    expect(readFileSync(join(out, "summary.csv"), "utf8").split("\n")[1]).toMatch(/^e2e-test,a\.no-recovery,.*,9,1,8,/);

    await expect(
      runExperiment(e2e({ envRetries: 1, maxRecoveryIterations: [1] }), standInRuntime(join(out, "x")), { out }),
    ).rejects.toThrow(/--resume/);
    const healthy = standInRuntime(join(out, "x"));
    const resumed = await runExperiment(e2e({ envRetries: 1, maxRecoveryIterations: [1] }), healthy, {
      out,
      resume: true,
    });
    expect([...healthy.tries.keys()].sort()).toEqual(["t1/0"]);
    expect(resumed.lines.every((l) => l.status === "ok")).toBe(true);
    const text = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n");
    expect(text).toHaveLength(18);
    await expect(
      runExperiment(e2e({ envRetries: 1, maxRecoveryIterations: [3] }), healthy, { out, resume: true }),
    ).rejects.toThrow(/config \(or --seed\) differs/);
  });

  it("runs the ideal-recovery phases: frozen plan, K continuations per failed run and strategy, Success@K curves", async () => {
    const out = tmp();
    const config = parseExperimentConfig({
      kind: "ideal-recovery",
      name: "ideal",
      env: { kind: "counter" },
      seeds: { count: 6 },
      forward: { profile: "x" },
      detector: { profile: "d" },
      selector: { profile: "s" },
      k: 3,
      options: { maxForwardSteps: 6 },
    });
    const run = await runExperiment(config, standInRuntime(join(out, "x")), { out, workers: 2 });
    const plan = JSON.parse(readFileSync(join(out, "plan.json"), "utf8"));
    const failed = run.lines.filter((l) => l.condition === "forward" && !l.success).length;
    expect(failed).toBeGreaterThan(0);
    expect(plan.instances).toHaveLength(failed);
    // every failed run gets continuations (noErrorFound: last-step, the paper's rule), those without a detected error
    // from E = their last step
    expect(run.lines.filter((l) => l.extra?.phase === "continuation")).toHaveLength(plan.instances.length * 4 * 3);
    expect(run.summary.ideal).toMatchObject({ noErrorFound: "last-step", failedRuns: failed, continued: failed });
    const curves = run.summary.successAtK!;
    // The stand-in selector is simulated: its strategy is never labelled R=LLM.
    expect(curves.map((c) => c.condition)).toEqual(["R=0", "R=E-1", "R=E-random", "R=selector(sim)"]);
    expect(plan.labels).toEqual({ llm: "R=selector(sim)" });
    for (const c of curves) {
      expect(c.curve).toHaveLength(3);
      expect(c.curve[2].rate).toBeGreaterThanOrEqual(c.curve[0].rate);
    }
    expect(existsSync(join(out, "forward", "t1", "0", "history.json"))).toBe(true);
    // a replayed prefix is recorded as replay steps
    const e1 = run.lines.filter((l) => l.condition === "R=E-1");
    expect(e1.every((l) => l.replaySteps === Number(l.extra?.recoveryStep))).toBe(true);
    expect(readResults(join(out, "results.jsonl")).size).toBe(run.lines.length);
  });
});

describe("process workers", () => {
  it("walk the jobs task by task, worker k of N starting k/N of the way into the tasks", async () => {
    const jobs = expandJobs(["a.no-recovery", "a.max-rec-1"], ["t0", "t1", "t2", "t3"], [0, 1]);
    const walk = async (startAt?: { part: number; parts: number }) => {
      const out = tmp();
      const seen: string[] = [];
      // every claim refused: the pool only walks, and records the order it asks in
      await runPool({
        experiment: "walk",
        jobs,
        workers: 1,
        startAt,
        claim: async (j) => (seen.push(j.key), false),
        createEnv: () => Promise.reject(new Error("no job may run")),
        execute: () => Promise.reject(new Error("no job may run")),
        resultsFile: join(out, "results.jsonl"),
        timingsFile: join(out, "timings.jsonl"),
        finalize: false,
      });
      return seen;
    };
    expect(await walk()).toEqual(jobs.map((j) => j.key));
    const second = await walk({ part: 1, parts: 2 });
    expect(second.slice(0, 4)).toEqual([
      "a.no-recovery/t2/0",
      "a.no-recovery/t2/1",
      "a.max-rec-1/t2/0",
      "a.max-rec-1/t2/1",
    ]);
    expect(second.map((k) => k.split("/")[1])).toEqual([
      "t2",
      "t2",
      "t2",
      "t2",
      "t3",
      "t3",
      "t3",
      "t3",
      "t0",
      "t0",
      "t0",
      "t0",
      "t1",
      "t1",
      "t1",
      "t1",
    ]);
    expect((await walk({ part: 0, parts: 2 }))[4]).toBe("a.no-recovery/t1/0");
  });

  it("give the same results.jsonl bytes as in-process workers", async () => {
    const { ShardPool } = await import("../../experiments/runner/shards.ts");
    const a = tmp(),
      b = tmp();
    const helper = new URL("./helpers/stand-in.ts", import.meta.url).href;
    const pool = new ShardPool(2, { module: helper, exportName: "standInRuntime", args: [join(b, "x")] });
    try {
      const viaProcesses = await runExperiment(e2e(), standInRuntime(join(b, "x")), { out: b, processes: pool });
      const inProcess = await runExperiment(e2e(), standInRuntime(join(a, "x")), { out: a, workers: 2 });
      expect(readFileSync(join(b, "results.jsonl")).equals(readFileSync(join(a, "results.jsonl")))).toBe(true);
      expect(viaProcesses.lines).toHaveLength(27);
      expect(viaProcesses.summary).toEqual(inProcess.summary);
      // children pull jobs from the parent one at a time: every episode ran exactly once
      const timed = readFileSync(join(b, "timings.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).key as string);
      expect(timed).toHaveLength(27);
      expect(new Set(timed).size).toBe(27);
      // resuming the finished run starts no child: a pool whose children could not even load is never used
      const before = readFileSync(join(b, "results.jsonl"));
      const unusable = new ShardPool(2, {
        module: new URL("./helpers/no-such-module.ts", import.meta.url).href,
        exportName: "none",
        args: [],
      });
      try {
        const resumed = await runExperiment(e2e(), standInRuntime(join(b, "x")), {
          out: b,
          processes: unusable,
          resume: true,
        });
        expect(resumed.lines).toHaveLength(27);
        expect(readFileSync(join(b, "results.jsonl")).equals(before)).toBe(true);
      } finally {
        unusable.close();
      }
    } finally {
      pool.close();
    }
  }, 180_000);
});
