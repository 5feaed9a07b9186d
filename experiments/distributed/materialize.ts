/**
 * Writing a distributed run's folder from PostgreSQL: `results.jsonl` with the stored lines in
 * expansion order (the bytes a local run writes), `timings.jsonl`, every episode's stored files,
 * and the screenshots those episodes reference, copied from the shared blob store into
 * `<out>/blobs` so the report and the trajectory viewer work as for a local run.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type { PgBlobStore } from "@retrace-cua/stores/postgres/blob-store";
import type { PgRunStore } from "@retrace-cua/stores/postgres/run-store";
import type { ResultLine } from "../runner/results-log.ts";
import { pathInside } from "@retrace-cua/core/store/safe-path";
import { writeFileAtomic } from "@retrace-cua/core/store/write-file";

/** Options of {@link materializeRun} and {@link createMaterializer}. */
export interface MaterializeOptions {
  runId: string;
  store: PgRunStore;
  blobs: PgBlobStore;
  out: string;
  /** The phase's keys; the lines returned are these, in expansion order. */
  keys: readonly string[];
}

const REF = /\b[0-9a-f]{64}\b/g;

/**
 * Writes a run folder episode by episode: `episodes(keys)` copies the stored files and referenced
 * blobs of finished episodes (each once), so the coordinator can fill the folder while the workers
 * run instead of in one serial pass at the end; `finish()` copies what is left and writes
 * `results.jsonl` and `timings.jsonl` (which need every row, in expansion order).
 */
export function createMaterializer(options: MaterializeOptions) {
  const { out, store, runId } = options;
  mkdirSync(out, { recursive: true });
  const keys = new Set(options.keys);
  const local = new BlobStore({ dir: join(out, "blobs") });
  // SimDesk state snapshots the episodes went through (ideal recovery annotates forward runs from them).
  const states = local.sibling("simdesk-states", ".json");
  const root = resolve(out);
  const written = new Set<string>();
  const episode = async (key: string) => {
    for (const f of await store.files(runId, key)) {
      // Every part of a stored path is a plain name (the path guard of every run-folder write).
      const target = pathInside(root, f.path.split("/"), `stored file path of ${key}`);
      mkdirSync(dirname(target), { recursive: true });
      const bytes = f.bytes ?? (await options.blobs.get(f.ref));
      writeFileSync(target, bytes);
      if (f.path.endsWith("trajectory.json") || f.path.endsWith("history.json")) {
        for (const ref of new Set(bytes.toString("utf8").match(REF) ?? [])) {
          if ((await local.has(ref)) || (await states.has(ref))) continue;
          if (!(await options.blobs.has(ref))) continue;
          const blob = await options.blobs.get(ref);
          (blob[0] === 0x7b /* "{": a JSON state snapshot, not an image */ ? states : local).putSync(blob);
        }
      }
    }
    written.add(key);
  };
  return {
    /** Copy the files of these finished episodes (those of this phase not copied yet). */
    async episodes(finished: Iterable<string>): Promise<number> {
      let n = 0;
      for (const key of finished) {
        if (!keys.has(key) || written.has(key)) continue;
        await episode(key);
        n++;
      }
      return n;
    },
    /** Copy the rest, write results.jsonl and timings.jsonl, and return the phase's lines. */
    async finish(): Promise<ResultLine[]> {
      const rows = await store.results(runId);
      await this.episodes(rows.map((r) => r.key));
      atomicWrite(join(out, "results.jsonl"), rows.map((r) => r.line + "\n").join(""));
      writeFileSync(join(out, "timings.jsonl"), rows.map((r) => r.timing + "\n").join(""));
      return rows.filter((r) => keys.has(r.key)).map((r) => JSON.parse(r.line) as ResultLine);
    },
  };
}

/** Write the run folder in one pass and return the phase's result lines. */
export async function materializeRun(options: MaterializeOptions): Promise<ResultLine[]> {
  return createMaterializer(options).finish();
}

function atomicWrite(file: string, text: string): void {
  writeFileAtomic(file, text, { fsync: true });
}
