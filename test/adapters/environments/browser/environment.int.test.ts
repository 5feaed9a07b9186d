/**
 * The browser environment with real Chromium and the real app server: observations (screenshot,
 * URL, accessibility tree), a task run to its checker, probes, snapshot restore (server state,
 * cookies, localStorage, sessionStorage, IndexedDB, the tab's history, URL, form values, focus)
 * and replay restore in a fresh context.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Action } from "../../../../packages/core/src/action.ts";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { compareProbeReports } from "../../../../packages/evaluation/src/probes/compare.ts";
import type { AxNode } from "../../../../packages/core/src/observation.ts";
import {
  createBrowserEnvironment,
  BROWSER_TASKS,
  type BrowserEnvironment,
} from "../../../../packages/browser/src/index.ts";
import { ADMIN, centre } from "../../../../packages/browser/src/apps/layout.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the browser environment tests", CHROMIUM_TOOLS);
const task = (id: string) => BROWSER_TASKS.find((t) => t.id === id)!;
const click = (r: readonly [number, number, number, number]): Action => ({
  type: "CLICK",
  ...centre(r),
  button: "left",
  numClicks: 1,
});
const flat = (n: AxNode): AxNode[] => [n, ...(n.children ?? []).flatMap(flat)];
/** A page script writing sessionStorage and an IndexedDB record, as an app's own script would. */
const clientState = (note: string, db = "drafts") => `(async () => {
  sessionStorage.setItem("draft.note", ${JSON.stringify(note)});
  const open = indexedDB.open(${JSON.stringify(db)}, 1);
  open.onupgradeneeded = () => open.result.createObjectStore("notes", { keyPath: "id" });
  const idb = await new Promise((ok, ko) => { open.onsuccess = () => ok(open.result); open.onerror = () => ko(open.error); });
  await new Promise((ok, ko) => { const tx = idb.transaction("notes", "readwrite"); tx.objectStore("notes").put({ id: 1, text: ${JSON.stringify(note)}, at: [2026, 12] }); tx.oncomplete = ok; tx.onerror = () => ko(tx.error); });
  idb.close();
})()`;

