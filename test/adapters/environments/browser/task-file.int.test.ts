/**
 * A user's own web app through a task file: the environment starts at the file's URL, resets and
 * snapshots the app through its state endpoint, and judges with the user's checker module. The
 * app is a small node:http notes app started by this test on 127.0.0.1.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { ConfigError } from "../../../../packages/core/src/errors.ts";
import {
  createBrowserEnvironment,
  loadBrowserTaskFile,
  type BrowserEnvironment,
} from "../../../../packages/browser/src/index.ts";
import { browserTasks } from "../../../../experiments/runtime/browser.ts";
import { CHROMIUM_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the browser environment tests", CHROMIUM_TOOLS);
/** A page script keeping a draft in sessionStorage and IndexedDB, as the app's own script might. */
const clientState = (text: string) => `(async () => {
  sessionStorage.setItem("draft", ${JSON.stringify(text)});
  const open = indexedDB.open("notes-cache", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("drafts");
  const db = await new Promise((ok) => (open.onsuccess = () => ok(open.result)));
  await new Promise((ok) => { const tx = db.transaction("drafts", "readwrite"); tx.objectStore("drafts").put(${JSON.stringify(text)}, "current"); tx.oncomplete = ok; });
  db.close();
})()`;

/** The user's app: a list of notes, a form to add one, and a token-protected state endpoint. */
function notesApp(): { server: Server; state: { notes: string[] } } {
  const app = { state: { notes: [] as string[] } };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.url === "/__state") {
        if (req.headers["x-token"] !== "t0ken") return void res.writeHead(403).end();
        if (req.method === "PUT") {
          app.state = JSON.parse(body);
          return void res.writeHead(204).end();
        }
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(app.state));
      }
      if (req.method === "POST" && req.url === "/add") {
        const note = new URLSearchParams(body).get("note")?.trim();
        if (note) app.state.notes.push(note);
        return void res.writeHead(303, { location: "/" }).end();
      }
      const items = app.state.notes.map((n) => `<li>${n.replace(/</g, "&lt;")}</li>`).join("");
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          `<!doctype html><title>Notes</title><body style="margin:0"><form method="post" action="/add"><input name="note" style="position:absolute;left:20px;top:20px;width:300px;height:30px"><button style="position:absolute;left:340px;top:20px;width:80px;height:30px">Add</button></form><ul style="position:absolute;top:80px">${items}</ul></body>`,
        );
    });
  });
  return {
    server,
    get state() {
      return app.state;
    },
  } as { server: Server; state: { notes: string[] } };
}

describe.runIf(tools.run)("browser task files for a user's own app", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-browser-file-"));
  let app: ReturnType<typeof notesApp>;
  let url: string;
  let env: BrowserEnvironment;

  beforeAll(async () => {
    tools.assert();
    app = notesApp();
    await new Promise<void>((r) => app.server.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    writeFileSync(
      join(dir, "check-notes.mjs"),
      `export function check({ state }) { return { score: state.notes.includes("call Ana") ? 1 : 0, detail: "notes: " + state.notes.join(", ") }; }\nexport const notAFunction = 1;\n`,
    );
    writeFileSync(
      join(dir, "tasks.yaml"),
      `tasks:\n  - id: notes-add\n    instruction: Add a note saying 'call Ana'.\n    url: ${url}/\n    checker: ./check-notes.mjs\n    export: check\n    state: { url: "${url}/__state", headers: { x-token: t0ken }, initial: { notes: [buy milk] } }\n` +
        `    plan: [{ type: CLICK, x: 170, y: 35 }, { type: TYPING, text: call Ana }, { type: CLICK, x: 380, y: 35 }, { type: DONE }]\n`,
    );
    env = await createBrowserEnvironment({ blobs: new BlobStore({ dir: join(dir, "blobs") }) });
  });
  afterAll(async () => {
    await env?.close();
    await new Promise((r) => app?.server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("resets the app, runs the plan and passes the user's checker; a wrong note fails it", async () => {
    const [task] = loadBrowserTaskFile(join(dir, "tasks.yaml"));
    expect(task.evaluator).toEqual({ module: join(dir, "check-notes.mjs"), export: "check" });
    app.state.notes.push("left over from before");
    const obs = await env.reset(task);
    expect(app.state).toEqual({ notes: ["buy milk"] });
    expect(obs.text).toContain("URL: /");
    expect(env.capabilities.groundTruth).toBe(true);
    for (const a of task.plan!.slice(0, 3)) await env.step(a);
    expect(await env.evaluate()).toEqual({ score: 1, detail: "notes: buy milk, call Ana" });

    await env.reset(task);
    await env.step(task.plan![0]);
    await env.step({ type: "TYPING", text: "call Anna" });
    await env.step(task.plan![2]);
    expect((await env.evaluate()).score).toBe(0);
  });

  it("snapshots and restores the user's server state through its endpoint, and the page's sessionStorage and IndexedDB", async () => {
    const [task] = loadBrowserTaskFile(join(dir, "tasks.yaml"));
    await env.reset(task);
    for (const a of task.plan!.slice(0, 3)) await env.step(a);
    await env.currentPage.evaluate(clientState("kept"));
    await env.observe();
    const snap = await env.snapshot();
    const hash = env.stateHash();
    const before = (await env.probe()).items;
    await env.currentPage.evaluate(clientState("changed"));
    await env.step(task.plan![0]);
    await env.step({ type: "TYPING", text: "second\n" });
    expect(app.state.notes).toEqual(["buy milk", "call Ana", "second"]);
    await env.restore(snap);
    expect(app.state.notes).toEqual(["buy milk", "call Ana"]);
    expect(env.stateHash()).toBe(hash);
    const after = (await env.probe()).items;
    expect(after["app:notes"]).toBeDefined();
    expect(after["session:draft"]).toBe('"kept"');
    expect(after["idb:notes-cache/drafts"]).toBe(before["idb:notes-cache/drafts"]);
  });

  it("is what a config's env.tasksFile runs instead of the built-in suite", () => {
    expect(browserTasks({ tasksFile: join(dir, "tasks.yaml") }).map((t) => t.id)).toEqual(["notes-add"]);
    expect(browserTasks({}).length).toBeGreaterThanOrEqual(30);
  });

  it("says what is wrong with a bad task file or checker, in one ConfigError", async () => {
    writeFileSync(
      join(dir, "bad.yaml"),
      `tasks:\n  - id: x\n    instruction: y\n    url: not-a-url\n    checker: ./c.mjs\n`,
    );
    expect(() => loadBrowserTaskFile(join(dir, "bad.yaml"))).toThrow(/bad\.yaml: tasks\.0\.url/);
    expect(() => loadBrowserTaskFile(join(dir, "missing.yaml"))).toThrow(ConfigError);
    writeFileSync(
      join(dir, "wrong-export.yaml"),
      `tasks:\n  - id: x\n    instruction: y\n    url: ${url}/\n    checker: ./check-notes.mjs\n    export: notAFunction\n`,
    );
    const [task] = loadBrowserTaskFile(join(dir, "wrong-export.yaml"));
    await env.reset(task);
    await expect(env.evaluate()).rejects.toThrow(/no function export "notAFunction"/);
  });
});
