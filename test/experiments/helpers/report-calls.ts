/** Shared by the report-calls-*.int.test.ts files: a temporary run folder and readers for a run's output. */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { EpisodeRecord } from "../../../experiments/runner/episode.ts";
import type { ResultLine } from "../../../experiments/runner/results-log.ts";
import { callStepIndex } from "../../../experiments/report/viewer-calls.ts";

/** A fresh temporary folder for a test file's runs, removed after the file's tests. */
export function tempRunDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "retrace-report-calls-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const TASKS = ["files-rename-draft", "files-copy-readme"];

export const linesOf = (out: string): ResultLine[] =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);
/** Each call's measured latency of an episode, from timings.jsonl (records leave measured times out). */
export const callMsOf = (out: string, key: string): Array<number | null> =>
  readFileSync(join(out, "timings.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((t) => JSON.parse(t))
    .filter((t) => t.key === key)
    .at(-1)?.callMs ?? [];
export const recordOf = (out: string, l: ResultLine): EpisodeRecord =>
  JSON.parse(readFileSync(join(out, l.condition, l.task, String(l.seed), "trajectory.json"), "utf8")) as EpisodeRecord;
/** Where each call of an episode is shown: "seq:phase" per call, in the log's order. */
export const placement = (rec: EpisodeRecord) =>
  (rec.calls ?? []).map((c) => `${rec.trajectory.steps[callStepIndex(rec.trajectory.steps, c)]?.seq}:${c.phase}`);
