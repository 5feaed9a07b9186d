/**
 * Read a gzipped file whole, or fail with one line naming it (issue 41: a truncated
 * `trajectories.jsonl.gz` failed with zlib's "unexpected end of file", naming no file).
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { DataError } from "../errors.ts";

/** The gunzipped bytes of `file`; a cut-off or non-gzip file is a DataError: `FILE is damaged (...); REMEDY`. */
export function gunzipFile(file: string, remedy: string): Buffer {
  const bytes = readFileSync(file);
  try {
    return gunzipSync(bytes);
  } catch (cause) {
    throw new DataError(`${file} is damaged (${describeGzipError(cause)}); ${remedy}`, { cause });
  }
}

/** What went wrong gunzipping, in words. */
export function describeGzipError(cause: unknown): string {
  const e = cause as NodeJS.ErrnoException;
  if (e.code === "Z_BUF_ERROR" || /unexpected end/i.test(e.message)) return "cut off: unexpected end of the gzip data";
  return "not gzip data";
}
