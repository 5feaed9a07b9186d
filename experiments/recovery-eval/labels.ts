/**
 * Human labels of recovery runs, for measuring the oracles against people (paper Table 1): a
 * JSONL file with one `{ "run": "<run id>", "restored": true | false }` per line (other fields,
 * such as the ones `retrace label-sample` writes for the labeller, are kept and ignored). A run id
 * is `<sample id>|<variant>|r<budget>` ({@link runIdOf}); it names one (sample, variant, r) run of
 * a recovery evaluation and is stable across re-runs of the same evaluation.
 *
 * Bad lines stop the load with one ConfigError naming the file and line; ids that match no run of
 * the evaluation are reported back, never silently dropped.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";

/** The stable id of a recovery run: `<sample id>|<variant>|r<budget>`. */
export function runIdOf(run: Pick<RecoveryRun, "sampleId" | "variant" | "budget">): string {
  return `${run.sampleId}|${run.variant}|r${run.budget}`;
}

/** One label line. */
export const LabelLineSchema = z.looseObject({
  /** A run id ({@link runIdOf}). */
  run: z.string().min(1, "give the run id"),
  /** Did the recovery restore the target state (as a person judges it)? */
  restored: z.boolean({
    error: (i) =>
      i.input === null || i.input === undefined
        ? "fill in restored: true or false (or delete the line)"
        : `restored must be true or false, not ${JSON.stringify(i.input)}`,
  }),
});

/** One human label. */
export interface RunLabel {
  run: string;
  restored: boolean;
  /** 1-based line in the labels file. */
  line: number;
}

/** Parse a labels file's text; `file` names it in errors. Blank lines are skipped. */
export function parseLabels(text: string, file: string): RunLabel[] {
  const labels: RunLabel[] = [];
  const seen = new Map<string, number>();
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (cause) {
      throw new ConfigError(
        `${file}:${line}: not valid JSON (${(cause as Error).message}); each line is {"run": "<run id>", "restored": true|false}`,
        { cause, field: "labels" },
      );
    }
    const r = LabelLineSchema.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0];
      const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
      throw new ConfigError(
        `${file}:${line}: ${where}${issue.path.length ? issue.message : 'expected an object {"run": "<run id>", "restored": true|false}'}`,
        { field: "labels" },
      );
    }
    const first = seen.get(r.data.run);
    if (first !== undefined)
      throw new ConfigError(
        `${file}:${line}: run "${r.data.run}" is already labelled on line ${first}; keep one label per run`,
        { field: "labels" },
      );
    seen.set(r.data.run, line);
    labels.push({ run: r.data.run, restored: r.data.restored, line });
  });
  if (labels.length === 0)
    throw new ConfigError(`${file}: no labels (expected JSONL lines {"run": "<run id>", "restored": true|false})`, {
      field: "labels",
    });
  return labels;
}

/** Read and parse a labels file. */
export function loadLabels(file: string): RunLabel[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    throw new ConfigError(
      `--labels: cannot read ${file}: ${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}`,
      { cause, field: "labels" },
    );
  }
  return parseLabels(text, file);
}

/** Labels matched to runs. */
export interface MatchedLabels {
  /** Judged runs with a label, the label in `truth`, in label-file order. */
  labelled: RecoveryRun[];
  /** Label ids that name no run of the evaluation. */
  unknown: string[];
  /** Labelled runs that were not judged (reconstruction failed, env or policy error): no oracle verdict to compare. */
  notJudged: string[];
}

/** Put each label on its run (as `truth`). */
export function matchLabels(runs: readonly RecoveryRun[], labels: readonly RunLabel[]): MatchedLabels {
  const byId = new Map(runs.map((r) => [runIdOf(r), r]));
  const out: MatchedLabels = { labelled: [], unknown: [], notJudged: [] };
  for (const l of labels) {
    const run = byId.get(l.run);
    if (!run) out.unknown.push(l.run);
    else if (run.status !== "judged" || !run.verdict) out.notJudged.push(l.run);
    else out.labelled.push({ ...run, truth: l.restored });
  }
  return out;
}
