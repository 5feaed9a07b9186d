/**
 * The prefix check of ideal recovery on environments without ground truth (`replayMatches`):
 * SSIM >= 0.99 between the screenshots, and, when both observations carry probe reports, no
 * probe item differing. Real SimDesk screens and probe reports (withProbes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../packages/core/src/blob-store.ts";
import { withProbes } from "../../packages/evaluation/src/probes/with-probes.ts";
import { createSimDesk, getSimDeskTask } from "../../packages/simdesk/src/simdesk.ts";
import { replayMatches } from "../../experiments/ideal/forward-loop.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-replay-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the ideal-recovery prefix check without ground truth", () => {
  it("matches the same screen and state, rejects another screen by SSIM and the same screen over another hidden state by its probes", async () => {
    const blobs = new BlobStore({ dir: join(dir, "blobs") });
    const env = withProbes(createSimDesk({ blobs }), { blobs });
    const task = getSimDeskTask("files-rename-draft");
    const o0 = await env.reset(task);
    const again = await env.observe();
    expect(o0.probe).toBeDefined();
    expect(await replayMatches(again, o0, blobs, env)).toMatchObject({ match: true });
    const o1 = (await env.step(task.plan[0])).observation;
    const afterPlan = [o1];
    for (const a of task.plan.slice(1, -1)) afterPlan.push((await env.step(a)).observation);
    const last = afterPlan[afterPlan.length - 1];
    expect(last.screenshot).not.toBe(o0.screenshot);
    const screen = await replayMatches(last, o0, blobs, env);
    expect(screen.match).toBe(false);
    expect(screen.reason).toMatch(/^SSIM 0\.\d+ < 0\.99$/);
    // o_0's screenshot with the probe report of the changed state: SSIM alone would accept it
    const sameScreenOtherState = { ...o0, probe: last.probe };
    expect(sameScreenOtherState.probe).not.toBe(o0.probe);
    const probed = await replayMatches(sameScreenOtherState, o0, blobs, env);
    expect(probed).toMatchObject({ match: false });
    expect(probed.reason).toMatch(/^probes differ: /);
    await env.close();
  });
});
