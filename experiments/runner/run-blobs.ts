/**
 * Where a run folder's screenshots are: `<run>/blobs`, or the folder its manifest names (`blobs`,
 * relative to the run; the demo's runs share `<demo>/blobs`), or the parent's `blobs/` for run
 * folders written before the manifest recorded it.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The blob folder of the run in `runDir` (the default `<run>/blobs` when none exists yet). */
export function runBlobsDir(runDir: string): string {
  const manifest = join(runDir, "manifest.json");
  if (existsSync(manifest)) {
    try {
      const rel = (JSON.parse(readFileSync(manifest, "utf8")) as { blobs?: unknown }).blobs;
      if (typeof rel === "string" && rel) return resolve(runDir, rel);
    } catch {
      // an unreadable manifest is reported by whoever reads it for its content
    }
  }
  const own = join(runDir, "blobs");
  if (existsSync(own)) return own;
  const parent = join(dirname(resolve(runDir)), "blobs");
  return existsSync(parent) ? parent : own;
}
