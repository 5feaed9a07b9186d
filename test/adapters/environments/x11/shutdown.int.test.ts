/**
 * A retrace process running an X11 desktop episode (the real CLI, `run --env x11`) that gets
 * SIGTERM or SIGINT ends its desktop gracefully: Xvfb gets SIGTERM before any SIGKILL, so its
 * socket /tmp/.X11-unix/X<n> and lock /tmp/.X<n>-lock are gone afterwards, and so is every
 * process the run started (Xvfb, the bus, the window manager, the app).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { X11_TOOLS, systemTools } from "../../../helpers/system-tools.ts";

const tools = systemTools("the X11 shutdown tests", X11_TOOLS);
const ROOT = resolve(import.meta.dirname, "../../../..");
const dir = mkdtempSync(join(tmpdir(), "retrace-x11-shutdown-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** pid -> parent pid of every process. */
function parents(): Map<number, number> {
  const m = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      m.set(Number(d), Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1].split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  return m;
}

/** Every process descending from `root`. */
function descendants(root: number): number[] {
  const pp = parents();
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, parent] of pp) if (parent === p) (out.push(c), walk(c));
  };
  walk(root);
  return out;
}

const comm = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
};
/** Running: a zombie has finished. */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
};

/** The display an Xvfb process serves: the /tmp/.X11-unix socket among its open files. */
function displayOf(xvfb: number): number | undefined {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${xvfb}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${xvfb}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
    const cols = line.trim().split(/\s+/);
    const m = /^\/tmp\/\.X11-unix\/X(\d+)$/.exec(cols[7] ?? "");
    if (m && inodes.has(cols[6])) return Number(m[1]);
  }
  return undefined;
}

const started: Array<{ kill(s: NodeJS.Signals): boolean }> = [];
afterAll(() => void started.forEach((p) => p.kill("SIGTERM")));

async function runAndStop(signal: "SIGTERM" | "SIGINT") {
  const cfg = join(dir, "e2e.json");
  writeFileSync(
    cfg,
    JSON.stringify({
      kind: "end-to-end",
      name: "x11-shutdown",
      env: { kind: "x11", tasks: ["mousepad-append-line"] },
      seeds: [5, 6, 7],
      options: { maxForwardSteps: 12, freezeWindow: 0, restoration: "replay" },
      maxRecoveryIterations: [3],
      pairs: [{ name: "sloppy", forward: { kind: "sim", profile: "sloppy" } }],
    }),
  );
  const out = join(dir, `run-${signal}`);
  const p = spawn(
    process.execPath,
    [join(ROOT, "experiments/bin/retrace.mjs"), "run", cfg, "--out", out, "--workers", "1", "--quiet"],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
  started.push(p);
  let stderr = "";
  p.stderr!.on("data", (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => p.on("exit", (c) => r(c)));
  // Wait for the episode's app: the desktop is fully up (Xvfb, bus, window manager, mousepad).
  const deadline = Date.now() + 90_000;
  let tree: number[] = [];
  while (Date.now() < deadline && p.exitCode === null) {
    tree = descendants(p.pid!);
    if (tree.some((c) => comm(c) === "mousepad")) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const xvfb = tree.find((c) => comm(c) === "Xvfb");
  expect(xvfb, `no Xvfb under the run; stderr: ${stderr}`).toBeDefined();
  const display = displayOf(xvfb!);
  expect(display).toBeDefined();
  const socket = `/tmp/.X11-unix/X${display}`;
  const lock = `/tmp/.X${display}-lock`;
  expect(existsSync(socket)).toBe(true);
  tree = descendants(p.pid!);
  p.kill(signal);
  const code = await exited;
  await new Promise((r) => setTimeout(r, 300));
  return {
    code,
    socket,
    lock,
    names: tree.map(comm),
    left: tree.filter(alive).map((pid) => `${pid} ${comm(pid)}`),
    stderr,
  };
}

describe.runIf(tools.run)("an X11 desktop run ended by a signal", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`leaves no X socket, lock file or process after ${signal}`, async () => {
      tools.assert();
      const r = await runAndStop(signal);
      expect(r.names).toEqual(expect.arrayContaining(["Xvfb", "mousepad"]));
      expect(r.code).toBe(signal === "SIGTERM" ? 143 : 130);
      expect({ socket: existsSync(r.socket), lock: existsSync(r.lock), left: r.left }).toEqual({
        socket: false,
        lock: false,
        left: [],
      });
    }, 150_000);
  }
});
