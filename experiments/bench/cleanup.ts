/**
 * Cleanup of what a benchmark starts (worker processes, a private Redis and PostgreSQL cluster,
 * scratch folders) on every way the bench process can end: normal exit, an exception or rejected
 * promise, SIGINT, SIGTERM or SIGHUP (`npm run bench` killed or Ctrl-C). Each cleanup is
 * synchronous (it must run inside the 'exit' handler) and runs once, newest first.
 */
import type { ChildProcess } from "node:child_process";

const cleanups: Array<{ fn: () => void; done: boolean }> = [];
let installed = false;

function runAll(): void {
  for (const c of [...cleanups].reverse()) {
    if (c.done) continue;
    c.done = true;
    try {
      c.fn();
    } catch {
      // best effort: the next cleanup still runs
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", runAll);
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const) {
    process.on(signal, () => {
      process.stderr.write(`bench: ${signal}, stopping the workers and services it started\n`);
      runAll();
      process.exit(code);
    });
  }
  process.on("uncaughtException", (err) => {
    process.stderr.write(`bench: ${(err as Error)?.stack ?? String(err)}\n`);
    runAll();
    process.exit(1);
  });
  process.on("unhandledRejection", (err) => {
    process.stderr.write(`bench: ${(err as Error)?.stack ?? String(err)}\n`);
    runAll();
    process.exit(1);
  });
}

/** Run `fn` when the bench process ends, however it ends. Returns a function that runs it now (once). */
export function onBenchExit(fn: () => void): () => void {
  install();
  const entry = { fn, done: false };
  cleanups.push(entry);
  return () => {
    if (entry.done) return;
    entry.done = true;
    fn();
  };
}

/** Kill `child` (SIGKILL) when the bench ends, unless it has exited by then. */
export function killOnBenchExit(child: ChildProcess): void {
  onBenchExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
}
