import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseExperimentConfig } from "../../experiments/config/load.ts";
import { conditionsOf } from "../../experiments/runner/conditions.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import { ENV_SETTLE_MS, resolveSettleMs } from "../../experiments/runner/settle.ts";
import type { EndToEndConfig, SweepConfig } from "../../experiments/config/schema.ts";
import { standInRuntime } from "./helpers/stand-in.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-settle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const e2e = (env: Record<string, unknown>, options: Record<string, unknown> = {}) =>
  parseExperimentConfig({ kind: "end-to-end", name: "settle", env, seeds: [0], options, pairs: [{ name: "a", forward: { profile: "x" } }], maxRecoveryIterations: [1] }) as EndToEndConfig;

describe("settleMs suited to the environment", () => {
  it("defaults per environment (osworld: the paper's 10 s; simdesk/x11/docker: 0) and an explicit value always wins", () => {
    expect(ENV_SETTLE_MS).toMatchObject({ simdesk: 0, x11: 0, docker: 0, osworld: 10_000 });
    for (const kind of ["simdesk", "x11", "docker", "osworld"]) {
      expect(resolveSettleMs(e2e({ kind }))).toEqual({ settleMs: ENV_SETTLE_MS[kind], source: "environment default", env: kind });
      expect(resolveSettleMs(e2e({ kind }, { settleMs: 250 }))).toEqual({ settleMs: 250, source: "config", env: kind });
    }
    expect(resolveSettleMs(e2e({ kind: "osworld" }, { settleMs: 0 }))).toMatchObject({ settleMs: 0, source: "config" });
    expect(resolveSettleMs(e2e({ kind: "counter" }))).toMatchObject({ settleMs: 0, source: "environment default" });
  });

  it("gives every condition (baseline, caps, sweep settings) the resolved value; a swept settleMs overrides it", () => {
    expect(conditionsOf(e2e({ kind: "osworld" })).map((c) => c.options.settleMs)).toEqual([10_000, 10_000]);
    expect(conditionsOf(e2e({ kind: "osworld" }, { settleMs: 2000 })).map((c) => c.options.settleMs)).toEqual([2000, 2000]);
    expect(conditionsOf(e2e({ kind: "simdesk" })).map((c) => c.options.settleMs)).toEqual([0, 0]);
    const sweep = parseExperimentConfig({ kind: "sweep", name: "s", env: { kind: "osworld" }, seeds: [0], pair: { name: "a", forward: { profile: "x" } }, params: { settleMs: [0, 500] }, retryCap: [1] }) as SweepConfig;
    expect(conditionsOf(sweep).map((c) => c.options.settleMs)).toEqual([10_000, 0, 500]);
  });

  it("the shipped model preset leaves settleMs to the environment", () => {
    const preset = parseYaml(readFileSync(new URL("../../experiments/configs/models/end-to-end.yaml", import.meta.url), "utf8")) as { options: Record<string, unknown> };
    expect(preset.options).not.toHaveProperty("settleMs");
  });

  it("records the value used and its source in manifest.json and summary.json", async () => {
    for (const [name, options, expected] of [
      ["default", {}, { settleMs: 0, source: "environment default", env: "counter" }],
      ["given", { settleMs: 3 }, { settleMs: 3, source: "config", env: "counter" }],
    ] as const) {
      const out = join(dir, name);
      await runExperiment(e2e({ kind: "counter" }, options), standInRuntime(join(out, "x"), { tasks: 1 }), { out, workers: 1 });
      expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).settle).toEqual(expected);
      expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).settle).toEqual(expected);
    }
  });
});
