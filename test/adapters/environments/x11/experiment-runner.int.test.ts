import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ExperimentConfigSchema } from "../../../../experiments/config/schema.ts";
import { withDesktopEnv } from "../../../../experiments/commands/env.ts";
import { runExperiment } from "../../../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../../../experiments/runtime/simdesk.ts";
import { writeFileSync } from "node:fs";
import { main } from "../../../../experiments/cli.ts";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the X11 experiment-runner tests", X11_TOOLS);

describe.runIf(tools.run)("the experiment runner on the real X11 desktop (--env x11)", () => {
  const out = mkdtempSync(join(tmpdir(), "retrace-x11-run-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("runs a SimDesk-style end-to-end config on real apps; recovery by replay fixes a simulated slip", async () => {
    const config = ExperimentConfigSchema.parse({
      kind: "end-to-end",
      name: "e2e-x11",
      env: { kind: "x11", tasks: ["mousepad-append-line"] },
      seeds: { count: 1, start: 5 },
      // real apps have no ground truth for a simulated recoverer: restoration by replay, asked for explicitly
      options: { maxForwardSteps: 12, freezeWindow: 0, restoration: "replay" },
      maxRecoveryIterations: [3],
      pairs: [{ name: "sloppy", forward: { kind: "sim", profile: "sloppy" } }],
    });
    const run = await runExperiment(config, withDesktopEnv(createSimDeskRuntime(), "x11"), { out, workers: 1 });
    expect(run.summary.simulated).toBe(true);
    const byName = Object.fromEntries(run.summary.conditions.map((c) => [c.condition, c]));
    expect(byName["sloppy.no-recovery"].success.successes).toBe(0);
    expect(byName["sloppy.max-rec-3"].success.successes).toBe(1);
    expect(byName["sloppy.max-rec-3"].envErrors).toBe(0);
    // OSWorld-style episode folder; screenshots stay in the run's blob store (traj.jsonl names them)
    const ep = join(out, "sloppy.max-rec-3", "mousepad-append-line", "5");
    expect(readFileSync(join(ep, "result.txt"), "utf8").trim()).toMatch(/^1(\.0)?$/);
    const first = JSON.parse(readFileSync(join(ep, "traj.jsonl"), "utf8").split("\n")[0]);
    expect(existsSync(join(out, "blobs", first.screenshot_blob))).toBe(true);
  }, 120_000);

  it("retrace run <config> --env x11 runs a SimDesk config unchanged but for the environment", async () => {
    const dir = join(out, "cli");
    const cfg = join(out, "e2e.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        kind: "end-to-end",
        name: "cli-x11",
        env: { kind: "simdesk", limit: 1 },
        seeds: [5],
        options: { maxForwardSteps: 12, freezeWindow: 0, restoration: "replay" },
        maxRecoveryIterations: [3],
        pairs: [{ name: "sloppy", forward: { kind: "sim", profile: "sloppy" } }],
      }),
    );
    const out1: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((c: string) => (out1.push(String(c)), true)) as typeof process.stdout.write;
    try {
      await main(["node", "retrace", "run", cfg, "--env", "x11", "--out", dir, "--workers", "1", "--quiet"]);
    } finally {
      process.stdout.write = orig;
    }
    expect(process.exitCode ?? 0).toBe(0);
    const lines = readFileSync(join(dir, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    // the episodes ran on a real-app task, not a SimDesk one
    expect(lines.every((l) => /^(mousepad|galculator|gnumeric)-/.test(l.task))).toBe(true);
    expect(lines.filter((l) => l.status !== "ok")).toHaveLength(0);
    expect(out1.join("")).toContain("SIMULATED");
  }, 180_000);
});
