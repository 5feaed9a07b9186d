/**
 * Episode records in one file per run instead of one folder per episode (RunSettings.episodeRecords
 * "pack", what the demo uses: ~2,400 folders of one small file each were ~35 MB of disk blocks).
 * While the run goes on, every worker appends a record as one line, in one write to an O_APPEND
 * descriptor, to `<run>/trajectories.jsonl` (a killed run leaves at most a torn last line, which
 * readers skip). When the run completes, {@link compactRecords} rewrites them gzipped, one line per
 * key in results order, to `<run>/trajectories.jsonl.gz` (same config and seed, same bytes).
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { gunzipFile } from "@retrace-cua/core/store/gunzip-file";
import { writeFileAtomic } from "@retrace-cua/core/store/write-file";

/** The log the workers append to while a run goes on. */
export const RECORDS_LOG = "trajectories.jsonl";
/** The compacted pack of a completed run. */
export const RECORDS_PACK = "trajectories.jsonl.gz";

/** Where episode records go: a folder per episode (`trajectory.json`), or one pack per run. */
export type EpisodeRecordsMode = "folders" | "pack";

/** Append one record (JSON text of an object with a `key`, already redacted) to the run's log. */
export function appendRecord(runDir: string, json: string): void {
  const fd = openSync(join(runDir, RECORDS_LOG), "a");
  try {
    writeSync(fd, json + "\n");
  } finally {
    closeSync(fd);
  }
}

function linesOf(runDir: string): string[] {
  const out: string[] = [];
  const pack = join(runDir, RECORDS_PACK);
  if (existsSync(pack))
    out.push(
      ...gunzipFile(pack, "restore it from a copy, or re-run the config into a new folder (--out)")
        .toString("utf8")
        .split("\n"),
    );
  const log = join(runDir, RECORDS_LOG);
  if (existsSync(log)) out.push(...readFileSync(log, "utf8").split("\n"));
  return out;
}

/** The run's packed records by key (the last one per key wins), as JSON text; undefined when the run keeps none. */
export function readRecordTexts(runDir: string): Map<string, string> | undefined {
  if (!existsSync(join(runDir, RECORDS_PACK)) && !existsSync(join(runDir, RECORDS_LOG))) return undefined;
  const byKey = new Map<string, string>();
  for (const line of linesOf(runDir)) {
    if (!line.trim()) continue;
    let key: unknown;
    try {
      key = (JSON.parse(line) as { key?: unknown }).key;
    } catch {
      continue; // a torn last line of a killed run
    }
    if (typeof key === "string") byKey.set(key, line);
  }
  return byKey;
}

/** The run's packed records by key, parsed; undefined when the run keeps none. */
export function readRecords<T>(runDir: string): Map<string, T> | undefined {
  const texts = readRecordTexts(runDir);
  return texts && new Map([...texts].map(([k, v]) => [k, JSON.parse(v) as T]));
}

/**
 * Rewrite the run's records into the gzipped pack, ordered by `order` (result keys; others after, sorted), and drop the
 * log.
 */
export function compactRecords(runDir: string, order: readonly string[]): void {
  const texts = readRecordTexts(runDir);
  if (!texts) return;
  const rank = new Map(order.map((k, i) => [k, i]));
  const keys = [...texts.keys()].sort(
    (a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || (a < b ? -1 : a > b ? 1 : 0),
  );
  writeFileAtomic(join(runDir, RECORDS_PACK), gzipSync(keys.map((k) => texts.get(k) + "\n").join(""), { level: 9 }));
  rmSync(join(runDir, RECORDS_LOG), { force: true });
}
