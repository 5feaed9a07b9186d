/**
 * The trajectory viewer's data: an index of every episode (kept in the page) and one chunk file
 * per run and condition holding the episodes themselves, loaded when the viewer opens one. Steps
 * carry their episode position (never renumbered after a restore), E/R flags and the marks to draw
 * on the screenshot; events become sentences. Screenshots stay in the run's blob store and are
 * referenced by URL relative to the report file, at full resolution. Screens the store keeps as
 * gzipped SVG (SimDesk's, as `.svgz` files or in the folder's pack) are named `screen:<ref>` instead: the report copies
 * them into
 * `<report>-files/screens/<ref[0:2]>.js` and the page unzips and shows the SVG on demand.
 *
 * The episode shapes are in viewer-types.ts, one episode as the viewer shows it in viewer-episode.ts, its sentences in
 * viewer-sentences.ts, screenshot URLs in screen-urls.ts, the text cap in viewer-text-limit.ts, the search words in
 * viewer-search.ts, and the run's call side files in run-calls.ts.
 */
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { BLOB_REF_RE, BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeRecord } from "../runner/episode.ts";
import { runBlobsDir } from "../runner/run-blobs.ts";
import { RECORDS_PACK as RECORDS_PACK_NAME } from "../runner/episode-records.ts";
import { ConfigError } from "@retrace-cua/core/errors";
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { realInside, showId } from "@retrace-cua/core/store/safe-path";
import { episodeFolder, inside, pickEpisodes, type RunData } from "./data.ts";
import { conditionLabel } from "./labels.ts";
import { addSsimMaps, restorePairs } from "./ssim-maps.ts";
import { annotationCalls, callLatencies } from "./run-calls.ts";
import { viewerEpisode } from "./viewer-episode.ts";
import { searchWords } from "./viewer-search.ts";
import { capText } from "./viewer-text-limit.ts";
import type { ViewEpisode } from "./viewer-types.ts";

const REF = BLOB_REF_RE;

/** One row of the viewer's index (always in the page). */
export interface ViewerIndexRow {
  run: string;
  key: string;
  condition: string;
  task: string;
  seed: number;
  success: boolean;
  recoveryAttempts: number;
  steps: number;
  /** Chunk file holding the episode. */
  chunk: number;
  /** The condition's display name (labels.ts conditionLabel), the same as in the tables and charts. */
  label: string;
  /** The task's instruction, for the viewer's text search. */
  instruction: string;
  /**
   * The episode's other words for the text search, each once, lower case: actions, responses,
   * detector and selector reasons, events, model replies (rationales) and condition name.
   */
  words?: string;
  /** Ideal recovery's continuation index, when the episode is one. */
  k?: number;
}

