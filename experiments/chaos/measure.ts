/**
 * The figures of a chaos run, read back from what the run wrote (results.jsonl, summary.json,
 * timings.jsonl, every episode's trajectory.json) plus the injectors' counters: episodes with a
 * recorded outcome, episodes that never ended, environment-error episodes and whether they stayed
 * out of the success rates, detector failures that nevertheless started a recovery, and files that
 * hold the API key.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { Trajectory } from "@retrace-cua/core/trajectory";
import type { Manifest } from "../runner/experiment.ts";
import type { ResultLine } from "../runner/results-log.ts";
import type { ExperimentSummary } from "../runner/summary.ts";

/** What `retrace chaos` reports (also written to `<out>/chaos.json`). */
export interface ChaosFigures {
  episodesExpected: number;
  /** Episodes with a line in results.jsonl (status ok or env-error). */
  episodesRecorded: number;
  /** Episodes that never got a line: hung or lost. Target 0. */
  episodesHung: number;
  /** Episodes whose environment failed on every try (kept out of success rates). */
  envErrorEpisodes: number;
  /** Episodes that went through after at least one environment failure. */
  episodesRetried: number;
  /** Success-rate denominators summed over conditions (must equal the ok episodes). */
  successDenominator: number;
  okEpisodes: number;
  /** True when the env-error episodes are outside every success rate. */
  envErrorsExcluded: boolean;
  successes: number;
  detectorCalls: number;
  /**
   * Detector calls that failed (model fault, unusable reply, timeout) and fell back to "no
   * detection": in the recorded trajectories plus in tries thrown away after an environment error
   * (the lines' `failedTries`). Equals the "detector failed" warnings the run logged.
   */
  detectorFailures: number;
  /** Of `detectorFailures`, those in tries thrown away after an environment error. */
  detectorFailuresInFailedTries: number;
  /** Of those, how many still started a recovery. Target 0 (fail-safe). */
  detectorFailuresThatTriggeredRecovery: number;
  recoveries: number;
  /** Files under the output folder (and the cache folder) that contain the API key. Target 0. */
  filesWithKey: string[];
  filesScanned: number;
  /** Longest episode (all tries) in ms, from timings.jsonl. */
  maxEpisodeMs: number;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : [p];
    });
}

const readJsonl = <T>(file: string): T[] =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.trim())
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as T];
          } catch {
            return [];
          }
        })
    : [];

/** Read the figures of the run in `out`; `key` is searched in every file under `out` and `extraDirs`. */
export function measureChaosRun(out: string, key: string, extraDirs: readonly string[] = []): ChaosFigures {
  const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as Manifest;
  const lines = new Map(readJsonl<ResultLine>(join(out, "results.jsonl")).map((l) => [l.key, l]));
  const summary = existsSync(join(out, "summary.json"))
    ? (JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as ExperimentSummary)
    : undefined;
  const episodesExpected = manifest.conditions.length * manifest.tasks.length * manifest.seeds.length;
  const all = [...lines.values()];
  const ok = all.filter((l) => l.status === "ok");
  const successDenominator = summary ? summary.conditions.reduce((s, c) => s + c.success.n, 0) : 0;

  let detectorFailures = 0;
  let triggered = 0;
  let recoveries = 0;
  const files = [...walk(out), ...extraDirs.flatMap((d) => walk(d))];
  for (const f of files.filter((f) => f.endsWith("trajectory.json"))) {
    const traj = (JSON.parse(readFileSync(f, "utf8")) as { trajectory: Trajectory }).trajectory;
    const bySeq = new Map(traj.steps.map((s) => [s.seq, s]));
    for (const s of traj.steps) if (s.detection?.failure) detectorFailures++;
    for (const e of traj.events) {
      if (e.kind !== "recovery-start") continue;
      recoveries++;
      if (bySeq.get(e.afterSeq)?.detection?.failure) triggered++;
    }
  }
  // Tries thrown away after an environment error: their detector failures are on the line.
  let inFailedTries = 0;
  for (const l of all) {
    for (const t of l.failedTries ?? []) {
      inFailedTries += t.detectorFailures ?? 0;
      triggered += t.detectorFailuresThatTriggeredRecovery ?? 0;
    }
  }
  detectorFailures += inFailedTries;
  const needle = Buffer.from(key);
  const filesWithKey = files.filter((f) => readFileSync(f).includes(needle)).map((f) => relative(out, f));
  const timings = readJsonl<{ wallMs: number }>(join(out, "timings.jsonl"));
  return {
    episodesExpected,
    episodesRecorded: all.length,
    episodesHung: Math.max(0, episodesExpected - all.length),
    envErrorEpisodes: all.length - ok.length,
    episodesRetried: ok.filter((l) => l.envTries > 1).length,
    successDenominator,
    okEpisodes: ok.length,
    envErrorsExcluded: summary !== undefined && successDenominator === ok.length,
    successes: ok.filter((l) => l.success).length,
    detectorCalls: ok.reduce((s, l) => s + l.detectorCalls, 0),
    detectorFailures,
    detectorFailuresInFailedTries: inFailedTries,
    detectorFailuresThatTriggeredRecovery: triggered,
    recoveries,
    filesWithKey,
    filesScanned: files.length,
    maxEpisodeMs: timings.reduce((m, t) => Math.max(m, t.wallMs), 0),
  };
}
