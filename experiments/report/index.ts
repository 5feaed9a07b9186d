/**
 * `retrace report <dir>`: report.html for a run folder (or a folder of runs): condition tables with
 * confidence intervals, success charts with 95% whiskers, Success@K curves with bands, the tasks
 * recovery fixed or broke, success per app, sweep charts, stability metrics, cost per success, the
 * recovery-evaluation charts (success by context x d x r, implicit vs explicit, oracle confusion
 * matrices with kappa), the paper's findings checked against the folder's runs, and a trajectory
 * viewer that reaches every episode. chart.js is inlined; the viewer's episodes live in
 * `<report>-files/chunk-N.js` (one per run and condition, loaded on demand) and its screenshots
 * are the run's blob files at full resolution, so the page works from file:// with no network.
 */
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { missingPackageError } from "@retrace-cua/core/optional-import";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { raceChart, raceHtml, readRace } from "./race.ts";
import { successAtKChart, successChart, sweepChart, stabilityChart, type ChartSpec } from "./charts.ts";
import { CLIENT_JS } from "./client.ts";
import { PANELS_JS } from "./client-panels.ts";
import { splitCalls, writeCallFiles } from "./call-files.ts";
import { findExtraFiles, findRuns, inside, loadRun } from "./data.ts";
import { findingsForRuns } from "./findings.ts";
import { renderPage, scriptJson, slug, type Finding } from "./html.ts";
import { appBreakdown, appChart, pairedChart, pairedRows } from "./paired.ts";
import { recoveryEvalView } from "./recovery-view.ts";
import { viewerChunks } from "./viewer-data.ts";
import { chunkEpisode, shortenScreenIds, writeScreenPacks } from "./screen-packs.ts";
import { diskFullOf, writeFileAtomic } from "@retrace-cua/core/store/write-file";
import { EnvironmentError } from "@retrace-cua/core/errors";

/** Options of {@link buildReport}. */
export interface ReportOptions {
  /** Output file. @default "<dir>/report.html" */
  file?: string;
  /**
   * At most this many episodes per run in the viewer (recoveries first, conditions interleaved). @default every episode
   */
  episodesPerRun?: number;
  /** Page title. @default "retrace report: <folder name>" */
  title?: string;
}

/** What was written. */
export interface ReportOutput {
  file: string;
  /** Size of report.html alone. */
  bytes: number;
  /** Size of report.html plus its `-files` folder (chunk files and screen packs): what the report takes on disk. */
  totalBytes: number;
  runs: number;
  /** Episodes reachable in the viewer. */
  episodes: number;
  /** Chunk files written beside the report. */
  chunks: number;
  /**
   * Finished episodes the viewer cannot show: their record (trajectory.json, or the run's trajectories.jsonl.gz) is
   * missing.
   */
  missing: string[];
}

