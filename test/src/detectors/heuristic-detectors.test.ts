import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { createLoopDetector, createStagnationDetector } from "../../../packages/core/src/detectors/index.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import type { DetectorInput } from "../../../packages/core/src/detector.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";

const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-det-")) });

/** A 96x64 screen with a dark box at column `box`; `speck` flips one pixel (a near-identical screen). */
async function screen(box: number, speck = false): Promise<string> {
  const w = 96,
    h = 64;
  const raw = Buffer.alloc(w * h * 3, 240);
  for (let y = 10; y < 40; y++)
    for (let x = box * 20; x < box * 20 + 16; x++) raw.fill(20, (y * w + x) * 3, (y * w + x) * 3 + 3);
  if (speck) raw.fill(200, (60 * w + 90) * 3, (60 * w + 90) * 3 + 3);
  return blobs.put(
    await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

const click = (x: number): Action => ({ type: "CLICK", x, y: 5, button: "left", numClicks: 1 });

function input(screens: string[], actions: Action[]): DetectorInput {
  const history: HistoryEntry[] = actions.map((a, i) => ({
    step: i,
    observation: { screenshot: screens[i], width: 96, height: 64 },
    actions: [a],
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

describe("stagnation detector", () => {
  it("fires when the screen did not change for k steps and blames the first idle action", async () => {
    const [a, b, bSpeck] = [await screen(0), await screen(1), await screen(1, true)];
    const det = createStagnationDetector({ k: 3 });
    // o0=a, o1=b, o2=b', o3=b, o4=b  -> actions 1,2,3 changed nothing visible (b' is within SSIM 0.99)
    const d = await det.detect(input([a, b, bSpeck, b, b], [click(1), click(2), click(3), click(4)]));
    expect(d.isError).toBe(true);
    expect(d.errorStep).toBe(1);
  });
  it("stays quiet while the screen keeps changing or the streak is short", async () => {
    const s = await Promise.all([0, 1, 2, 3].map((i) => screen(i)));
    const det = createStagnationDetector({ k: 3 });
    expect((await det.detect(input([s[0], s[1], s[2], s[3]], [click(1), click(2), click(3)]))).isError).toBe(false);
    expect((await det.detect(input([s[0], s[1], s[1], s[1]], [click(1), click(2), click(3)]))).isError).toBe(false);
  });
  it("does not count WAIT steps as stagnation", async () => {
    const a = await screen(0);
    const det = createStagnationDetector({ k: 2 });
    expect(
      (await det.detect(input([a, a, a, a], [{ type: "WAIT" }, { type: "WAIT" }, { type: "WAIT" }]))).isError,
    ).toBe(false);
  });
  it("rejects bad options", () => {
    expect(() => createStagnationDetector({ k: 0 })).toThrow(ConfigError);
  });
});

describe("loop detector", () => {
  it("fires on a repeated two-step cycle of screens and actions", async () => {
    const [a, b] = [await screen(0), await screen(2)];
    const det = createLoopDetector({ minCycle: 2, maxCycle: 3, repeats: 3 });
    // a -x-> b -y-> a -x-> b -y-> a -x-> b -y-> a
    const screens = [a, b, a, b, a, b, a];
    const actions = [click(1), click(2), click(1), click(2), click(1), click(2)];
    const d = await det.detect(input(screens, actions));
    expect(d.isError).toBe(true);
    expect(d.errorStep).toBe(2);
  });
  it("stays quiet when the actions differ or the screens differ", async () => {
    const s = await Promise.all([0, 1, 2, 3].map((i) => screen(i)));
    const det = createLoopDetector({ minCycle: 2, maxCycle: 3, repeats: 2 });
    expect(
      (await det.detect(input([s[0], s[1], s[0], s[1], s[0]], [click(1), click(2), click(3), click(2)]))).isError,
    ).toBe(false);
    expect(
      (await det.detect(input([s[0], s[1], s[2], s[3], s[0]], [click(1), click(2), click(1), click(2)]))).isError,
    ).toBe(false);
  });
  it("catches the same action on the same screen over and over (cycle of 1)", async () => {
    const a = await screen(1);
    const d = await createLoopDetector().detect(input([a, a, a, a], [click(7), click(7), click(7)]));
    expect(d.isError).toBe(true);
    expect(d.errorStep).toBe(1);
  });
});
