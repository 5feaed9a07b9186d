/**
 * Calibrate the rationale-similarity threshold of restorative intent (packages/evaluation/src/eval/rationale.ts)
 * against labelled episodes of a finished recovery evaluation (runs.jsonl files with `rationale`
 * scores). Label: an episode of an explicit recoverer (instructed to restore the target: the
 * paper's explicit recovery) is restorative, an implicit one (the forward policy continuing) is
 * not - the contrast the paper's Figure 6 draws. Score: the episode's best similarity to its
 * sample's ground-truth recovery instruction. Tasks are split in two by sorted id (alternating):
 * the threshold maximising Youden's J (TPR - FPR) on the first half is checked on the second.
 * Prints ROC AUC, the chosen threshold and TPR/FPR/balanced accuracy at it and at the current
 * default, on both halves.
 *
 *   npx tsx --conditions=retrace-dev experiments/scripts/calibrate-rationale.ts runs/oracle-agreement/noise-off/runs.jsonl [more runs.jsonl ...]
 */
import { readFileSync } from "node:fs";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import { DEFAULT_EMBEDDING_THRESHOLD, DEFAULT_TFIDF_THRESHOLD } from "@retrace-cua/evaluation/eval/rationale";

interface Point {
  score: number;
  positive: boolean;
  taskId: string;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write(
    "usage: calibrate-rationale.ts RUNS.jsonl [...] (runs of `retrace eval-recovery` with rationale scores)\n",
  );
  process.exit(2);
}
const points: Point[] = [];
let method = "";
let unscored = 0;
for (const f of files) {
  for (const line of readFileSync(f, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as RecoveryRun;
    if (r.status !== "judged") continue;
    if (!r.rationale || r.rationale.maxSimilarity === null) {
      unscored++;
      continue;
    }
    method ||= r.rationale.method;
    points.push({ score: r.rationale.maxSimilarity, positive: r.policyKind === "explicit", taskId: r.taskId });
  }
}
const tasks = [...new Set(points.map((p) => p.taskId))].sort();
const half = new Set(tasks.filter((_, i) => i % 2 === 0));
const calib = points.filter((p) => half.has(p.taskId));
const held = points.filter((p) => !half.has(p.taskId));

function rates(ps: readonly Point[], t: number) {
  const pos = ps.filter((p) => p.positive),
    neg = ps.filter((p) => !p.positive);
  const tpr = pos.filter((p) => p.score >= t).length / Math.max(1, pos.length);
  const fpr = neg.filter((p) => p.score >= t).length / Math.max(1, neg.length);
  return { tpr, fpr, balanced: (tpr + 1 - fpr) / 2, pos: pos.length, neg: neg.length };
}

/** Probability that a random positive scores above a random negative (ties count half). */
function auc(ps: readonly Point[]): number {
  const pos = ps.filter((p) => p.positive).map((p) => p.score),
    neg = ps.filter((p) => !p.positive).map((p) => p.score);
  let s = 0;
  for (const a of pos) for (const b of neg) s += a > b ? 1 : a === b ? 0.5 : 0;
  return s / Math.max(1, pos.length * neg.length);
}

const candidates = [...new Set(calib.map((p) => p.score))].sort((a, b) => a - b);
let best = { t: candidates[0] ?? 0, j: -Infinity };
for (const t of candidates) {
  const r = rates(calib, t);
  if (r.tpr - r.fpr > best.j) best = { t, j: r.tpr - r.fpr };
}
const current = method === "tfidf" ? DEFAULT_TFIDF_THRESHOLD : DEFAULT_EMBEDDING_THRESHOLD;
const fmt = (r: ReturnType<typeof rates>) =>
  `TPR ${r.tpr.toFixed(3)}  FPR ${r.fpr.toFixed(3)}  balanced accuracy ${r.balanced.toFixed(3)}`;
process.stdout.write(
  `${method}: ${points.length} scored episodes (${unscored} without a rationale), ${tasks.length} tasks split ${half.size} / ${tasks.length - half.size}\n`,
);
process.stdout.write(
  `calibration half: ${rates(calib, 0).pos} explicit / ${rates(calib, 0).neg} implicit, AUC ${auc(calib).toFixed(3)}; held-out half: ${rates(held, 0).pos} / ${rates(held, 0).neg}, AUC ${auc(held).toFixed(3)}\n`,
);
process.stdout.write(`best threshold on the calibration half (max TPR - FPR): ${best.t.toFixed(3)}\n`);
for (const [name, t] of [
  ["calibrated", best.t],
  ["current default", current],
] as const) {
  process.stdout.write(
    `  ${name.padEnd(16)} ${t.toFixed(3)}  calibration: ${fmt(rates(calib, t))} | held-out: ${fmt(rates(held, t))}\n`,
  );
}