/** Build report.html (and its chunk folder) for `dir`. */
export async function buildReport(dir: string, options: ReportOptions = {}): Promise<ReportOutput> {
  const root = resolve(dir);
  const runs = findRuns(root, { allowNone: true }).map((d) => loadRun(root, d));
  const extras = findExtraFiles(
    root,
    runs.map((r) => r.dir),
  );
  // A folder with only recovery-evaluation output (recovery-eval.json, oracle-agreement.json) is reportable too.
  // A race folder (retrace tune: race.json) is reportable too: its rounds are runs of their own
  // (`retrace report <out>/rounds/b0-r0`).
  if (runs.length === 0 && extras.length === 0 && !existsSync(join(root, "race.json"))) findRuns(root);
  const charts: ChartSpec[] = [];
  for (const r of runs) {
    const p = `c-${slug(r.rel || r.summary.experiment)}-`;
    charts.push(successChart(`${p}success`, r.summary));
    const k = successAtKChart(`${p}sak`, r.summary);
    if (k) charts.push(k);
    const sw = sweepChart(`${p}sweep`, r.summary);
    if (sw) charts.push(sw);
    const pc = pairedChart(`${p}paired`, r.summary.experiment, pairedRows(r.lines));
    if (pc) charts.push(pc);
    const ac = appChart(`${p}apps`, r.summary.experiment, appBreakdown(r.lines));
    if (ac) charts.push(ac);
    charts.push(stabilityChart(`${p}stability`, r.summary));
  }
  const recovery = recoveryEvalView(extras);
  const race = readRace(root);
  const raceSpec = race && raceChart(race);
  if (raceSpec) charts.push(raceSpec);
  const file = resolve(options.file ?? join(root, "report.html"));
  const reportDir = dirname(file);
  const { index, chunks, screens, missing } = await viewerChunks(runs, reportDir, options.episodesPerRun);
  // The chunk folder is rewritten whole: a stale chunk from an earlier report never mixes in.
  const filesName = `${basename(file).replace(/\.html?$/i, "")}-files`;
  const filesDir = join(reportDir, filesName);
  try {
    rmSync(filesDir, { recursive: true, force: true });
    if (chunks.length) mkdirSync(filesDir, { recursive: true });
    const packed = shortenScreenIds(chunks, screens);
    writeCallFiles(filesDir, splitCalls(chunks), scriptJson);
    chunks.forEach((c, i) =>
      writeFileSync(
        join(filesDir, `chunk-${i}.js`),
        `window.__retraceChunk(${i}, ${scriptJson(c.map(chunkEpisode))});\n`,
      ),
    );
    await writeScreenPacks(join(filesDir, "screens"), packed);
  } catch (err) {
    throw reportWriteFailure(err, file, filesDir);
  }
  // findings.json (the demo writes one) wins; otherwise the findings are checked against this
  // folder's own ideal-recovery / end-to-end runs and recovery evaluation, simulated or model-backed.
  const findingsFile = join(root, "findings.json");
  const findings = existsSync(findingsFile)
    ? readJsonFile<{ findings: Finding[] }>(inside(root, findingsFile), { what: "findings file", prefix: "report: " })
        .findings
    : findingsForRuns(runs, extras, root)?.findings;
  const require = createRequire(import.meta.url);
  let chartJsDir: string;
  try {
    chartJsDir = dirname(require.resolve("chart.js"));
  } catch (err) {
    throw missingPackageError("chart.js", "retrace report (the inlined charts)", err);
  }
  const chartJs = readFileSync(join(chartJsDir, "chart.umd.min.js"), "utf8");
  const html = renderPage({
    title: options.title ?? `retrace report: ${basename(root)}`,
    runs,
    charts: [...charts, ...recovery.charts],
    extras,
    recoveryHtml: recovery.html,
    ...(race && raceSpec && { raceHtml: raceHtml(race, raceSpec) }),
    findings,
    viewer: { index, chunkDir: encodeURIComponent(filesName) },
    chartJs,
    clientJs: PANELS_JS + CLIENT_JS,
    generatedFrom: runs.length
      ? `${runs.length} run(s) in ${root}`
      : race
        ? `the race (retrace tune) in ${root}`
        : `recovery-evaluation output in ${root}`,
  });
  try {
    writeFileAtomic(file, html);
  } catch (err) {
    throw reportWriteFailure(err, file, filesDir);
  }
  const bytes = Buffer.byteLength(html);
  return {
    file,
    bytes,
    totalBytes: bytes + folderBytes(filesDir),
    runs: runs.length,
    episodes: index.length,
    chunks: chunks.length,
    missing,
  };
}

/**
 * A full disk while writing the report: the half-written chunk folder is removed (it is rewritten
 * whole next time) and the error is one line naming the report; the run folder is only read.
 */
function reportWriteFailure(err: unknown, file: string, filesDir: string): unknown {
  if (!diskFullOf(err)) return err;
  rmSync(filesDir, { recursive: true, force: true });
  const code =
    /EDQUOT/.test(String((err as Error)?.message)) || (err as NodeJS.ErrnoException)?.code === "EDQUOT"
      ? "EDQUOT"
      : "ENOSPC";
  return new EnvironmentError(
    `report: cannot write ${file}: the disk is full (${code}); free some space (or pass --out on another disk) and run \`retrace report\` again; the run folder is unchanged`,
    { cause: err, retryable: false },
  );
}

/** Bytes of the files under `dir` (0 when it does not exist). */
function folderBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true }).reduce(
    (n, e) => n + (e.isDirectory() ? folderBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
}
