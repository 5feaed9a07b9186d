/**
 * Reading a results folder for the report: one run (a folder with manifest.json) or a parent of
 * several runs (e.g. the demo's ideal/, e2e/, sweep/), their summaries, the recovery-evaluation
 * files when they exist, and where each episode's folder is (the viewer's episodes and screenshots
 * are read in viewer-data.ts).
 */
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import { pathInside, realInside, showId } from "@retrace-cua/core/store/safe-path";
import type { EpisodeRecord } from "../runner/episode.ts";
import type { Manifest } from "../runner/experiment.ts";
import type { ResultLine } from "../runner/results-log.ts";
import { isModelRunFolder, loadModelRun, readResultsForReport } from "./inputs.ts";
import { readRecords, RECORDS_LOG, RECORDS_PACK } from "../runner/episode-records.ts";
import { summarize, type ExperimentSummary } from "../runner/summary.ts";

/** One run folder's data. */
export interface RunData {
  dir: string;
  /** Path relative to the report folder ("" for the report folder itself). */
  rel: string;
  manifest?: Manifest;
  summary: ExperimentSummary;
  lines: ResultLine[];
  /** Viewer records held in memory (a `run --policy` folder keeps its trajectory in run.json). */
  records?: Map<string, EpisodeRecord>;
  /** The file `records` came from (run.json, or the run's trajectories.jsonl.gz). */
  recordsFile?: string;
}

/** A JSON file produced by the recovery-evaluation work, shown as tables. */
export interface ExtraFile {
  name: string;
  rel: string;
  data: unknown;
}

/**
 * `file` when it (links followed) is inside `root`; a ConfigError otherwise: the report reads only
 * inside the folder it was pointed at.
 */
export function inside(root: string, file: string): string {
  if (!realInside(root, file))
    throw new ConfigError(
      `report: ${file} leads outside ${root} (a link or a path from a result file); the report reads only inside the run folder`,
      { field: "dir" },
    );
  return file;
}

/** Find run folders: `dir` itself when it has a manifest or results, else its children (depth 2). */
export function findRuns(
  dir: string,
  options: {
    /** Return [] instead of throwing when there is no run (a recovery-eval-only folder). */ allowNone?: boolean;
  } = {},
): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ConfigError(`report: ${dir} is not a folder`);
  const isRun = (d: string) => existsSync(join(inside(dir, d), "results.jsonl")) || isModelRunFolder(d);
  if (isRun(dir)) return [dir];
  const runs: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const d = join(dir, name);
    if (!statSync(d).isDirectory()) continue;
    if (isRun(d)) runs.push(d);
    else
      for (const sub of readdirSync(d).sort())
        if (statSync(join(d, sub)).isDirectory() && isRun(join(d, sub))) runs.push(join(d, sub));
  }
  if (runs.length === 0 && !options.allowNone)
    throw new ConfigError(
      `report: no results.jsonl (or run.json of \`retrace run --policy\`) in ${dir} or its subfolders; run \`retrace run <config> --out ${dir}\` first`,
      { field: "dir" },
    );
  return runs;
}

/** Load one run folder (summary.json if present, otherwise summarised from results.jsonl). */
export function loadRun(root: string, dir: string): RunData {
  if (isModelRunFolder(dir)) {
    const { line, record } = loadModelRun(dir);
    const summary = summarize({ experiment: line.experiment, kind: "end-to-end", lines: [line], params: {} });
    return {
      dir,
      rel: relative(root, dir),
      summary,
      lines: [line],
      records: new Map([[line.key, record]]),
      recordsFile: join(dir, "run.json"),
    };
  }
  const lines = readResultsForReport(inside(root, join(dir, "results.jsonl")));
  const runFile = <T>(name: string) =>
    readJsonFile<T>(inside(root, join(dir, name)), {
      what: name,
      prefix: "report: ",
      hint: `it should be the ${name} written by \`retrace run\`; delete it (the report rebuilds ${name === "summary.json" ? "the summary from results.jsonl" : "without it"}) or restore it`,
    });
  const manifest = existsSync(join(dir, "manifest.json")) ? runFile<Manifest>("manifest.json") : undefined;
  const summary = existsSync(join(dir, "summary.json"))
    ? runFile<ExperimentSummary>("summary.json")
    : summarize({
        experiment: manifest?.experiment ?? relative(root, dir),
        kind: manifest?.kind ?? "end-to-end",
        lines,
        params: Object.fromEntries((manifest?.conditions ?? []).map((c) => [c.id, c.params])),
      });
  // The demo packs its episode records (RunSettings.episodeRecords "pack") instead of a folder per episode.
  for (const name of [RECORDS_PACK, RECORDS_LOG]) if (existsSync(join(dir, name))) inside(root, join(dir, name));
  const records = readRecords<EpisodeRecord>(dir);
  return {
    dir,
    rel: relative(root, dir),
    manifest,
    summary,
    lines,
    ...(records ? { records, recordsFile: join(dir, RECORDS_PACK) } : {}),
  };
}

