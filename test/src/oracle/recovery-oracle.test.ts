import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { Action } from "../../../packages/core/src/action.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import { judgeRecovery } from "../../../packages/evaluation/src/oracle/recovery-oracle.ts";
import { createSimDesk, getSimDeskTask, type SimDesk } from "../../../packages/simdesk/src/simdesk.ts";

const task = getSimDeskTask("files-rename-draft");
const NOTES = "/home/user/Documents/notes.txt";
let desk: SimDesk;
let blobs: BlobStore;

/** Reset and execute the first k plan steps; returns the observation. */
async function planTo(k: number): Promise<Observation> {
  let obs = await desk.reset(task);
  for (const a of task.plan.slice(0, k)) obs = (await desk.step(a)).observation;
  return obs;
}

const rest = (k: number): Action[][] => task.plan.slice(k).map((a) => [a]);

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-oracle-"));
  blobs = new BlobStore({ dir: join(dir, "blobs") });
  desk = createSimDesk({ blobs });
});

describe("judgeRecovery on SimDesk", () => {
  it("passes a recovery that reproduces the target exactly (R_O, R_TC and the verdict)", async () => {
    const k = 2;
    const target = await planTo(k);
    const v = await judgeRecovery({ env: desk, recovered: target, target, remaining: rest(k), blobs });
    expect(v.ro).toMatchObject({ pass: true, ssim: 1 });
    expect(v.rtc.pass).toBe(true);
    expect(v.success).toBe(true);
  });

  it("fails R_TC for a state that looks identical to the target but differs in a hidden file", async () => {
    const k = 2;
    const target = await planTo(k);
    expect(desk.getState().fs[NOTES]).toMatchObject({ type: "file" });
    const s = desk.getState();
    s.fs[NOTES] = { type: "file", text: "silently overwritten\n" };
    desk.setState(s);
    const recovered = await desk.observe();
    const v = await judgeRecovery({ env: desk, recovered, target, remaining: rest(k), blobs });
    expect(v.ro.pass).toBe(true);
    expect(v.ro.ssim).toBeGreaterThanOrEqual(0.99);
    expect(v.rtc.pass).toBe(false);
    expect(v.rtc.detail).toMatch(/notes\.txt/);
    expect(v.success).toBe(false);
  });

  it("fails R_O for a state that is latently right but visually off (a dialog left open)", async () => {
    const k = task.plan.length;
    const target = await planTo(k);
    const s = desk.getState();
    s.windows[s.windows.length - 1].dialog = { kind: "message", text: "Rename finished." };
    desk.setState(s);
    const recovered = await desk.observe();
    const v = await judgeRecovery({ env: desk, recovered, target, remaining: rest(k), blobs });
    expect(v.rtc.pass).toBe(true);
    expect(v.ro.pass).toBe(false);
    expect(v.ro.ssim).toBeLessThan(0.99);
    expect(v.success).toBe(false);
  });
});
