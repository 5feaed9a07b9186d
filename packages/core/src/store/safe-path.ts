/**
 * One path guard for every file the runner and the report read or write under a run folder.
 * Names that come from results, tasks and configs (condition ids, task ids, seeds) are ids, never
 * paths: {@link idProblem} refuses anything a file system would read as more than one plain
 * folder name (`..`, `/`, `\`, NUL, control characters, more than 255 bytes), and
 * {@link pathInside} joins checked ids under a root and proves the result stays inside it, also
 * through symbolic links when the path exists ({@link realInside}).
 */
import { existsSync, realpathSync } from "node:fs";
import { join, relative, resolve, isAbsolute } from "node:path";
import { ConfigError } from "../errors.ts";

/** Longest id in bytes (NAME_MAX of common file systems). */
export const MAX_ID_BYTES = 255;

/** Why `value` cannot be used as one folder or file name, or undefined when it can. */
export function idProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return `expected a string, got ${value === null ? "null" : typeof value}`;
  if (value === "") return "it is empty";
  if (value === "." || value === "..") return `"${value}" names a folder relative to another`;
  if (value.includes("/") || value.includes("\\")) return "it contains a path separator (/ or \\)";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return "it contains a control character (or NUL)";
  if (Buffer.byteLength(value) > MAX_ID_BYTES) return `it is longer than ${MAX_ID_BYTES} bytes`;
  return undefined;
}

/** Printable form of an untrusted id for an error line (control characters escaped, long ids cut). */
export function showId(value: unknown): string {
  const s = JSON.stringify(typeof value === "string" ? value : String(value));
  return s.length > 80 ? `${s.slice(0, 77)}..."` : s;
}

/**
 * Throw a ConfigError unless `value` is a usable id. `what` names it in the message (e.g.
 * `config.env.tasks.0`, `results.jsonl line 3: condition`).
 */
export function checkId(value: unknown, what: string, field?: string): string {
  const why = idProblem(value);
  if (why)
    throw new ConfigError(
      `${what}: ${showId(value)} is not an id usable as a folder name (${why}); give a plain name without / \\ .. or control characters`,
      { field: field ?? what },
    );
  return value as string;
}

/** True when `path` is `root` or inside it (both resolved, no file system access). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * `root/segment/...` after checking every segment with {@link checkId}; `what` names the source
 * in errors. Throws when the result would leave `root`.
 */
export function pathInside(root: string, segments: readonly string[], what: string): string {
  segments.forEach((s, i) => checkId(s, segments.length > 1 ? `${what} (part ${i + 1} of ${segments.length})` : what));
  const path = join(root, ...segments);
  if (!isInside(root, path)) throw new ConfigError(`${what}: ${showId(segments.join("/"))} leaves ${root}`);
  return path;
}

/**
 * True when the existing `path`, with symbolic links followed, is inside `root` (also resolved):
 * a link in a run folder that points elsewhere is not read. A missing path is judged by its name.
 */
export function realInside(root: string, path: string): boolean {
  if (!isInside(root, path)) return false;
  if (!existsSync(path)) return true;
  try {
    return isInside(realpathSync(root), realpathSync(path));
  } catch {
    return false;
  }
}
