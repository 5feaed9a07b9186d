/**
 * `retrace run --queue` on the browser environment: a `retrace worker` (BullMQ on a private
 * Redis, results in a private PostgreSQL) runs the episodes of a browser config in real Chromium,
 * and the coordinator's results.jsonl is byte-identical to a local run of the same config.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../../../experiments/config/load.ts";
import { runExperiment } from "../../../../experiments/runner/experiment.ts";
import { withBrowserEnv } from "../../../../experiments/runtime/browser.ts";
import { createSimDeskRuntime } from "../../../../experiments/runtime/simdesk.ts";
import { retrace, stop, type CliProc } from "../../../helpers/cli-procs.ts";
import { servicesAvailable, testServices } from "../../../helpers/services.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the browser environment tests", CHROMIUM_TOOLS);
const services = servicesAvailable("the distributed browser test");
const CONFIG = {
  kind: "end-to-end",
  name: "browser-dist",
  env: { kind: "browser", tasks: ["admin-promote-bruno"] },
  seeds: { count: 1 },
  maxRecoveryIterations: [2],
  options: { maxForwardSteps: 6, freezeWindow: 1, recoveryBudget: 3, restoration: "snapshot" },
  pairs: [
    {
      name: "sim",
      forward: { kind: "sim", profile: "sloppy", slipRate: 0.6 },
      detector: { kind: "sim" },
      selector: { kind: "sim" },
    },
  ],
};

describe.runIf(tools.run && services.run)("distributed runs on the browser environment", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-browser-dist-"));
  const procs: CliProc[] = [];
  let stopServices = () => {};
  let redisUrl = "";
  let postgresUrl = "";

  beforeAll(async () => {
    tools.assert();
    services.assert();
    ({ redisUrl, postgresUrl, stop: stopServices } = await testServices());
  }, 120_000);
  afterAll(async () => {
    await Promise.all(procs.map((p) => stop(p, 5_000)));
    stopServices();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a worker runs the episodes; results byte-identical to a local run", async () => {
    const local = await runExperiment(parseExperimentConfig(CONFIG), withBrowserEnv(createSimDeskRuntime()), {
      out: join(dir, "local"),
      workers: 1,
    });
    expect(local.lines.map((l) => l.status)).toEqual(["ok", "ok"]);
    writeFileSync(join(dir, "config.json"), JSON.stringify(CONFIG));
    const q = `browser-${process.pid}`;
    const worker = retrace([
      "worker",
      "--queue",
      redisUrl,
      "--store",
      postgresUrl,
      "--queue-name",
      q,
      "--work-dir",
      join(dir, "cache"),
    ]);
    procs.push(worker);
    const out = join(dir, "dist");
    const run = retrace([
      "run",
      join(dir, "config.json"),
      "--queue",
      redisUrl,
      "--store",
      postgresUrl,
      "--queue-name",
      q,
      "--out",
      out,
      "-q",
    ]);
    procs.push(run);
    expect(await run.exited, run.lines.join("\n")).toBe(0);
    expect(readFileSync(join(out, "results.jsonl"), "utf8")).toBe(
      readFileSync(join(dir, "local", "results.jsonl"), "utf8"),
    );
  }, 300_000);
});
