/**
 * Ideal recovery (App. B.1) on the real X11 desktop with a panel clock ticking on screen
 * (packages/desktops/src/x11/noise.ts, pop-up off): the saved o_R and its replay always differ in
 * the clock's digits, so a byte comparison of screenshots calls every faithful replay a desync.
 * The prefix check is SSIM >= 0.99 (the runtime's replay comparison), so the continuations
 * complete; the same replay under byte equality desyncs three times and is given up.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Environment } from "../../packages/core/src/environment.ts";
import { ReplayDesyncError } from "../../packages/core/src/errors.ts";
import type { Observation } from "../../packages/core/src/observation.ts";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import type { DesktopEnvironment } from "../../packages/desktops/src/x11/desktop-environment.ts";
import { startDesktopNoise, type DesktopNoise } from "../../packages/desktops/src/x11/noise.ts";
import { DESKTOP_TASKS } from "../../packages/desktops/src/desktop-tasks/tasks.ts";
import { ExperimentConfigSchema } from "../../experiments/config/schema.ts";
import { withDesktopEnv } from "../../experiments/runtime/desktop.ts";
import { createSimDeskRuntime } from "../../experiments/runtime/simdesk.ts";
import { runExperiment } from "../../experiments/runner/experiment.ts";
import type { ExperimentRuntime } from "../../experiments/runner/runtime.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import { rollForward, replayMatches } from "../../experiments/ideal/forward-loop.ts";
import type { RunPlan } from "../../experiments/ideal/plan.ts";
import { createAgent } from "../../experiments/agents/index.ts";
import { X11_TOOLS, systemTools } from "../helpers/system-tools.ts";

const tools = systemTools("the ideal-recovery X11 clock test", [...X11_TOOLS, "pymod:tkinter"]);
const dir = mkdtempSync(join(tmpdir(), "retrace-ideal-clock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The desktop with a ticking clock drawn on its display from the first reset on (it survives resets). */
function withClock(env: DesktopEnvironment): Environment {
  let noise: DesktopNoise | undefined;
  return new Proxy(env, {
    get(target, prop) {
      if (prop === "reset")
        return async (task: Parameters<Environment["reset"]>[0]) => {
          const first = await target.reset(task);
          if (noise) return first;
          noise = await startDesktopNoise(target.desktop, { shownSeconds: 0 });
          return target.observe();
        };
      if (prop === "close") return async () => (await noise?.stop(), await target.close());
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

function clockRuntime(): ExperimentRuntime {
  const base = withDesktopEnv(createSimDeskRuntime(), "x11");
  return {
    ...base,
    createEnv: async (spec, blobs) => withClock((await base.createEnv(spec, blobs)) as DesktopEnvironment),
  };
}

describe.runIf(tools.run)("ideal recovery on X11 with a clock on screen", () => {
  const out = join(dir, "run");
  it("completes its continuations: the prefix check is SSIM >= 0.99, not byte equality", async () => {
    const config = ExperimentConfigSchema.parse({
      kind: "ideal-recovery",
      name: "ideal-x11-clock",
      env: { kind: "x11", tasks: ["mousepad-append-line"] },
      seeds: [1],
      k: 2,
      strategies: ["error-minus-1"],
      options: { maxForwardSteps: 10 },
      forward: { kind: "sim", profile: "sloppy" },
      detector: { kind: "sim" },
    });
    const run = await runExperiment(config, clockRuntime(), { out, workers: 1 });
    const lines = readFileSync(join(out, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as ResultLine);
    const plan = JSON.parse(readFileSync(join(out, "plan.json"), "utf8")) as RunPlan;
    expect(plan.instances.filter((i) => !i.fallback)).toHaveLength(1);
    const R = plan.instances[0].recoveryStep["error-minus-1"]!;
    expect(R).toBeGreaterThan(0); // a prefix is replayed and checked
    const continuations = lines.filter((l) => l.extra?.phase === "continuation");
    expect(continuations).toHaveLength(2);
    for (const c of continuations) {
      expect(c.status).toBe("ok");
      expect(c.replaySteps).toBeGreaterThanOrEqual(R);
      expect(c.replayDesyncs ?? 0).toBe(0);
    }
    expect(run.summary.envErrors).toBe(0);
    expect(run.summary.replay).toEqual({ episodes: 2, desyncs: 0, failed: 0 });

    // The same replay judged by byte equality: the clock makes every attempt a desync.
    const inst = plan.instances[0];
    const blobs = new BlobStore({ dir: join(out, "blobs") });
    const runtime = clockRuntime();
    const env = await runtime.createEnv(config.env, blobs);
    try {
      const task = DESKTOP_TASKS.find((t) => t.id === inst.task)!;
      const policy = createAgent(
        "forward",
        { kind: "sim", profile: "sloppy" },
        { task, seed: inst.seed, env, blobs, envKind: "x11" },
      );
      const expected = inst.history[R].observation;
      const bytes = rollForward({
        env,
        policy,
        task,
        blobs,
        seed: inst.seed,
        maxForwardSteps: R + 1,
        prefix: inst.history.slice(0, R),
        expected,
        replayRetries: 3,
        sameState: (a: Observation, b: Observation) => a.screenshot === b.screenshot,
      });
      await expect(bytes).rejects.toBeInstanceOf(ReplayDesyncError);
      await expect(bytes).rejects.toMatchObject({ desyncs: 3 });
      // ...while the replayed screen differs from o_R only in the clock: SSIM says it is the same state.
      const replayed = await env.observe();
      expect(replayed.screenshot).not.toBe(expected.screenshot);
      expect((await replayMatches(replayed, expected, blobs)).match).toBe(true);
    } finally {
      await env.close();
    }
  }, 300_000);
});
