import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { createCascadeDetector, parseCascadeGates } from "../../../packages/core/src/detectors/index.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import type { Detection, DetectorInput, ErrorDetector } from "../../../packages/core/src/detector.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import { runEpisode } from "../../../packages/graphs/src/run-episode.ts";
import {
  TOY_TASK,
  ToyDesk,
  createToyDetector,
  createToyPolicy,
  createToyRecoverer,
  newBlobs,
} from "../../graphs/fixtures/toy.ts";

const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-cascade-")) });

/** A 96x64 screen: `box` = where a dark box is; `full` = the whole screen dark (a big change). */
async function screen(box: number, full = false): Promise<string> {
  const w = 96,
    h = 64;
  const raw = Buffer.alloc(w * h * 3, full ? 10 : 240);
  if (!full)
    for (let y = 10; y < 40; y++)
      for (let x = box * 20; x < box * 20 + 16; x++) raw.fill(20, (y * w + x) * 3, (y * w + x) * 3 + 3);
  return blobs.put(
    await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
      .png()
      .toBuffer(),
  );
}
const click = (x: number): Action => ({ type: "CLICK", x, y: 5, button: "left", numClicks: 1 });
function input(screens: string[], actions: Action[][]): DetectorInput {
  const history: HistoryEntry[] = actions.map((a, i) => ({
    step: i,
    observation: { screenshot: screens[i], width: 96, height: 64 },
    actions: a,
  }));
  return {
    task: { id: "t", instruction: "" },
    history,
    observation: { screenshot: screens[actions.length], width: 96, height: 64 },
    step: actions.length,
    tick: actions.length,
    blobs,
  };
}
/** The expensive detector: records calls, always says step 0 went wrong. */
function expensive(): ErrorDetector & { calls: number } {
  const d = {
    name: "expensive",
    calls: 0,
    latency: "model" as const,
    detect: async (): Promise<Detection> => (
      d.calls++,
      { isError: true, errorStep: 0, reason: "model says so", confidence: 0.9 }
    ),
  };
  return d;
}

describe("detector cascade", () => {
  it("asks the expensive detector only when a gate opens, and says which gates opened", async () => {
    const [a, b, c, dark] = [await screen(0), await screen(1), await screen(2), await screen(0, true)];
    const inner = expensive();
    const det = createCascadeDetector({
      gates: [
        { kind: "no-effect" },
        { kind: "visual-change", below: 0.6 },
        { kind: "action-pattern", types: ["HOTKEY"] },
      ],
      detector: inner,
    });
    expect(det.latency).toBe("model");
    // a small visible change after a click: no gate opens
    const quiet = await det.detect(input([a, b], [[click(1)]]));
    expect(quiet.isError).toBe(false);
    expect(quiet.cascade).toEqual({ gates: [], asked: false });
    expect(inner.calls).toBe(0);
    // a click that left the screen byte-identical: no-effect opens
    const noEffect = await det.detect(input([a, b, b], [[click(1)], [click(2)]]));
    expect(noEffect).toMatchObject({ isError: true, errorStep: 0, cascade: { gates: ["no-effect"], asked: true } });
    // the whole screen went dark: visual-change opens
    expect((await det.detect(input([c, dark], [[click(1)]]))).cascade).toEqual({
      gates: ["visual-change"],
      asked: true,
    });
    // an action type the model got wrong before
    expect((await det.detect(input([a, b], [[{ type: "HOTKEY", keys: ["ctrl", "w"] }]]))).cascade).toEqual({
      gates: ["action-pattern"],
      asked: true,
    });
    expect(inner.calls).toBe(3);
  });

  it("a loop gate fires on its own without asking the model; every-k is a safety net", async () => {
    const [a, b] = [await screen(0), await screen(1)];
    const inner = expensive();
    const det = createCascadeDetector({
      gates: [
        { kind: "loop", repeats: 3 },
        { kind: "every-k", k: 4 },
      ],
      detector: inner,
    });
    const loop = await det.detect(
      input([a, b, a, b, a, b, a], [[click(1)], [click(2)], [click(1)], [click(2)], [click(1)], [click(2)]]),
    );
    expect(loop.isError).toBe(true);
    expect(loop.cascade).toEqual({ gates: ["loop"], asked: false, firedBy: "loop" });
    expect(inner.calls).toBe(0);
    const [s0, s1, s2, s3, s4] = [await screen(0), await screen(1), await screen(2), await screen(3), await screen(4)];
    expect((await det.detect(input([s0, s1, s2, s3], [[click(1)], [click(2)], [click(3)]]))).cascade?.asked).toBe(
      false,
    );
    expect(
      (await det.detect(input([s0, s1, s2, s3, s4], [[click(1)], [click(2)], [click(3)], [click(4)]]))).cascade,
    ).toEqual({ gates: ["every-k"], asked: true });
    expect(inner.calls).toBe(1);
  });

  it("rejects a bad gate spec with a ConfigError naming the field", () => {
    expect(() => parseCascadeGates([{ kind: "every-k", k: 0 }])).toThrow(ConfigError);
    expect(() => parseCascadeGates([{ kind: "every-k", k: 0 }])).toThrow(/gates\[0\]\.k/);
    expect(() => parseCascadeGates([{ kind: "sometimes" }])).toThrow(/gate kinds: no-effect/);
    expect(() => createCascadeDetector({ detector: undefined as unknown as ErrorDetector })).toThrow(/detector/);
  });

  it("counts gates, expensive calls and own firings in the episode's accounting", async () => {
    const bl = newBlobs();
    const inner: ErrorDetector = {
      name: "never",
      detect: async () => ({ isError: false, errorStep: null, reason: "fine", confidence: 0.9 }),
    };
    const r = await runEpisode({
      task: TOY_TASK,
      components: {
        policy: createToyPolicy({}),
        env: new ToyDesk(bl),
        blobs: bl,
        recoverer: createToyRecoverer({}),
        detector: createCascadeDetector({ gates: [{ kind: "every-k", k: 2 }], detector: inner }),
      },
      options: {},
      checkpointer: false,
    });
    expect(r.success).toBe(true);
    const g = r.accounting.detectorGates!;
    expect(g.steps).toBe(r.accounting.detectorCalls);
    expect(g["every-k"]).toBe(Math.floor(r.accounting.detectorCalls / 2));
    expect(g.asked).toBe(g["every-k"]);
    expect(g.firedOnOwn).toBeUndefined();
  });
});

describe("before-done gate", () => {
  it.each(["sequential", "overlapped"] as const)(
    "a cascade that let a late slip pass is asked again before DONE, and the recovery runs (%s)",
    async (detection) => {
      const bl = newBlobs();
      const inner = createToyDetector();
      const r = await runEpisode({
        task: TOY_TASK,
        components: {
          policy: createToyPolicy({ slipTicks: [2] }),
          env: new ToyDesk(bl),
          blobs: bl,
          recoverer: createToyRecoverer({}),
          detector: createCascadeDetector({ gates: [{ kind: "before-done" }], detector: inner }),
        },
        options: { detection },
        checkpointer: false,
      });
      // no gate opens on ordinary steps: the model is asked only when the policy is about to finish
      expect(r.accounting.detectorGates!["before-done"]).toBe(inner.calls.length);
      expect(r.accounting.recoveryAttempts).toBe(1);
      expect(r.accounting.discardedProposals).toBe(1); // the first DONE never ran
      expect(r.trajectory.steps.filter((s) => s.actions.some((a) => a.type === "DONE")).length).toBeLessThanOrEqual(1);
      expect(r.success).toBe(true);
    },
  );
});
