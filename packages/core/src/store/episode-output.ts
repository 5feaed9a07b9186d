/**
 * OSWorld-style episode folders, the layout CUA researchers expect to find:
 * `DIR/traj.jsonl` (one JSON line per executed step), `DIR/step_N.png` (the screenshot after step N,
 * copied from the blob store; `step_0.png` is the starting screen), `DIR/result.txt` (the score, a
 * bare number as OSWorld writes it) and `DIR/result.json` (score, detail, and the `simulated` label).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatAction } from "../action.ts";
import type { BlobReader, BlobRef } from "../blob-store.ts";
import { ConfigError } from "../errors.ts";
import type { Evaluation } from "../task.ts";
import type { StepRecord, Trajectory } from "../trajectory.ts";
import { redactText } from "../secrets.ts";

/** Options for {@link writeEpisodeOutput}. */
export interface EpisodeOutputOptions {
  /** Folder to write (created if missing; existing files with the same names are replaced). */
  dir: string;
  trajectory: Trajectory;
  /** Where the trajectory's screenshots live. A store with `path(ref)` is copied file-to-file. */
  blobs: BlobReader & { path?(ref: BlobRef): string };
  /** Final score; a number or the evaluator's result. @default trajectory.result */
  score?: number | Evaluation;
  /** True when the policy was simulated: every line and result.json carry `simulated: true`. */
  simulated: boolean;
}

/** What was written. */
export interface EpisodeOutputSummary {
  dir: string;
  steps: number;
  screenshots: number;
  score: number | null;
}

/**
 * One traj.jsonl line, OSWorld field names first. `screenshots`: "file" names `step_N.png` beside
 * it (OSWorld's layout); "blob" names the screenshot in the run's blob store instead
 * (`screenshot_blob`: `<ref[0:2]>/<ref>.png` relative to the blob folder, or the name `blobName`
 * gives, e.g. `.svgz` for a SimDesk screen kept as SVG), as run folders keep it.
 */
export function trajLine(
  s: StepRecord,
  stepNum: number,
  simulated: boolean,
  screenshots: "file" | "blob" = "file",
  blobName?: (ref: BlobRef) => string,
): Record<string, unknown> {
  return {
    step_num: stepNum,
    action: s.actions.map(formatAction).join("; "),
    actions: s.actions,
    response: s.response ?? "",
    ...(screenshots === "file"
      ? { screenshot_file: `step_${stepNum}.png` }
      : { screenshot_blob: blobName ? blobName(s.after) : `${s.after.slice(0, 2)}/${s.after}.png` }),
    info: {
      ...(s.info ?? {}),
      role: s.role,
      step: s.step,
      seq: s.seq,
      ...(s.attempt !== undefined ? { attempt: s.attempt } : {}),
      ...(s.detection ? { detection: s.detection } : {}),
      ...(s.frozen ? { frozen: true } : {}),
      ...(s.failure ? { failure: s.failure } : {}),
      ...(s.envMs !== undefined ? { env_ms: s.envMs } : {}),
      simulated,
    },
  };
}

async function copyBlob(blobs: EpisodeOutputOptions["blobs"], ref: BlobRef, to: string): Promise<void> {
  // Through get(), never a file copy: get() checks the bytes against their sha256 reference (a
  // blob file replaced by another screenshot's bytes is refused, issue 41) and a confined store
  // reads no link out of its folder.
  await writeFile(to, await blobs.get(ref));
}

/** Write one episode's OSWorld-style folder. */
export async function writeEpisodeOutput(options: EpisodeOutputOptions): Promise<EpisodeOutputSummary> {
  const { dir, trajectory, blobs, simulated } = options;
  if (!dir) throw new ConfigError("writeEpisodeOutput: dir is empty; pass the folder to write", { field: "dir" });
  await mkdir(dir, { recursive: true });
  const steps = trajectory.steps;
  const lines = steps.map((s, i) => JSON.stringify(trajLine(s, i + 1, simulated)));
  await writeFile(join(dir, "traj.jsonl"), redactText(lines.length ? lines.join("\n") + "\n" : ""));
  let screenshots = 0;
  if (steps.length) {
    await copyBlob(blobs, steps[0].before, join(dir, "step_0.png"));
    screenshots++;
  }
  for (let i = 0; i < steps.length; i++) {
    await copyBlob(blobs, steps[i].after, join(dir, `step_${i + 1}.png`));
    screenshots++;
  }
  const ev: Evaluation | undefined =
    typeof options.score === "number" ? { score: options.score } : (options.score ?? trajectory.result);
  const score = ev ? ev.score : null;
  await writeFile(join(dir, "result.txt"), score === null ? "" : `${score}\n`);
  await writeFile(
    join(dir, "result.json"),
    redactText(
      JSON.stringify(
        { taskId: trajectory.taskId, score, detail: ev?.detail ?? null, steps: steps.length, simulated },
        null,
        2,
      ) + "\n",
    ),
  );
  return { dir, steps: steps.length, screenshots, score };
}
