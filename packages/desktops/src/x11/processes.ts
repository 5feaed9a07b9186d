/**
 * Tracked child processes for real desktops. Every long-lived process (X server, D-Bus, window
 * manager, apps) is started in its own process group and recorded by PID, so closing the desktop
 * (or the host process ending: exit, an error, SIGINT, SIGTERM, SIGHUP) ends it and everything it
 * spawned. Ending is graceful everywhere: SIGTERM first, SIGKILL only for what is still running
 * after a grace period, so Xvfb removes its socket (/tmp/.X11-unix/X<n>) and lock (/tmp/.X<n>-lock).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { EnvironmentError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";

/** Run-as identity for child processes. */
export interface RunAs {
  uid: number;
  gid: number;
}

/** Options of {@link ProcessGroup.start}. */
export interface StartOptions {
  /** A short name for logs and errors ("xvfb", "mousepad"). */
  name: string;
  argv: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this user instead of the current one. */
  runAs?: RunAs;
  /** Append stdout and stderr here instead of discarding them. */
  logFile?: string;
  /** Extra pipe fds (e.g. Xvfb's `-displayfd 3`). @default 0 */
  extraPipes?: number;
}

/** A process started by a {@link ProcessGroup}. */
export interface TrackedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
}

const LIVE = new Set<ProcessGroup>();
const CLEANUPS = new Set<() => Promise<void>>();
let hooksInstalled = false;

/**
 * Register async cleanup (e.g. removing containers) to run on SIGINT/SIGTERM/SIGHUP before the
 * process exits (capped at 10 s). Returns a function that unregisters it.
 */
export function onShutdown(cleanup: () => Promise<void>): () => void {
  installHooks();
  CLEANUPS.add(cleanup);
  return () => CLEANUPS.delete(cleanup);
}

/** How long processes get between SIGTERM and SIGKILL when the host process ends, in ms. */
export const SHUTDOWN_GRACE_MS = 3000;

/** Still running (a zombie waiting to be reaped has finished: Node cannot reap during a synchronous wait). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ").pop()?.[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * End every live group synchronously (exit handlers cannot await): SIGTERM to every group, a wait
 * of up to `graceMs` for their leaders to finish, then SIGKILL to every group (members that
 * outlive their leader, and leaders that ignored SIGTERM).
 */
function endAllSync(graceMs = SHUTDOWN_GRACE_MS): void {
  const pids = [...LIVE].flatMap((g) => g.pids());
  LIVE.clear();
  if (!pids.length) return;
  for (const pid of pids) signalGroup(pid, "SIGTERM");
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + graceMs;
  while (pids.some(running) && Date.now() < deadline) Atomics.wait(nap, 0, 0, 20);
  for (const pid of pids) signalGroup(pid, "SIGKILL");
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", () => endAllSync());
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      endAllSync();
      const pending = [...CLEANUPS].map((c) => c().catch(() => undefined));
      const cap = new Promise((r) => setTimeout(r, 10_000).unref());
      // Keep the default meaning of the signal once our children are gone, unless someone
      // else (the CLI) also listens and decides.
      void Promise.race([Promise.all(pending), cap]).then(() => {
        if (process.listenerCount(signal) <= 1)
          process.exit(128 + (signal === "SIGINT" ? 2 : signal === "SIGTERM" ? 15 : 1));
      });
    });
  }
}

/** A set of processes owned by one desktop. */
export class ProcessGroup {
  private readonly procs = new Map<number, TrackedProcess>();

  constructor(readonly label: string) {
    installHooks();
    LIVE.add(this);
  }

  /** Start a process in its own process group and track it. */
  start(options: StartOptions): TrackedProcess {
    const out = options.logFile ? openSync(options.logFile, "a") : "ignore";
    const extra = Array.from({ length: options.extraPipes ?? 0 }, () => "pipe" as const);
    let child: ChildProcess;
    try {
      child = spawn(options.argv[0], options.argv.slice(1), {
        env: options.env,
        cwd: options.cwd,
        uid: options.runAs?.uid,
        gid: options.runAs?.gid,
        detached: true,
        stdio: ["ignore", out, out, ...extra],
      });
    } finally {
      if (typeof out === "number") closeSync(out);
    }
    if (child.pid === undefined) {
      throw new EnvironmentError(
        `${this.label}: could not start ${options.name} (${options.argv[0]}): is it installed?`,
        { retryable: false },
      );
    }
    const pid = child.pid;
    const exited = new Promise<number | string>((resolve) => {
      child.once("exit", (code, signal) => {
        this.procs.delete(pid);
        resolve(code ?? signal ?? "unknown");
      });
      child.once("error", (err) => {
        this.procs.delete(pid);
        logger.warn({ err, name: options.name }, "desktop process error");
        resolve("error");
      });
    });
    const tracked: TrackedProcess = { name: options.name, pid, child, exited };
    this.procs.set(pid, tracked);
    return tracked;
  }

  /** PIDs of processes still running. */
  pids(): number[] {
    return [...this.procs.keys()];
  }

  /** Whether this tracked process is still running. */
  alive(p: TrackedProcess): boolean {
    return this.procs.has(p.pid);
  }

  /** End one process and its group: SIGTERM, then SIGKILL after `graceMs`. */
  async stop(p: TrackedProcess, graceMs = 1500): Promise<void> {
    if (!this.procs.has(p.pid)) return;
    signalGroup(p.pid, "SIGTERM");
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), graceMs).unref());
    if ((await Promise.race([p.exited, timer])) === "timeout") {
      signalGroup(p.pid, "SIGKILL");
      await p.exited;
    }
    // Members of the group that outlive the leader (activated D-Bus services) go too.
    signalGroup(p.pid, "SIGKILL");
  }

  /** End processes in reverse start order. */
  async stopAll(graceMs = 1500): Promise<void> {
    const all = [...this.procs.values()].reverse();
    for (const p of all) await this.stop(p, graceMs);
  }

  /** Stop all processes and forget this group. */
  async dispose(): Promise<void> {
    await this.stopAll();
    LIVE.delete(this);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** Run a command to completion, collecting stdout (binary) and stderr. */
export function runCommand(
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; runAs?: RunAs; timeoutMs: number; input?: Buffer },
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: options.env,
      cwd: options.cwd,
      uid: options.runAs?.uid,
      gid: options.runAs?.gid,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(new EnvironmentError(`could not run ${argv[0]}: ${e.message}`, { cause: e, retryable: false }));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out), stderr: err });
    });
    // a child that exits before reading all its input (a refusal) must not end us with EPIPE
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input);
  });
}
