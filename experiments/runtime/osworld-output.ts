/**
 * A minimal OSWorld-style episode folder (`traj.jsonl`, `step_N.png`, `result.txt`), used when
 * the shared episode writer (src/store/episode-output.ts) is not available. Screenshots are hard
 * links to the run's blobs (no copies), falling back to a copy across file systems.
 */
import { copyFileSync, existsSync, linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatAction } from "../../src/action.ts";
import type { BlobStore } from "../../src/blob-store.ts";
import type { EpisodeResult } from "../../src/episode.ts";

/** Write `<dir>/traj.jsonl`, `<dir>/step_N.png` and `<dir>/result.txt` for one episode. */
export async function writeOsworldFolder(input: { dir: string; result: EpisodeResult; blobs: BlobStore; simulated: boolean }): Promise<void> {
  const { dir, result, blobs } = input;
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  result.trajectory.steps.forEach((s, i) => {
    const png = `step_${i + 1}.png`;
    const src = blobs.path(s.after);
    const dst = join(dir, png);
    if (existsSync(src) && !existsSync(dst)) {
      try {
        linkSync(src, dst);
      } catch {
        copyFileSync(src, dst);
      }
    }
    lines.push(JSON.stringify({
      step_num: i + 1, role: s.role, step: s.step, ...(s.attempt !== undefined ? { attempt: s.attempt } : {}),
      action: s.actions.map(formatAction).join("; "), actions: s.actions, response: s.response ?? "",
      ...(s.detection ? { detection: s.detection } : {}), ...(s.frozen ? { frozen: true } : {}),
      screenshot_file: png, simulated: input.simulated,
    }));
  });
  writeFileSync(join(dir, "traj.jsonl"), lines.join("\n") + (lines.length ? "\n" : ""));
  writeFileSync(join(dir, "result.txt"), `${result.evaluation.score}\n`);
}
