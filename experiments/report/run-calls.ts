/**
 * A run's side files about model calls that the episode records leave out: ideal recovery's annotation calls
 * (`annotation-calls.json`) and each call's measured latency (`timings.jsonl`). The viewer joins them to its episodes.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallRecord } from "../agents/call-log.ts";
import { ANNOTATION_CALLS_FILE } from "../ideal/annotation-calls.ts";
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { realInside } from "@retrace-cua/core/store/safe-path";
import { inside } from "./data.ts";

/**
 * Ideal recovery's annotation calls by forward-run key (`annotation-calls.json`, written with
 * plan.json): the detector and selector calls that judged each failed forward run, each on the
 * step it judged. Empty when the run has none; a malformed file reads as none.
 */
export function annotationCalls(runDir: string): Map<string, CallRecord[]> {
  const file = join(runDir, ANNOTATION_CALLS_FILE);
  if (!existsSync(file)) return new Map();
  const data = readJsonFile<unknown>(inside(runDir, file), {
    what: ANNOTATION_CALLS_FILE,
    prefix: "report: ",
    hint: "it is written by ideal recovery's annotation phase; delete it to show no annotation calls",
  });
  if (!data || typeof data !== "object" || Array.isArray(data)) return new Map();
  return new Map(
    Object.entries(data as Record<string, unknown>).filter((e): e is [string, CallRecord[]] => Array.isArray(e[1])),
  );
}

/**
 * The measured latency of each model call by episode key (`timings.jsonl`, `callMs`, in the
 * order of the record's call log): records leave measured times out so that same-seed runs are
 * byte-identical. Empty when the run has no timings; unreadable lines are skipped.
 */
export function callLatencies(runDir: string): Map<string, Array<number | null>> {
  const out = new Map<string, Array<number | null>>();
  const file = join(runDir, "timings.jsonl");
  if (!existsSync(file) || !realInside(runDir, file)) return out;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const t = JSON.parse(line) as { key?: unknown; callMs?: unknown };
      if (typeof t.key === "string" && Array.isArray(t.callMs))
        out.set(
          t.key,
          t.callMs.map((v) => (typeof v === "number" && Number.isFinite(v) ? v : null)),
        );
    } catch {
      // a torn last line of a killed run
    }
  }
  return out;
}
