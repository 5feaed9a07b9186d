/**
 * Output folders, checked before anything is written. Node 20's `mkdir -p` hangs on some virtual
 * file systems (`/proc/x`) and reports a bad path as a raw EEXIST / ENOTDIR / EPERM; this module
 * walks the path itself and turns every problem into one ConfigError line that names the flag.
 */
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { ConfigError } from "../errors.ts";

/** Kernel file systems that are never a place for results. */
const VIRTUAL_ROOTS = ["/proc", "/sys", "/dev"];

/** Options for {@link checkOutDir} and {@link prepareOutDir}. */
export interface OutDirOptions {
  /** The flag or field named in errors. @default "--out" */
  flag?: string;
}

function isDir(path: string): boolean | undefined {
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw err;
  }
}

/**
 * Check that `dir` is, or can become, a writable folder, without creating anything. Returns the
 * missing path components (outermost first) that {@link prepareOutDir} would create.
 */
export function checkOutDir(dir: string, options: OutDirOptions = {}): string[] {
  const flag = options.flag ?? "--out";
  if (!dir || !dir.trim()) throw new ConfigError(`${flag}: give a folder path (got an empty string)`, { field: flag });
  if (dir.includes("\0"))
    throw new ConfigError(`${flag}: the path contains a NUL byte; give a plain folder path`, { field: flag });
  const abs = resolve(dir);
  const virtual = VIRTUAL_ROOTS.find((r) => abs === r || abs.startsWith(r + sep));
  if (virtual)
    throw new ConfigError(
      `${flag}: ${dir} is inside ${virtual}, a kernel file system; choose a folder on disk, e.g. runs/my-run`,
      { field: flag },
    );
  const missing: string[] = [];
  let cur = abs;
  for (;;) {
    let state: boolean | undefined;
    try {
      state = isDir(cur);
    } catch (err) {
      throw new ConfigError(
        `${flag}: cannot inspect ${cur} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); choose another folder`,
        { field: flag },
      );
    }
    if (state === false) {
      throw new ConfigError(
        cur === abs
          ? `${flag}: ${dir} is a file, not a folder; choose a folder path`
          : `${flag}: cannot create ${dir}: ${cur} is a file, not a folder; choose another path`,
        { field: flag },
      );
    }
    if (state === true) break;
    missing.unshift(cur);
    const up = dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  try {
    accessSync(cur, constants.W_OK | constants.X_OK);
  } catch {
    throw new ConfigError(`${flag}: cannot write in ${cur} (permission denied); choose a folder you can write to`, {
      field: flag,
    });
  }
  return missing;
}

/** Check `dir` (see {@link checkOutDir}) and create it, one component at a time. Returns its absolute path. */
export function prepareOutDir(dir: string, options: OutDirOptions = {}): string {
  const flag = options.flag ?? "--out";
  for (const part of checkOutDir(dir, options)) {
    try {
      mkdirSync(part);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST" && isDir(part)) continue;
      const why =
        code === "EROFS"
          ? "the file system is read-only"
          : code === "EACCES" || code === "EPERM"
            ? "permission denied"
            : code === "ENOSPC"
              ? "the disk is full"
              : (code ?? (err as Error).message);
      throw new ConfigError(`${flag}: cannot create ${part} (${why}); choose another folder`, { field: flag });
    }
  }
  return resolve(dir);
}
