/**
 * OSWorld-style episode folders for experiment runs: the same files and line format as the shared
 * writer (`traj.jsonl` via `trajLine`, `result.txt`, `result.json`; see
 * packages/core/src/store/episode-output.ts), but screenshots stay in the run's content-addressed blob store:
 * each traj.jsonl line names its screenshot by reference (`screenshot_blob`, a path relative to
 * the run's blob folder: a PNG, or a SimDesk screen's gzipped SVG `.svgz`) instead of a `step_N.png` beside it - a demo
 * would write ~40,000 of them.
 * `retrace export --osworld` writes the full layout with the step PNGs (experiments/commands/export.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeResult } from "@retrace-cua/core/episode";
import { trajLine } from "@retrace-cua/core/store/episode-output";
import { redactText } from "@retrace-cua/core/secrets";

/** Write `<dir>/traj.jsonl`, `result.txt` and `result.json` for one episode (screenshots by blob reference). */
export async function writeOsworldFolder(input: {
  dir: string;
  result: EpisodeResult;
  blobs: BlobStore;
  simulated: boolean;
}): Promise<void> {
  const { dir, result, simulated } = input;
  mkdirSync(dir, { recursive: true });
  const steps = result.trajectory.steps;
  // The file as stored: `<ab>/<ref>.png`, or `.svgz` for a SimDesk screen kept as gzipped SVG.
  const blobName = (ref: string) =>
    relative(input.blobs.dir, input.blobs.storedPath(ref) ?? input.blobs.path(ref))
      .split(sep)
      .join("/");
  writeFileSync(
    join(dir, "traj.jsonl"),
    redactText(steps.map((s, i) => JSON.stringify(trajLine(s, i + 1, simulated, "blob", blobName)) + "\n").join("")),
  );
  const ev = result.evaluation;
  writeFileSync(join(dir, "result.txt"), `${ev.score}\n`);
  writeFileSync(
    join(dir, "result.json"),
    JSON.stringify(
      { taskId: result.taskId, score: ev.score, detail: ev.detail ?? null, steps: steps.length, simulated },
      null,
      2,
    ) + "\n",
  );
}
