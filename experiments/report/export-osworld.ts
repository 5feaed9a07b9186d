/**
 * `retrace export --osworld <run> --out <dir>`: OSWorld's per-episode layout for a run folder (or a
 * folder of runs such as the demo's), for tools that expect it. Run folders keep screenshots once,
 * in the run's content-addressed blob store, and each episode's record in trajectory.json; this
 * writes, per episode, `traj.jsonl`, `step_0.png` ... `step_N.png` (copies of the blobs),
 * `result.txt` and `result.json` under `<out>/<run>/<condition>/<task>/<seed>/`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { realInside, showId } from "@retrace-cua/core/store/safe-path";
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { prepareOutDir } from "@retrace-cua/core/store/out-dir";
import { writeEpisodeOutput } from "@retrace-cua/core/store/episode-output";
import type { EpisodeRecord } from "../runner/episode.ts";
import { runBlobsDir } from "../runner/run-blobs.ts";
import { episodeFolder, findRuns, loadRun } from "./data.ts";

/** Options of {@link exportOsworld}. */
export interface ExportOsworldOptions {
  /** A run folder (results.jsonl) or a folder of runs. */
  dir: string;
  /** Output folder (created; must be empty or new, and outside `dir`). */
  out: string;
  /** Called after each episode with the count so far. */
  onEpisode?: (done: number, total: number) => void;
}

/** What was written. */
export interface ExportOsworldSummary {
  out: string;
  runs: number;
  episodes: number;
  screenshots: number;
  /** Episodes in results.jsonl without a trajectory.json (environment errors, or a copied results file). */
  missing: number;
}

/** Write the OSWorld layout of every episode of the run(s) in `dir` to `out`. */
export async function exportOsworld(options: ExportOsworldOptions): Promise<ExportOsworldSummary> {
  const root = resolve(options.dir);
  const out = resolve(options.out);
  if (out === root || out.startsWith(root + sep))
    throw new ConfigError(`--out: ${options.out} is inside the run folder ${options.dir}; export somewhere else`, {
      field: "out",
    });
  const runs = findRuns(root).map((d) => loadRun(root, d));
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new ConfigError(`--out: ${options.out} is not empty; choose a new folder`, { field: "out" });
  // Every run's blob folder is checked before anything is written (a manifest naming `../../x`
  // is refused, and no folder is created for it: the store below is confined and creates nothing).
  const blobDirs = new Map(runs.map((run) => [run, runBlobsDir(run.dir)]));
  for (const [run, blobsDir] of blobDirs) {
    if (!realInside(dirname(resolve(run.dir)), blobsDir))
      throw new ConfigError(
        `export: ${join(run.dir, "manifest.json")} names the blob folder ${showId(blobsDir)}, outside ${dirname(resolve(run.dir))}; export reads only inside the run folder and the folder that holds it`,
        { field: "osworld" },
      );
  }
  prepareOutDir(out);
  const total = runs.reduce((n, r) => n + r.lines.filter((l) => l.status === "ok").length, 0);
  const summary: ExportOsworldSummary = { out, runs: runs.length, episodes: 0, screenshots: 0, missing: 0 };
  for (const run of runs) {
    // Read only inside the folder given (links followed), like the report: the run's blob folder
    // (or the shared one beside it, the demo's layout), its blobs, and every episode file.
    const blobs = new BlobStore({ dir: blobDirs.get(run)!, confined: true });
    for (const line of run.lines) {
      if (line.status !== "ok") continue;
      const folder = episodeFolder(run.dir, line);
      const held = run.records?.get(line.key);
      const file = join(folder, "trajectory.json");
      if (!held && !existsSync(file)) {
        summary.missing++;
        continue;
      }
      const rec =
        held ?? readJsonFile<EpisodeRecord>(confinedFile(root, file), { what: "trajectory.json", prefix: "export: " });
      const dir = join(out, relative(root, run.dir), relative(run.dir, folder));
      const w = await writeEpisodeOutput({
        dir,
        trajectory: rec.trajectory,
        blobs,
        score: { score: rec.score, ...(rec.detail ? { detail: rec.detail } : {}) },
        simulated: rec.simulated,
      });
      summary.episodes++;
      summary.screenshots += w.screenshots;
      options.onEpisode?.(summary.episodes, total);
    }
  }
  return summary;
}

/** `file` when, links followed, it is inside `root`; a ConfigError naming it otherwise. */
function confinedFile(root: string, file: string): string {
  if (!realInside(root, file))
    throw new ConfigError(
      `export: ${file} leads outside ${root} (a link or a path from a result file); export reads only inside the run folder`,
      { field: "osworld" },
    );
  return file;
}
