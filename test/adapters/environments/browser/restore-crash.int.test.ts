/**
 * A browser restore after the tab's renderer crashed (CDP `Page.crash`) or the tab was closed:
 * the restore opens a new tab in the episode's context and rebuilds everything there, to the
 * snapshot's state hash and screenshot, and the episode goes on acting in the new tab. The crash
 * comes right after a restore, when the next restore would otherwise only reload the current entry.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import type { EnvironmentSnapshot } from "../../../../packages/core/src/environment.ts";
import {
  BROWSER_TASKS,
  createBrowserEnvironment,
  type BrowserEnvironment,
} from "../../../../packages/browser/src/index.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the browser restore tests", CHROMIUM_TOOLS);
const task = BROWSER_TASKS.find((t) => t.id === "shop-bottle-express-promo")!;
const done = task.plan.findIndex((a) => a.type === "DONE");

describe.runIf(tools.run)("browser snapshot restore of a broken tab", () => {
  let env: BrowserEnvironment;
  let dir: string;
  let snap: EnvironmentSnapshot;
  let target: string;
  let screen: string;
  beforeAll(async () => {
    tools.assert();
    dir = mkdtempSync(join(tmpdir(), "retrace-restore-crash-"));
    env = await createBrowserEnvironment({ blobs: new BlobStore({ dir }) });
    await env.reset(task);
    for (const a of task.plan.slice(0, done - 1)) await env.step(a);
    target = env.stateHash();
    screen = env.visibleHash();
    snap = JSON.parse(JSON.stringify(await env.snapshot())) as EnvironmentSnapshot;
  });
  afterAll(async () => {
    await env?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Restore, check both hashes, then take the plan's last action in the (new) tab: the order is placed. */
  async function restoreAndFinish(broken: unknown) {
    await env.restore(snap);
    expect(env.currentPage).not.toBe(broken);
    expect(env.currentPage.isClosed()).toBe(false);
    expect(env.stateHash()).toBe(target);
    expect(env.visibleHash()).toBe(screen);
    await env.step(task.plan[done - 1]);
    expect((await env.evaluate()).score).toBe(1);
  }

  it("restores after the renderer crashed", async () => {
    await env.restore(snap);
    const page = env.currentPage;
    const crashed = page.waitForEvent("crash", { timeout: 20_000 });
    const cdp = await page.context().newCDPSession(page);
    void cdp.send("Page.crash").catch(() => undefined);
    await crashed;
    await expect(page.evaluate("1")).rejects.toThrow();
    const reloads = env.restoreReloads;
    await restoreAndFinish(page);
    expect(env.restoreReloads).toBe(reloads);
  }, 120_000);

  it("restores after the tab was closed", async () => {
    const page = env.currentPage;
    await page.close();
    await restoreAndFinish(page);
  }, 120_000);
});
