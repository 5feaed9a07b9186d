/**
 * The viewer's episode data: events read as sentences in episode step numbers, E and R flagged on
 * the forward steps they name, steps numbered across the whole episode (never restarting after a
 * restore), actions turned into marks, screenshots as URLs into the blob store, and the SSIM
 * heat map's block values.
 */
import { describe, expect, it } from "vitest";
import { blockSsim, viewerEpisode } from "../../experiments/report/viewer-data.ts";
import type { EpisodeRecord } from "../../experiments/runner/episode.ts";
import type { Action } from "../../src/action.ts";

const h = (c: string) => c.repeat(64);
const click = (x: number, y: number): Action => ({ type: "CLICK", x, y, button: "left", numClicks: 1 });
const step = (seq: number, role: "forward" | "recovery", s: number, actions: Action[], attempt?: number) => ({ seq, role, step: s, actions, before: h(String(seq % 10)), after: h(String((seq + 1) % 10)), ...(attempt ? { attempt } : {}) });

const record = {
  key: "c/t/0", condition: "c", task: "t", instruction: "do it", seed: 0, success: true, score: 1, detail: "", stopReason: "done", simulated: true,
  trajectory: {
    taskId: "t",
    steps: [
      step(0, "forward", 0, [click(56, 18)]),
      step(1, "forward", 1, [click(125, 194)]),
      step(2, "forward", 2, [{ type: "MOVE_TO", x: 10, y: 20 }, { type: "DRAG_TO", x: 300, y: 40 }]),
      step(3, "forward", 3, [{ type: "TYPING", text: "tasks.txt" }]),
      step(4, "recovery", 0, [{ type: "PRESS", key: "escape" }], 1),
      step(5, "forward", 1, [click(125, 194)], 1),
    ],
    events: [
      { afterSeq: 3, kind: "recovery-start", detail: { attempt: 1, mode: "model", errorStep: 2, recoveryStep: 1, reason: "wrong menu", confidence: 0.9, target: h("1"), selection: { reason: "R = E-1" } } },
      { afterSeq: 4, kind: "recovery-end", detail: { attempt: 1, mode: "model", restored: true, steps: 1, reason: "declared restored", observation: h("5") } },
      { afterSeq: 4, kind: "truncate", detail: { attempt: 1, from: 4, to: 1, restored: true } },
    ],
  },
} as unknown as EpisodeRecord;

describe("viewer episode data", () => {
  it("numbers steps across the episode, flags E and R, and writes events as sentences", () => {
    const ep = viewerEpisode(record, "/run/blobs", "/run");
    expect(ep.steps.map((s) => s.n)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ep.steps[2].flags).toEqual(["E1"]);
    expect(ep.steps[1].flags).toEqual(["R1"]);
    expect(ep.steps[4]).toMatchObject({ role: "recovery", attempt: 1 });
    expect(ep.events[0].text).toBe("step 4: detector flagged step 3 as the first error (E = 2) with confidence 0.9: wrong menu; selector chose R = 1 (back to the screen before step 2): R = E-1; recovery attempt 1 starts (model restoration)");
    expect(ep.events[1].text).toBe("recovery attempt 1 took 1 step(s) and declared the state restored: declared restored");
    expect(ep.events[1]).toMatchObject({ target: `blobs/11/${h("1")}.png`, restored: `blobs/55/${h("5")}.png` });
    expect(ep.events[2].text).toBe("history cut from 4 to 1 step(s)");
    expect(ep.steps[0].before).toBe(`blobs/00/${h("0")}.png`);
  });

  it("turns actions into marks: click points, drag paths, typed text", () => {
    const ep = viewerEpisode(record, "/run/blobs", "/run");
    expect(ep.steps[0].marks).toEqual([{ t: "click", x: 56, y: 18, label: "click" }]);
    expect(ep.steps[2].marks).toEqual([{ t: "drag", x: 10, y: 20, x2: 300, y2: 40 }]);
    expect(ep.steps[3].marks).toEqual([{ t: "text", text: "tasks.txt" }]);
    expect(ep.steps[4].marks).toEqual([{ t: "text", text: "key escape" }]);
  });

  it("scores identical blocks 1 and a changed block below 1", () => {
    const a = new Uint8Array(160 * 96).map((_, i) => (i * 7) % 251);
    const b = a.slice();
    for (let y = 0; y < 8; y++) for (let x = 8; x < 16; x++) b[y * 160 + x] = 255 - b[y * 160 + x];
    const map = blockSsim(a, b);
    expect(map).toHaveLength(20 * 12);
    expect(map[0]).toBe(1);
    expect(map[1]).toBeLessThan(0.5);
    expect(map.filter((v) => v < 1)).toHaveLength(1);
  });
});

describe("condition labels", () => {
  it("words sweep settings and retry caps, and leaves recovery-step strategies alone", async () => {
    const { conditionLabel } = await import("../../experiments/report/labels.ts");
    expect(conditionLabel("freezeWindow=0,maxRecoveryIterations=3")).toBe("freeze window 0, retry cap 3");
    expect(conditionLabel("skilled.max-rec-5")).toBe("skilled, retry cap 5");
    expect(conditionLabel("R=E-1")).toBe("R=E-1");
    expect(conditionLabel("R=selector(sim, acc 0.8)")).toBe("R=selector(sim, acc 0.8)");
  });
});
