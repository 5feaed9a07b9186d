/**
 * The body of the restore-race tests (issue 31), one test file per built-in app so that the
 * suite's workers share them: on this machine's Chromium, every task's longest prefix (the plan
 * but its last action) is snapshotted, then restored twenty times in a row, each time from where
 * the next plan action (every other restore) or the last restore left the tab. After every
 * restore the state hash must equal the snapshot's, and the screenshot must be byte-identical to
 * the one taken at snapshot time (the observation a restore returns; no extra capture, so checked on
 * every restore). The screenshot check failed on 160 of the 600 restores before the restore kept
 * the focus ring and hover (8 tasks, every restore: a clicked radio or checkbox drawn with a focus
 * ring, the button under the pointer drawn hovered; SSIM 0.9981-0.9998, so an SSIM >= 0.99 check
 * would have passed them). A restore from an
 * action's state rebuilds the tab's history through placeholder documents (a new renderer frame
 * each, about:blank first), which is where `Page.getNavigationHistory` answered "Not attached to
 * an active page" (5 of 120 restores here before the fix); a restore from the last restore's
 * state, with no navigation since, reloads the current entry only.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import type { EnvironmentSnapshot } from "../../../../packages/core/src/environment.ts";
import { screenshotSsim } from "../../../../packages/core/src/image/similarity.ts";
import {
  BROWSER_TASKS,
  createBrowserEnvironment,
  type BrowserEnvironment,
} from "../../../../packages/browser/src/index.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

/** Restores in a row on each task's longest prefix. */
export const RESTORES = 20;

/** Define the test for the tasks of one app (task ids starting with `app-`). */
export function restoreRaceTests(app: "mail" | "shop" | "admin"): void {
  const tools = systemTools("the browser restore tests", CHROMIUM_TOOLS);
  const tasks = BROWSER_TASKS.filter((t) => t.id.startsWith(`${app}-`));

  describe.runIf(tools.run)(`browser snapshot restore, ${RESTORES} times in a row on every ${app} task`, () => {
    let env: BrowserEnvironment;
    let dir: string;
    let blobs: BlobStore;
    beforeAll(async () => {
      tools.assert();
      dir = mkdtempSync(join(tmpdir(), `retrace-restore-race-${app}-`));
      blobs = new BlobStore({ dir });
      env = await createBrowserEnvironment({ blobs });
    });
    afterAll(async () => {
      await env?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("restores every task's longest prefix to the same state hash and the same screenshot, every time", async () => {
      expect(tasks.length).toBeGreaterThanOrEqual(10);
      const failures: string[] = [];
      let restores = 0;
      for (const task of tasks) {
        const done = task.plan.findIndex((a) => a.type === "DONE");
        const prefix = task.plan.slice(0, done - 1);
        await env.reset(task);
        for (const a of prefix) await env.step(a);
        const target = env.stateHash();
        const shot = env.visibleHash();
        const snap = JSON.parse(JSON.stringify(await env.snapshot())) as EnvironmentSnapshot;
        for (let i = 0; i < RESTORES; i++) {
          // Every other restore starts from the state after the next plan action, the rest from the restored state.
          if (i % 2 === 0) await env.step(task.plan[done - 1]);
          restores++;
          try {
            const restored = await env.restore(snap);
            if (env.stateHash() !== target) failures.push(`${task.id} #${i}: state hash differs`);
            if (restored.screenshot !== shot) {
              const ssim = await screenshotSsim(await blobs.get(restored.screenshot), await blobs.get(shot));
              failures.push(`${task.id} #${i}: screenshot differs (SSIM ${ssim.toFixed(5)})`);
            }
          } catch (err) {
            failures.push(`${task.id} #${i}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
          }
        }
      }
      expect(restores).toBe(tasks.length * RESTORES);
      expect(failures).toEqual([]);
      // Both ways of restoring ran: a reload of the current entry after a restore, a full rebuild after an action.
      expect(env.restoreReloads).toBeGreaterThan(0);
      expect(env.restoreReloads).toBeLessThan(restores);
    }, 900_000);
  });
}
