/**
 * The one way retrace writes a whole file (issue 31): the text is redacted (packages/core/src/secrets.ts), written
 * to a temporary file with a unique name beside the target (two processes never share one), then
 * renamed over it; on any failure the temporary file is removed, and a full disk (ENOSPC, EDQUOT)
 * or a read-only file system becomes one line naming the file instead of a bare errno.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { EnvironmentError } from "../errors.ts";
import { redactText } from "../secrets.ts";

/** A unique temporary name beside `file` (pid and random bytes: concurrent writers never collide). */
export function tempNameFor(file: string): string {
  return `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
}

/** A write failure as one line naming the file; ENOSPC and EROFS say what to do. */
export function writeFailure(file: string, cause: unknown): Error {
  const code = (cause as NodeJS.ErrnoException)?.code;
  if (code === "ENOSPC" || code === "EDQUOT")
    return new EnvironmentError(
      `cannot write ${file}: the disk is full (${code}); free some space, then run the same command with --resume (nothing already written is lost)`,
      { cause, retryable: false },
    );
  if (code === "EROFS")
    return new EnvironmentError(`cannot write ${file}: the file system is read-only`, { cause, retryable: false });
  if (code === "EACCES" || code === "EPERM")
    return new EnvironmentError(`cannot write ${file}: permission denied`, { cause, retryable: false });
  return cause instanceof Error ? cause : new Error(String(cause));
}

const DISK_FULL_RE = /cannot write (.+?): the disk is full \((ENOSPC|EDQUOT)\)/;

/**
 * The one-line disk-full error behind `err`, if a full disk caused it (an errno ENOSPC/EDQUOT
 * anywhere in its cause chain, or the line of {@link writeFailure} carried on as text, e.g. inside
 * an episode's environment error); undefined otherwise. A full disk ends a run at once (issue 41):
 * retrying episodes on it only adds log lines.
 */
export function diskFullOf(err: unknown): EnvironmentError | undefined {
  for (
    let e: unknown = err, depth = 0;
    e && typeof e === "object" && depth < 8;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as NodeJS.ErrnoException).code;
    const message = String((e as Error).message ?? "");
    const line = DISK_FULL_RE.exec(message);
    if (line)
      return new EnvironmentError(
        `cannot write ${line[1]}: the disk is full (${line[2]}); free some space, then run the same command with --resume (nothing already written is lost)`,
        { cause: err, retryable: false },
      );
    if (code === "ENOSPC" || code === "EDQUOT") {
      const path = (e as NodeJS.ErrnoException).path;
      return new EnvironmentError(
        `${path ? `cannot write ${path}: ` : ""}the disk is full (${code}); free some space, then run the same command with --resume (nothing already written is lost)`,
        { cause: err, retryable: false },
      );
    }
  }
  const text = typeof err === "string" ? err : undefined;
  const line = text ? DISK_FULL_RE.exec(text) : null;
  return line
    ? new EnvironmentError(
        `cannot write ${line[1]}: the disk is full (${line[2]}); free some space, then run the same command with --resume (nothing already written is lost)`,
        { retryable: false },
      )
    : undefined;
}

/** Write `data` to `file` atomically (unique temp file + rename); the temp file never outlives a failure. */
export function writeFileAtomic(file: string, data: Uint8Array | string, options: { fsync?: boolean } = {}): void {
  const tmp = tempNameFor(file);
  try {
    writeFileSync(tmp, data);
    if (options.fsync) {
      const fd = openSync(tmp, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    renameSync(tmp, file);
  } catch (cause) {
    rmSync(tmp, { force: true });
    throw writeFailure(file, cause);
  }
}

/** Write text redacted of every secret (registered keys, key-like strings, URL passwords), atomically. */
export function writeTextAtomic(file: string, text: string): void {
  writeFileAtomic(file, redactText(text));
}
