import { describe, expect, it } from "vitest";
import { runEpisode } from "../../packages/graphs/src/run-episode.ts";
import { EpisodeEvents } from "../../packages/core/src/runtime/events.ts";
import { ConfigError } from "../../packages/core/src/errors.ts";
import { createLoopDetector, createStagnationDetector } from "../../packages/core/src/detectors/index.ts";
import type { Detection, ErrorDetector } from "../../packages/core/src/detector.ts";
import { TOY_TASK } from "./fixtures/toy.ts";
import { run, setup } from "./fixtures/recovery-setup.ts";

describe("recovery graph on ToyDesk", () => {
  it.each<[string, ErrorDetector["detect"]]>([
    [
      "throws",
      async () => {
        throw new Error("model server down");
      },
    ],
    ["returns garbage", async () => ({ isError: "yes", errorStep: "two" }) as unknown as Detection],
    [
      "returns an error step outside the history",
      async () => ({ isError: true, errorStep: 99, reason: "?", confidence: 1 }),
    ],
    ["returns nothing", async () => undefined as unknown as Detection],
    ["hangs past the timeout", () => new Promise<Detection>(() => {})],
  ])("a detector that %s neither stops nor derails the episode", async (_name, detect) => {
    const bad: ErrorDetector = { name: "bad", detect };
    const s = setup({ detector: bad });
    const r = await runEpisode({
      task: TOY_TASK,
      components: s.components,
      options: {},
      knobs: { detectorTimeoutMs: 30 },
    });
    const base = await run(setup({ detector: null }));
    expect(r.success).toBe(true);
    expect(r.accounting.detectorCalls).toBe(6);
    expect(r.accounting.detectorFailures).toBe(6);
    expect(r.accounting.recoveryAttempts).toBe(0);
    expect(r.trajectory.steps.map((x) => x.actions)).toEqual(base.trajectory.steps.map((x) => x.actions));
    expect(r.trajectory.steps[0].detection?.failure).toBeTruthy();
  });

  it("the heuristic stagnation and loop detectors plug into the runtime and blame the first idle step", async () => {
    // A policy stuck pressing a dead key from step 2 on: the screen stops changing.
    const stuck = (name: string) => ({
      name,
      async propose(i: { history: readonly unknown[]; tick: number }) {
        const t = i.history.length;
        if (t >= 2 && i.tick < 8) return { actions: [{ type: "PRESS" as const, key: "f13" }] };
        if (t >= 6) return { actions: [{ type: "DONE" as const }] };
        return { actions: [{ type: "TYPING" as const, text: "abcdef"[t] }] };
      },
    });
    for (const [detector, E] of [
      [createStagnationDetector({ k: 3 }), 2],
      [createLoopDetector({ minCycle: 1, maxCycle: 2, repeats: 3 }), 3],
    ] as const) {
      const s = setup({ detector });
      const events = new EpisodeEvents();
      const detections: number[] = [];
      events.on("detection", (e) => e.triggered && detections.push(e.detection.errorStep!));
      await runEpisode({
        task: TOY_TASK,
        components: { ...s.components, policy: stuck("stuck") },
        options: { restoration: "replay", freezeWindow: 0, maxRecoveryIterations: 1 },
        events,
      });
      expect(detections).toEqual([E]);
    }
  });

  it("a listener can stop the episode", async () => {
    const s = setup();
    const events = new EpisodeEvents();
    events.on("step", (e) => {
      if (e.record.step === 1) events.stop("enough");
    });
    const r = await run(s, {}, events);
    expect(r.stopReason).toBe("aborted");
    expect(r.accounting.forwardSteps).toBe(2);
  });

  it("emits typed events in order for a recovery", async () => {
    const s = setup({ slipTicks: [2] });
    const events = new EpisodeEvents();
    const seen: string[] = [];
    for (const name of [
      "detection",
      "selection",
      "recovery-start",
      "recovery-step",
      "recovery-end",
      "truncate",
      "episode-end",
    ] as const) {
      events.on(name, () => seen.push(name));
    }
    await run(s, { freezeWindow: 5 }, events);
    const firstRecovery = seen.slice(seen.indexOf("selection") - 1, seen.indexOf("truncate") + 1);
    expect(firstRecovery).toEqual([
      "detection",
      "selection",
      "recovery-start",
      "recovery-step",
      "recovery-step",
      "recovery-end",
      "truncate",
    ]);
    expect(seen.at(-1)).toBe("episode-end");
  });

  it("an environment failure ends the episode as env-error, not a crash", async () => {
    const s = setup();
    s.env.failAtStep = 3;
    const r = await run(s);
    expect(r.stopReason).toBe("env-error");
    expect(r.envError).toMatch(/toy desktop crashed/);
    expect(r.success).toBe(false);
  });

  it("rejects invalid options with a ConfigError naming the field", async () => {
    const s = setup();
    await expect(run(s, { recoveryBudget: 0 })).rejects.toThrow(/^runEpisode: option "recoveryBudget" must be >= 1$/);
    await expect(run(s, { recoveryBudget: 0 })).rejects.toBeInstanceOf(ConfigError);
    await expect(run(s, { restoration: "model", recoveryContext: "contextualized" })).rejects.toThrow(/summarizer/);
    await expect(
      runEpisode({ task: TOY_TASK, components: { ...s.components, recoverer: undefined }, options: {} }),
    ).rejects.toThrow(/components.recoverer/);
  });
});
