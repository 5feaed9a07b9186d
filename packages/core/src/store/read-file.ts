/**
 * Reading the files a user points the CLI at (configs, run folders' JSON files) so that every
 * problem is one ConfigError line naming the file and what is wrong with it: not a regular file
 * (a FIFO would block forever, `/dev/zero` never ends), too big, unreadable, or not valid JSON.
 * A leading byte-order mark is dropped, as Node's `require()` and every JSON/YAML tool do.
 */
import { readFileSync, statSync, type Stats } from "node:fs";
import { ConfigError } from "../errors.ts";

/** Options of {@link readTextFile} and {@link readJsonFile}. */
export interface ReadFileOptions {
  /** What the file is, for messages ("config", "manifest.json"). @default "file" */
  what?: string;
  /** Refuse files larger than this. @default 64 MiB */
  maxBytes?: number;
  /** Prefix of every message (e.g. "report: "). @default "" */
  prefix?: string;
  /** Added to a "not valid JSON" message: what the file should be. */
  hint?: string;
}

const DEFAULT_MAX = 64 * 1024 * 1024;

/** "a FIFO (named pipe)", "a character device", ... for a non-regular file. */
export function fileKind(st: Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/** Read a regular text file (BOM dropped); a ConfigError naming the file otherwise. */
export function readTextFile(file: string, options: ReadFileOptions = {}): string {
  const what = options.what ?? "file";
  const prefix = options.prefix ?? "";
  const max = options.maxBytes ?? DEFAULT_MAX;
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile())
      throw new ConfigError(`${prefix}cannot read ${what} ${file}: it is ${fileKind(st)}, not a regular file`);
    if (st.size > max)
      throw new ConfigError(
        `${prefix}cannot read ${what} ${file}: it is ${st.size} bytes, more than the ${max} a ${what} may have`,
      );
    text = readFileSync(file, "utf8");
  } catch (cause) {
    if (cause instanceof ConfigError) throw cause;
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EACCES" || code === "EPERM"
          ? "permission denied"
          : code === "ENOTDIR"
            ? "a part of the path is a file, not a folder"
            : code === "EISDIR"
              ? "it is a folder"
              : (code ?? (cause as Error).message);
    throw new ConfigError(`${prefix}cannot read ${what} ${file}: ${why}`, { cause });
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Read and parse a JSON file; a ConfigError naming the file and the parse error otherwise. */
export function readJsonFile<T = unknown>(file: string, options: ReadFileOptions = {}): T {
  const text = readTextFile(file, options);
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    const detail = text.trim() === "" ? "it is empty" : shortJsonError(cause);
    throw new ConfigError(
      `${options.prefix ?? ""}${file} is not valid JSON (${detail})${options.hint ? `; ${options.hint}` : ""}`,
      { cause },
    );
  }
}

/** V8's JSON error without its echo of the input (which can be long or binary). */
function shortJsonError(err: unknown): string {
  const m = (err as Error).message ?? String(err);
  const pos = /position (\d+)/.exec(m);
  if (/Unexpected end of JSON input/.test(m)) return "it ends early; was it cut off?";
  return pos ? `unexpected character at byte ${pos[1]}` : "a syntax error";
}
