/**
 * A browser restore does not race the renderer (issue 31): on this machine's Chromium, every
 * built-in task's longest prefix (the plan but its last action) is snapshotted, then restored
 * again and again, each time from where the next plan action (or the last restore) left the
 * tab, and the state hash must equal the snapshot's after every restore. The rebuild navigates
 * through placeholder documents (a new renderer frame each, about:blank first), which is where
 * `Page.getNavigationHistory` answered "Not attached to an active page" (5 of 120 restores here
 * before the fix). Twenty restores in a row on the longest history of each app; one on every
 * other task (87 restores; the first version, with two on every other task, took 404 s at load ~20).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../src/blob-store.ts";
import type { EnvironmentSnapshot } from "../../../../src/environment.ts";
import { BROWSER_TASKS, createBrowserEnvironment, type BrowserEnvironment } from "../../../../adapters/environments/browser/index.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the browser restore tests", CHROMIUM_TOOLS);
/** The longest histories of each app (7, 5 and 2 entries) get twenty restores in a row. */
const LONG = new Set(["mail-reply-carol-archive", "shop-bottle-express-promo", "admin-add-diego"]);

describe.runIf(tools.run)("browser snapshot restore, many times in a row", () => {
  let env: BrowserEnvironment;
  let dir: string;
  beforeAll(async () => {
    tools.assert();
    dir = mkdtempSync(join(tmpdir(), "retrace-restore-race-"));
    env = await createBrowserEnvironment({ blobs: new BlobStore({ dir }) });
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("restores every task's longest prefix to the same state hash, every time", async () => {
    const failures: string[] = [];
    let restores = 0;
    for (const task of BROWSER_TASKS) {
      const done = task.plan.findIndex((a) => a.type === "DONE");
      const prefix = task.plan.slice(0, done - 1);
      await env.reset(task);
      for (const a of prefix) await env.step(a);
      const target = env.stateHash();
      const snap = JSON.parse(JSON.stringify(await env.snapshot())) as EnvironmentSnapshot;
      const n = LONG.has(task.id) ? 20 : 1;
      for (let i = 0; i < n; i++) {
        // Every other restore starts from the state after the next plan action, the rest from the restored state.
        if (i % 2 === 0) await env.step(task.plan[done - 1]);
        restores++;
        try {
          await env.restore(snap);
          if (env.stateHash() !== target) failures.push(`${task.id} #${i}: state hash differs`);
        } catch (err) {
          failures.push(`${task.id} #${i}: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
        }
      }
    }
    expect(restores).toBe(3 * 20 + (BROWSER_TASKS.length - 3) * 1);
    expect(failures).toEqual([]);
  }, 600_000);
});
