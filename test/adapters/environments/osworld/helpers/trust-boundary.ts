/**
 * Shared by the host-trust-boundary-*.int.test.ts files: a root-owned folder outside the desktop
 * user's home, a real Xvfb desktop and the OSWorld control server on it, and the hostile caller's
 * requests. The bindings are live (ES modules): read them inside tests and hooks.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { BlobStore } from "../../../../../packages/core/src/blob-store.ts";
import { desktopTask } from "../../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import {
  startOsworldControlServer,
  type OsworldControlServer,
} from "../../../../../packages/desktops/src/osworld/control-server.ts";
import { createX11Desktop } from "../../../../../packages/desktops/src/x11/create.ts";
import type { DesktopEnvironment } from "../../../../../packages/desktops/src/x11/desktop-environment.ts";
import { X11_TOOLS, systemTools } from "../../../../helpers/system-tools.ts";

export const tools = systemTools("the host control server's trust-boundary tests", [
  ...X11_TOOLS,
  "mkfifo",
  "truncate",
]);
export const asRoot = process.getuid?.() === 0;
export const hasGcc = (() => {
  try {
    execFileSync("gcc", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

// outside the home, owned by root: what an escape would reach
export const outside = mkdtempSync("/tmp/retrace-trust-");
export const secret = join(outside, "secret.txt");
export const victim = join(outside, "victim.txt");
export const outsideDir = join(outside, "private");
export const marker = join(outside, "marks", "module-ran");
export let env: DesktopEnvironment;
export let server: OsworldControlServer;
export let home: string;
export let cua: { uid: number; gid: number };
export let files: Server;
export let filesUrl: string;

export const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
export const form = (path: string, fields: Record<string, string>) =>
  fetch(`${server.url}${path}`, { method: "POST", body: new URLSearchParams(fields) });
export const upload = (path: string, data: Buffer | string, base = server.url) => {
  const fd = new FormData();
  fd.append("file_path", path);
  fd.append("file_data", new Blob([Buffer.from(data)]), path.split("/").pop() ?? "f");
  return fetch(`${base}/setup/upload`, { method: "POST", body: fd });
};
/** What the desktop user could do itself: a link in its own home, owned by it. */
export const plantLink = (rel: string, target: string) => {
  const p = join(home, rel);
  rmSync(p, { force: true, recursive: true });
  symlinkSync(target, p);
  lchownSync(p, cua.uid, cua.gid);
};

/** Starts the desktop and the control server before the suite's tests and tears them down after. */
export function trustBoundaryHooks(): void {
  beforeAll(async () => {
    tools.assert();
    cua = {
      uid: Number(execFileSync("id", ["-u", "cua"]).toString()),
      gid: Number(execFileSync("id", ["-g", "cua"]).toString()),
    };
    writeFileSync(secret, "root-only secret\n", { mode: 0o600 });
    writeFileSync(victim, "root-owned original\n", { mode: 0o644 });
    mkdirSync(outsideDir);
    writeFileSync(join(outsideDir, "outside-only.txt"), "x");
    mkdirSync(join(outside, "marks"), { mode: 0o777 });
    chmodSync(join(outside, "marks"), 0o777);
    chmodSync(outside, 0o755);
    env = createX11Desktop({ blobs: new BlobStore({ dir: join(outside, "blobs") }) });
    await env.reset(desktopTask("mousepad-append-line")!);
    // The test's file server is on 127.0.0.1: loopback downloads are opted into (refused by default,
    // download-guard.int.test.ts).
    server = await startOsworldControlServer({ env, downloads: { allowLoopback: true } });
    home = env.desktop.homeDir;
    files = createServer((req, res) => res.end("downloaded bytes\n"));
    await new Promise<void>((r) => files.listen(0, "127.0.0.1", () => r()));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/f.txt`;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await env?.close();
    await new Promise((r) => (files ? files.close(r) : r(undefined)));
    rmSync(outside, { recursive: true, force: true });
  });
}