const EXTRA_NAMES = ["recovery-eval.json", "oracle-agreement.json"];

/** recovery-eval.json / oracle-agreement.json in the folder, its runs or their subfolders. */
export function findExtraFiles(root: string, runs: readonly string[]): ExtraFile[] {
  const out: ExtraFile[] = [];
  const seen = new Set<string>();
  const look = (d: string, depth: number) => {
    for (const name of EXTRA_NAMES) {
      const f = join(d, name);
      if (existsSync(f) && !seen.has(f)) {
        seen.add(f);
        try {
          out.push({ name, rel: relative(root, f), data: JSON.parse(readFileSync(inside(root, f), "utf8")) });
        } catch (err) {
          if (err instanceof ConfigError) throw err;
          out.push({ name, rel: relative(root, f), data: { error: `${name} is not valid JSON` } });
        }
      }
    }
    if (depth > 0)
      for (const n of readdirSync(d).sort())
        if (n !== "blobs" && statSync(join(d, n)).isDirectory()) look(join(d, n), depth - 1);
  };
  look(root, 1);
  for (const r of runs) look(r, 0);
  return out;
}

/** Pick up to `max` interesting episodes of a run (recoveries first, successes and failures mixed). */
export function pickEpisodes(lines: readonly ResultLine[], max: number): ResultLine[] {
  // Interleave conditions so the viewer shows every condition, not just the first one.
  const byCondition = new Map<string, ResultLine[]>();
  for (const l of lines)
    if (l.status === "ok") byCondition.set(l.condition, [...(byCondition.get(l.condition) ?? []), l]);
  const ok: ResultLine[] = [];
  for (let i = 0; ok.length < lines.length && [...byCondition.values()].some((g) => g.length > i); i++)
    for (const g of byCondition.values()) if (g[i]) ok.push(g[i]);
  const buckets = [
    ok.filter((l) => l.recoveryAttempts > 0 && l.success),
    ok.filter((l) => l.recoveryAttempts > 0 && !l.success),
    ok.filter((l) => l.recoveryAttempts === 0 && l.replaySteps > 0 && l.success),
    ok.filter((l) => l.recoveryAttempts === 0 && l.replaySteps > 0 && !l.success),
    ok.filter((l) => l.recoveryAttempts === 0 && l.replaySteps === 0 && !l.success),
    ok.filter((l) => l.recoveryAttempts === 0 && l.replaySteps === 0 && l.success),
  ];
  const picked: ResultLine[] = [];
  for (let round = 0; picked.length < max && buckets.some((b) => b.length > round); round++)
    for (const b of buckets) if (b[round] && picked.length < max) picked.push(b[round]);
  return picked.sort((a, b) => a.index - b.index);
}

/** Where an episode's folder is, from its line (its names checked as ids: never outside `run`). */
export function episodeFolder(run: string, line: ResultLine): string {
  const k = line.extra?.k;
  return pathInside(
    run,
    [line.condition, line.task, k !== undefined ? `${line.seed}-k${k}` : String(line.seed)],
    `report: ${join(run, "results.jsonl")}: episode ${showId(line.key)}`,
  );
}