describe.runIf(tools.run)("browser environment", () => {
  let env: BrowserEnvironment;
  let blobs: BlobStore;

  beforeAll(async () => {
    tools.assert();
    blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-browser-")) });
    env = await createBrowserEnvironment({ blobs });
  });
  afterAll(async () => {
    await env?.close();
  });

  it("observes a screenshot, the URL and an accessibility tree, and a task's checker passes after its plan", async () => {
    const t = task("mail-star-carol");
    const obs = await env.reset(t);
    expect((await blobs.get(obs.screenshot)).subarray(1, 4).toString()).toBe("PNG");
    expect(obs.text).toContain("URL: /mail");
    const nodes = flat(obs.axTree!);
    expect(nodes.find((n) => n.role === "link" && n.name.includes("carol@acme.test"))?.bounds).toEqual([
      220, 198, 780, 40,
    ]);
    expect(nodes.filter((n) => n.role === "button" && n.name === "Star")).toHaveLength(6);
    expect((await env.evaluate()).score).toBe(0);
    const out = await env.step(t.plan[0]);
    expect(out.info.navigated).toBe(true);
    expect(flat(out.observation.axTree!).some((n) => n.name.startsWith("★ carol@acme.test"))).toBe(true);
    expect(await env.evaluate()).toEqual({ score: 1, detail: "all checks passed" });
  });

  it("starts every episode in a fresh context: cookies and storage of the last one are gone", async () => {
    await env.reset(task("admin-rename-site"));
    await env.step(click(ADMIN.theme));
    expect((await env.probe()).items["storage:admin.theme"]).toBe('"dark"');
    await env.reset(task("admin-rename-site"));
    const items = (await env.probe()).items;
    expect(items["storage:admin.theme"]).toBeUndefined();
    expect(items["cookie:sid"]).toBe('"s1"');
  });

  it("restores a snapshot: server state, cookies, localStorage, sessionStorage, IndexedDB, history, URL, form values and focus", async () => {
    await env.reset(task("admin-rename-site"));
    await env.step(click(ADMIN.maintenance));
    await env.step(click(ADMIN.save)); // server state: maintenance on, one save
    await env.step(click(ADMIN.nav.users));
    await env.currentPage.goBack(); // history: /admin, /admin?saved=1 (current), /admin/users (forward)
    await env.currentPage.evaluate(clientState("call Bruno")); // sessionStorage and IndexedDB
    await env.step(click(ADMIN.theme)); // localStorage: dark theme
    await env.step(click(ADMIN.siteName));
    await env.step({ type: "HOTKEY", keys: ["ctrl", "a"] });
    await env.step({ type: "TYPING", text: "Draft name" }); // an unsaved form value, focused
    const hash = env.stateHash();
    const before = await env.probe();
    const snap = JSON.parse(JSON.stringify(await env.snapshot())); // as stored in the BlobStore
    expect(before.items["app:admin.settings"]).toBeDefined();
    expect(before.items["form:input:siteName:0"]).toBe('"Draft name"');
    expect(before.items).toMatchObject({
      "session:draft.note": '"call Bruno"',
      "idb:drafts/notes": expect.stringMatching(/^v1 records=1 /),
    });
    expect(before.items.history).toMatch(/^3\/4 /); // after the new page's about:blank

    // Change everything: save other settings, a new session cookie, other storage, another page.
    await env.step(click(ADMIN.signups));
    await env.step(click(ADMIN.save));
    await env.step(click(ADMIN.theme));
    await env.currentPage.context().clearCookies();
    await env.step(click(ADMIN.nav.users));
    await env.currentPage.evaluate(clientState("call Carol"));
    await env.currentPage.evaluate(clientState("stray", "other")); // a database the snapshot lacks
    await env.step({ type: "WAIT", seconds: 0 });
    const moved = await env.probe();
    const diff = compareProbeReports(before, moved);
    expect(diff.equal).toBe(false);
    expect(diff.differed.map((d) => d.key)).toEqual(
      expect.arrayContaining([
        "url",
        "app:admin.settings",
        "storage:admin.theme",
        "cookie:sid",
        "session:draft.note",
        "idb:drafts/notes",
        "history",
      ]),
    );
    expect(Object.keys(moved.items)).toContain("idb:other/notes");
    expect(env.stateHash()).not.toBe(hash);

    const obs = await env.restore(snap);
    expect(obs.text).toContain("URL: /admin?saved=1");
    const after = await env.probe();
    expect(compareProbeReports(before, after).differed).toEqual([]);
    expect(Object.keys(after.items)).not.toContain("idb:other/notes");
    expect(env.stateHash()).toBe(hash);
    // The back and forward stacks lead to the app's real pages.
    const page = env.currentPage;
    await page.goBack();
    expect([new URL(page.url()).pathname + new URL(page.url()).search, await page.title()]).toEqual([
      "/admin",
      "Admin",
    ]);
    await page.goForward();
    await page.goForward();
    expect(new URL(page.url()).pathname).toBe("/admin/users");
    expect(await page.getByText("bruno@acme.test").count()).toBe(1); // the users page, loaded from the app

    await env.restore(snap); // again, from elsewhere in the stack
    expect(env.stateHash()).toBe(hash);
    // The restored page keeps working: typing goes on in the focused field, and saving keeps it.
    await env.step({ type: "TYPING", text: " 2" });
    await env.step(click(ADMIN.save));
    expect((await env.probe()).items["form:input:siteName:0"]).toBe('"Draft name 2"'); // the page after saving shows what the server stored
  });

  it("replays a prefix in a fresh context to the same state hash", async () => {
    const t = task("shop-buy-mug");
    await env.reset(t);
    const prefix = t.plan.slice(0, 5); // add the mug, cart, checkout, type the name
    for (const a of prefix) await env.step(a);
    const atPrefix = env.stateHash();
    for (const a of t.plan.slice(5, 7)) await env.step(a);
    expect(env.stateHash()).not.toBe(atPrefix);
    await env.reset(t);
    for (const a of prefix) await env.step(a);
    expect(env.stateHash()).toBe(atPrefix);
  });
});
