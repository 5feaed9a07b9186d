import { describe, expect, it } from "vitest";
import sharp from "sharp";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import { createSimDesk, getSimDeskTask, type SimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import { centerOf, makeDesk } from "./helpers.ts";

const settingsTask: SimDeskTask = {
  ...getSimDeskTask("settings-dnd-previews"),
  setup: { open: [{ app: "settings", page: "appearance" }] },
};

describe("SimDesk environment", () => {
  it("declares its capabilities and returns PNG observations with an accessibility tree and a state id", async () => {
    const { desk, blobs } = makeDesk();
    expect(desk.capabilities).toEqual({
      reset: true,
      snapshot: true,
      groundTruth: true,
      accessibility: true,
      probes: true,
    });
    const obs = await desk.reset(getSimDeskTask("files-rename-draft"));
    const meta = await sharp(await blobs.get(obs.screenshot)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 1280, 800]);
    expect(obs.stateId).toMatch(/^[0-9a-f]{64}$/);
    const names: string[] = [];
    const walk = (n: NonNullable<typeof obs.axTree>) => {
      names.push(`${n.role}:${n.name}`);
      n.children?.forEach(walk);
    };
    walk(obs.axTree!);
    expect(names).toContain("button:Launch Files");
  });

  it("a latent change (a setting on another page) changes stateHash but not visibleHash", async () => {
    const { desk } = makeDesk();
    const first = await desk.reset(settingsTask);
    const before = { state: desk.stateHash(), visible: desk.visibleHash(), shot: first.screenshot };
    const pointer = desk.getState().pointer;
    // Privacy page, flip "Remember recent files", back to Appearance, pointer back where it was.
    const clickOn = async (role: string, name: string) => {
      const c = centerOf((await desk.observe()).axTree!, role, name);
      return desk.apply({ type: "CLICK", x: c.x, y: c.y, button: "left", numClicks: 1 });
    };
    await clickOn("tab", "Privacy");
    await clickOn("switch", "Remember recent files");
    await clickOn("tab", "Appearance");
    desk.apply({ type: "MOVE_TO", x: pointer.x, y: pointer.y });
    expect(desk.stateHash()).not.toBe(before.state);
    expect(desk.visibleHash()).toBe(before.visible);
    expect((await desk.observe()).screenshot).toBe(before.shot);
  });

  it("draws a hover highlight under the pointer", async () => {
    const { desk } = makeDesk();
    const a = await desk.reset(getSimDeskTask("files-rename-draft"));
    const moved = await desk.step({ type: "MOVE_TO", x: 56, y: 18 });
    expect(moved.info.noop).toBe(false);
    expect(moved.observation.screenshot).not.toBe(a.screenshot);
    expect(desk.stateHash()).toBe(desk.stateHash());
    const away = await desk.step({ type: "MOVE_TO", x: 640, y: 400 });
    expect(away.observation.screenshot).toBe(a.screenshot);
  });

  it("treats a click on empty desktop as a no-op that changes nothing", async () => {
    const { desk } = makeDesk();
    await desk.reset(getSimDeskTask("files-rename-draft"));
    const h = desk.stateHash();
    const out = await desk.step({ type: "CLICK", x: 1200, y: 500, button: "left", numClicks: 1 });
    expect(out.info.noop).toBe(true);
    expect(desk.stateHash()).toBe(h);
    for (const a of [
      { type: "MOUSE_UP", button: "left" },
      { type: "KEY_UP", key: "shift" },
      { type: "SCROLL", dx: 0, dy: -3, x: 5, y: 700 },
      { type: "PRESS", key: "f2" },
    ] as const)
      expect((await desk.step(a)).info.noop).toBe(true);
  });

  it("restore() after snapshot() reproduces stateHash, and stored state ids load in a new instance", async () => {
    const { desk, dir } = makeDesk();
    const task = getSimDeskTask("editor-append-notes");
    await desk.reset(task);
    for (const a of task.plan.slice(0, 4)) desk.apply(a);
    const snap = await desk.snapshot();
    const hash = desk.stateHash();
    const id = (await desk.observe()).stateId!;
    for (const a of task.plan.slice(4)) desk.apply(a);
    expect(desk.stateHash()).not.toBe(hash);
    const back = await desk.restore(snap);
    expect(desk.stateHash()).toBe(hash);
    expect(back.stateId).toBe(id);
    const again = createSimDesk({ blobs: new BlobStore({ dir: `${dir}/blobs` }) });
    expect(again.semanticHash(id)).toBe(desk.semanticHash(id));
    expect(again.loadState(id)).toEqual(desk.loadState(id));
  });

  it("renders at 1920x1080 and the 1280x800 plans still solve their tasks there", async () => {
    const { desk, blobs } = makeDesk({ width: 1920, height: 1080 });
    const task = getSimDeskTask("cross-budget-total-report");
    const obs = await desk.reset(task);
    const meta = await sharp(await blobs.get(obs.screenshot)).metadata();
    expect([meta.width, meta.height]).toEqual([1920, 1080]);
    for (const a of task.plan) desk.apply(a);
    expect((await desk.evaluate()).score).toBe(1);
    expect(() => makeDesk({ width: 640, height: 480 })).toThrow(ConfigError);
  });

  it("two runs with the same noise seed give identical screenshots and results; noise stays out of the hashes", async () => {
    const task = getSimDeskTask("cross-tidy-downloads");
    const run = async (seed: number) => {
      const { desk } = makeDesk({ noise: { seed, popups: true, clock: true } });
      const shots = [(await desk.reset(task)).screenshot];
      const hashes: string[] = [];
      let popups = 0;
      for (const a of task.plan) {
        const out = await desk.step(a);
        shots.push(out.observation.screenshot);
        hashes.push(desk.stateHash());
        if (desk.getState().noise?.popup) popups++;
      }
      return { shots, hashes, popups, result: await desk.evaluate() };
    };
    const a = await run(7);
    const b = await run(7);
    expect(b.shots).toEqual(a.shots);
    expect(b.result).toEqual(a.result);
    const c = await run(8);
    expect(c.hashes).toEqual(a.hashes);
    expect(c.shots).not.toEqual(a.shots);
    expect(a.popups + c.popups).toBeGreaterThan(0);
  });

  it("equal visibleHash means an identical screenshot along real plans", async () => {
    const { desk } = makeDesk({ accessibility: false });
    const seen = new Map<string, string>();
    for (const id of ["editor-word-bank", "sheet-clear-row", "settings-two-pages"]) {
      const task = getSimDeskTask(id);
      let shot = (await desk.reset(task)).screenshot;
      const record = () => {
        const v = desk.visibleHash();
        if (seen.has(v)) expect(seen.get(v), id).toBe(shot);
        else seen.set(v, shot);
      };
      record();
      for (const a of task.plan) {
        shot = (await desk.step(a)).observation.screenshot;
        record();
        shot = (await desk.step({ type: "MOVE_TO", x: 300, y: 300 })).observation.screenshot;
        record();
      }
    }
    expect(seen.size).toBeGreaterThan(20);
  });
});
