/**
 * OSWorld-style episode folders for experiment runs: the same files and line format as the shared
 * writer (`traj.jsonl` via `trajLine`, `step_N.png`, `result.txt`, `result.json`; see
 * src/store/episode-output.ts), but screenshots are hard links into the run's blob store instead
 * of copies - a demo writes ~10,000 of them. Falls back to a copy across file systems.
 */
import { existsSync, linkSync, mkdirSync, writeFileSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import type { BlobStore } from "../../src/blob-store.ts";
import type { EpisodeResult } from "../../src/episode.ts";
import { trajLine } from "../../src/store/episode-output.ts";
import { redactText } from "../../src/secrets.ts";

async function linkBlob(blobs: BlobStore, ref: string, to: string): Promise<boolean> {
  const src = blobs.path(ref);
  if (!existsSync(src)) return false;
  if (existsSync(to)) return true;
  try {
    linkSync(src, to);
  } catch {
    await copyFile(src, to);
  }
  return true;
}

/** Write `<dir>/traj.jsonl`, `step_N.png`, `result.txt` and `result.json` for one episode. */
export async function writeOsworldFolder(input: { dir: string; result: EpisodeResult; blobs: BlobStore; simulated: boolean }): Promise<void> {
  const { dir, result, blobs, simulated } = input;
  mkdirSync(dir, { recursive: true });
  const steps = result.trajectory.steps;
  writeFileSync(join(dir, "traj.jsonl"), redactText(steps.map((s, i) => JSON.stringify(trajLine(s, i + 1, simulated)) + "\n").join("")));
  if (steps.length) await linkBlob(blobs, steps[0].before, join(dir, "step_0.png"));
  for (let i = 0; i < steps.length; i++) await linkBlob(blobs, steps[i].after, join(dir, `step_${i + 1}.png`));
  const ev = result.evaluation;
  writeFileSync(join(dir, "result.txt"), `${ev.score}\n`);
  writeFileSync(join(dir, "result.json"), JSON.stringify({ taskId: result.taskId, score: ev.score, detail: ev.detail ?? null, steps: steps.length, simulated }, null, 2) + "\n");
}