/** The viewer's index and its chunk files (one per run and condition): every episode, loaded on demand. */
export async function viewerChunks(
  runs: readonly RunData[],
  reportDir: string,
  perRun?: number,
): Promise<{
  index: ViewerIndexRow[];
  chunks: ViewEpisode[][];
  screens: Map<string, () => Promise<Buffer>>;
  missing: string[];
}> {
  const missing: string[] = [];
  const memo = new Map<string, number[] | undefined>();
  const seen = new Map<string, (() => Promise<Buffer>) | null>();
  const index: ViewerIndexRow[] = [];
  const chunks: ViewEpisode[][] = [];
  for (const run of runs) {
    const blobsDir = runBlobsDir(run.dir);
    // The report reads only inside the folder it was pointed at: a manifest naming a blob folder
    // elsewhere is refused, not followed.
    // (The demo's runs share one store beside them, so the run's parent folder is the bound.)
    if (existsSync(blobsDir) && !realInside(dirname(resolve(run.dir)), blobsDir))
      throw new ConfigError(
        `report: ${join(run.dir, "manifest.json")} names the blob folder ${showId(blobsDir)}, outside ${dirname(resolve(run.dir))}; the report reads only inside the run folder and the folder that holds it`,
        { field: "dir" },
      );
    // Read-only use: a store is made (it creates its folder) only when the folder exists.
    const blobs = existsSync(blobsDir) ? new BlobStore({ dir: blobsDir, confined: true }) : undefined;
    const byCondition = new Map<string, number>();
    const annotation = annotationCalls(run.dir);
    const latencies = callLatencies(run.dir);
    for (const line of perRun === undefined ? run.lines : pickEpisodes(run.lines, perRun)) {
      if (line.status !== "ok") continue;
      const held = run.records?.get(line.key);
      const file = join(episodeFolder(run.dir, line), "trajectory.json");
      if (!held && !existsSync(file)) {
        // Said, never dropped silently: the run's trajectories.jsonl.gz or this trajectory.json is gone.
        missing.push(
          `${run.rel || "."}: ${line.key} (${run.recordsFile ?? (existsSync(join(run.dir, RECORDS_PACK_NAME)) ? "" : "no trajectories.jsonl.gz, ")}no ${relative(run.dir, file)})`,
        );
        continue;
      }
      const read =
        held ??
        readJsonFile<EpisodeRecord>(inside(run.dir, file), {
          what: "trajectory.json",
          prefix: "report: ",
          hint: "it should be the episode record written by `retrace run`; re-run that episode (delete its line from results.jsonl, then --resume) or restore the file",
        });
      if (!read?.trajectory || !Array.isArray(read.trajectory.steps)) continue;
      // Ideal recovery: the annotation's detector and selector calls judged this forward run's last step.
      const judged = annotation.get(read.key);
      // Each call's latency from timings.jsonl (left out of the record), by its place in the call log.
      const ms = latencies.get(read.key);
      const own = Array.isArray(read.calls)
        ? read.calls.map((c, i) =>
            c && typeof c === "object" && c.latencyMs === undefined && typeof ms?.[i] === "number"
              ? { ...c, latencyMs: ms[i] as number }
              : c,
          )
        : read.calls;
      // (The annotation's calls come from another log: their `order` does not compare with the episode's, so they
      // follow its calls.)
      const rec = judged?.length
        ? { ...read, calls: [...(own ?? []), ...judged.map(({ order: _o, ...c }) => c)] }
        : own === read.calls
          ? read
          : { ...read, calls: own };
      // Only blob references (sha256 hex) name screenshot files, so no step can point the viewer elsewhere.
      for (const s of rec.trajectory.steps)
        for (const ref of [s.before, s.after])
          if (typeof ref !== "string" || !REF.test(ref))
            throw new ConfigError(
              `report: ${held ? (run.recordsFile ?? join(run.dir, "run.json")) : file} step ${s.seq}: image reference ${showId(ref)} is not a blob reference (64 hex characters of a sha256); the report reads only inside the run folder (was the file edited?)`,
              { field: "dir" },
            );
      let chunk = byCondition.get(line.condition);
      if (chunk === undefined) {
        chunk = chunks.length;
        chunks.push([]);
        byCondition.set(line.condition, chunk);
      }
      // Where the record's texts are whole, for the notice on a text the viewer cuts.
      const folder = episodeFolder(run.dir, line);
      const source = held
        ? relative(run.dir, run.recordsFile ?? join(run.dir, RECORDS_PACK_NAME))
        : [...(existsSync(join(folder, "traj.jsonl")) ? ["traj.jsonl"] : []), "trajectory.json"]
            .map((f) => relative(run.dir, join(folder, f)))
            .join(" and ");
      // The condition's retry cap (its manifest params), for the "detector off" note once it is spent.
      const capParam = run.manifest?.conditions?.find((c) => c.id === line.condition)?.params?.maxRecoveryIterations;
      const ep = viewerEpisode(
        rec,
        blobsDir,
        reportDir,
        { blobs, seen },
        source,
        typeof capParam === "number" ? capParam : undefined,
      );
      const words = searchWords(
        ep,
        undefined,
        `${line.task} ${conditionLabel(line.condition)} ${line.condition} ${rec.instruction ?? ""}`,
      );
      await addSsimMaps(ep, blobs, restorePairs(rec), memo);
      chunks[chunk].push(ep);
      index.push({
        run: run.summary.experiment,
        key: line.key,
        condition: line.condition,
        task: line.task,
        seed: line.seed,
        success: line.success,
        recoveryAttempts: line.recoveryAttempts,
        steps: rec.trajectory.steps.length,
        chunk,
        label: conditionLabel(line.condition),
        instruction: capText(rec.instruction ?? "", source),
        ...(words ? { words } : {}),
        ...(typeof rec.extra?.k === "number" ? { k: rec.extra.k } : {}),
      });
    }
  }
  const svgz = new Map<string, () => Promise<Buffer>>();
  for (const [ref, read] of seen) if (read) svgz.set(ref, read);
  return { index, chunks, screens: svgz, missing };
}
