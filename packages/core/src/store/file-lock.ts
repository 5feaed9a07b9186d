/**
 * A short exclusive lock between processes on one folder's operation (issue 31: two processes
 * packing one blob folder at once, as two concurrent `demo --resume`s did, read files the other
 * had just moved, raw ENOENT, and the later pack could drop blobs the earlier one had packed).
 * `<file>` is created exclusively holding the pid; a waiter polls until it is gone, and a lock whose
 * process is gone (a killed run) is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { EnvironmentError } from "../errors.ts";

/** Whether process `pid` exists (EPERM: it exists under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Run `fn` holding the lock file `file` (waiting up to `waitMs` for another process to release it). */
export function withFileLock<T>(file: string, fn: () => T, waitMs = 120_000): T {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(file, "wx");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return fn();
      } finally {
        rmSync(file, { force: true });
      }
    }
    let pid = NaN;
    try {
      pid = Number(readFileSync(file, "utf8").trim());
    } catch {
      continue; // released meanwhile
    }
    // A lock whose holder died is taken over; one just created (pid not written yet) is waited for.
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid)) {
      rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new EnvironmentError(
        `${file} is held by another process (pid ${Number.isInteger(pid) && pid > 0 ? pid : "unknown"}) for over ${Math.round(waitMs / 1000)} s; if no retrace process is running, delete it`,
        { retryable: false },
      );
    Atomics.wait(sleeper, 0, 0, 50);
  }
}
