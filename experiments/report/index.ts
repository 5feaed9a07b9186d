/**
 * `retrace report <dir>`: one self-contained report.html for a run folder (or a folder of runs):
 * condition tables with confidence intervals, Success@K curves, sweep charts, stability metrics,
 * cost per success, the recovery-evaluation tables when their files exist, the paper's findings
 * checked against the folder's runs (experiments/report/findings.ts), and a trajectory viewer.
 * chart.js is inlined and screenshots are embedded as downscaled JPEG data URLs, so the file opens
 * without a network.
 */
import { readJsonFile } from "../../src/store/read-file.ts";
import { existsSync, readFileSync, writeFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { successAtKChart, successChart, sweepChart, stabilityChart, type ChartSpec } from "./charts.ts";
import { CLIENT_JS } from "./client.ts";
import { findExtraFiles, findRuns, ImageTable, inside, loadEpisodes, loadRun, pickEpisodes, type ViewerEpisode } from "./data.ts";
import { findingsForRuns } from "./findings.ts";
import { renderPage, slug, type Finding } from "./html.ts";

/** Options of {@link buildReport}. */
export interface ReportOptions {
  /** Output file. @default "<dir>/report.html" */
  file?: string;
  /** Episodes in the viewer per run. @default 8 */
  episodesPerRun?: number;
  /** Width screenshots are downscaled to. @default 560 */
  imageWidth?: number;
  /** Page title. @default "retrace report: <folder name>" */
  title?: string;
}

/** What was written. */
export interface ReportOutput {
  file: string;
  bytes: number;
  runs: number;
  episodes: number;
  images: number;
}

/** Build report.html for `dir`. */
export async function buildReport(dir: string, options: ReportOptions = {}): Promise<ReportOutput> {
  const root = resolve(dir);
  const runs = findRuns(root, { allowNone: true }).map((d) => loadRun(root, d));
  const extras = findExtraFiles(root, runs.map((r) => r.dir));
  // A folder with only recovery-evaluation output (recovery-eval.json, oracle-agreement.json) is reportable too.
  if (runs.length === 0 && extras.length === 0) findRuns(root);
  const charts: ChartSpec[] = [];
  for (const r of runs) {
    const p = `c-${slug(r.rel || r.summary.experiment)}-`;
    charts.push(successChart(`${p}success`, r.summary));
    const k = successAtKChart(`${p}sak`, r.summary);
    if (k) charts.push(k);
    const sw = sweepChart(`${p}sweep`, r.summary);
    if (sw) charts.push(sw);
    charts.push(stabilityChart(`${p}stability`, r.summary));
  }
  const images = new ImageTable(options.imageWidth ?? 560);
  const episodes: ViewerEpisode[] = [];
  for (const r of runs) episodes.push(...(await loadEpisodes(r, pickEpisodes(r.lines, options.episodesPerRun ?? 8), images)));
  // findings.json (the demo writes one) wins; otherwise the findings are checked against this
  // folder's own ideal-recovery / end-to-end runs and recovery evaluation, simulated or model-backed.
  const findingsFile = join(root, "findings.json");
  const findings = existsSync(findingsFile) ? readJsonFile<{ findings: Finding[] }>(inside(root, findingsFile), { what: "findings file", prefix: "report: " }).findings : findingsForRuns(runs, extras)?.findings;
  const require = createRequire(import.meta.url);
  const chartJs = readFileSync(join(dirname(require.resolve("chart.js")), "chart.umd.min.js"), "utf8");
  const html = renderPage({
    title: options.title ?? `retrace report: ${basename(root)}`,
    runs, charts, extras, findings, episodes, images: images.urls, chartJs, clientJs: CLIENT_JS,
    generatedFrom: runs.length ? `${runs.length} run(s) in ${root}` : `recovery-evaluation output in ${root}`,
  });
  const file = options.file ?? join(root, "report.html");
  writeFileSync(`${file}.tmp`, html);
  renameSync(`${file}.tmp`, file);
  return { file, bytes: Buffer.byteLength(html), runs: runs.length, episodes: episodes.length, images: images.urls.length };
}
