/**
 * A labelling sample of a recovery evaluation, for the human side of the oracle study (paper
 * Section 5.4, Appendix B.3): a seeded random choice of judged runs, written as JSONL lines a
 * person completes by setting `"restored": true` or `false` and then passes to
 * `retrace eval-recovery --agreement --labels FILE`. Each line carries what the paper's annotators
 * were shown: the task, the actions up to the error (erroneous ones marked), the recovery actions,
 * and the paths of the TARGET, ERROR and RECOVERED screenshots (PNG files in the blob stores, or
 * `.svgz` for SimDesk screens kept as gzipped SVG).
 * `disagreements: true` keeps only runs where R_O and R_TC disagree, the cases the paper's study
 * drew from.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { loadRecoveryDataset } from "@retrace-cua/evaluation/dataset/store";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import { createRng } from "@retrace-cua/core/rng";
import { runIdOf } from "./labels.ts";
import { judgeInput } from "./label-agreement.ts";
import type { RecoveryEvalReport } from "./report-data.ts";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";

/** Options of {@link writeLabelSample}. */
export interface LabelSampleOptions {
  /** Folder of a finished recovery evaluation (runs.jsonl, recovery-eval.json, blobs/). */
  evalDir: string;
  /** Output JSONL file. */
  out: string;
  /** Runs to draw; all when there are fewer. @default 50 (the paper's sample per variant) */
  n?: number;
  /** Seed of the draw. @default 0 */
  seed?: number;
  /** Only runs where R_O and R_TC disagree. @default false */
  disagreements?: boolean;
}

/** One line of the sample file. */
export interface LabelSampleLine {
  run: string;
  /** For the labeller to fill in: true (the target state is restored) or false. */
  restored: null;
  task: string;
  instruction: string;
  variant: string;
  budget: number;
  distance: number;
  history: string[];
  recovery: string[];
  target: string;
  error: string;
  recovered: string;
}

/** Draw and write the sample; returns its lines. */
export function writeLabelSample(options: LabelSampleOptions): LabelSampleLine[] {
  const evalDir = resolve(options.evalDir);
  const runsFile = join(evalDir, "runs.jsonl");
  const reportFile = join(evalDir, "recovery-eval.json");
  if (!existsSync(runsFile) || !existsSync(reportFile))
    throw new ConfigError(
      `label-sample: ${evalDir} holds no recovery evaluation (runs.jsonl and recovery-eval.json); run \`retrace eval-recovery\` first`,
      { field: "eval" },
    );
  const n = options.n ?? 50;
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigError(`label-sample --n: expected a positive integer, got ${n}`, { field: "n" });
  const report = JSON.parse(readFileSync(reportFile, "utf8")) as RecoveryEvalReport;
  const ds = loadRecoveryDataset(report.dataset);
  const samples = new Map(ds.samples.map((s) => [s.id, s]));
  const own = new BlobStore({ dir: join(evalDir, "blobs") });
  const theirs = new BlobStore({ dir: join(ds.dir, "blobs") });
  // The file as stored: a PNG, or a SimDesk screen's gzipped SVG (`.svgz`, any SVG viewer opens it).
  const file = (ref: string) => own.storedPath(ref) ?? theirs.storedPath(ref) ?? theirs.path(ref);
  const runs = readFileSync(runsFile, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RecoveryRun);
  let pool = runs.filter((r) => r.status === "judged" && r.verdict && r.recovered && samples.has(r.sampleId));
  if (options.disagreements) pool = pool.filter((r) => r.verdict!.ro.pass !== r.verdict!.rtc.pass);
  // a seeded Fisher-Yates draw of n runs, then back in evaluation order
  const rng = createRng(options.seed ?? 0, "label-sample");
  const idx = pool.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  const chosen = idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => pool[i]);
  const lines = chosen.map((run): LabelSampleLine => {
    const sample = samples.get(run.sampleId)!;
    const instruction = ds.tasks.get(run.taskId)?.instruction ?? "";
    const input = judgeInput(run, sample, instruction);
    return {
      run: runIdOf(run),
      restored: null,
      task: run.taskId,
      instruction,
      variant: run.variant,
      budget: run.budget,
      distance: run.distance,
      history: [...input.history],
      recovery: [...input.recovery],
      target: file(input.target.screenshot),
      error: file(input.error.screenshot),
      recovered: file(input.recovered.screenshot),
    };
  });
  writeTextAtomic(resolve(options.out), lines.map((l) => JSON.stringify(l)).join("\n") + (lines.length ? "\n" : ""));
  return lines;
}
