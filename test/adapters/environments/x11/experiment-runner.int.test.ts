import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ExperimentConfigSchema } from "../../../../experiments/config/schema.ts";
import { withDesktopEnv } from "../../../../experiments/commands/env.ts";
import { runExperiment } from "../../../../experiments/runner/experiment.ts";
import { createSimDeskRuntime } from "../../../../experiments/runtime/simdesk.ts";

describe("the experiment runner on the real X11 desktop (--env x11)", () => {
  const out = mkdtempSync(join(tmpdir(), "retrace-x11-run-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("runs a SimDesk-style end-to-end config on real apps; recovery by replay fixes a simulated slip", async () => {
    const config = ExperimentConfigSchema.parse({
      kind: "end-to-end",
      name: "e2e-x11",
      env: { kind: "x11", tasks: ["mousepad-append-line"] },
      seeds: { count: 1, start: 5 },
      options: { maxForwardSteps: 12, freezeWindow: 0 },
      maxRecoveryIterations: [3],
      pairs: [{ name: "sloppy", forward: { kind: "sim", profile: "sloppy" } }],
    });
    const run = await runExperiment(config, withDesktopEnv(createSimDeskRuntime(), "x11"), { out, workers: 1 });
    expect(run.summary.simulated).toBe(true);
    const byName = Object.fromEntries(run.summary.conditions.map((c) => [c.condition, c]));
    expect(byName["sloppy.no-recovery"].success.successes).toBe(0);
    expect(byName["sloppy.max-rec-3"].success.successes).toBe(1);
    expect(byName["sloppy.max-rec-3"].envErrors).toBe(0);
    // OSWorld-style episode folder
    const ep = join(out, "sloppy.max-rec-3", "mousepad-append-line", "5");
    expect(readFileSync(join(ep, "result.txt"), "utf8").trim()).toMatch(/^1(\.0)?$/);
    expect(existsSync(join(ep, "step_0.png"))).toBe(true);
  }, 120_000);
});
