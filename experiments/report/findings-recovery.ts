/**
 * The paper's recovery-evaluation findings (Section 5.3) checked against a `recovery-eval.json`
 * (simulated or model-backed), in the same noise language as ./findings.ts:
 *
 * - Finding 2: forward policies rarely restore a past state on their own and rarely even aim to -
 *   the implicit policy's rationales are less similar to the ground-truth recovery instruction
 *   than the explicit recoverer's (the paper's Figure 6), and its success is reported beside;
 * - Finding 3: explicit recovery beats implicit recovery - pooled over every (d, r) where both
 *   ran, the paper's average margin is 17.86 points;
 * - Finding 4: post-trained specialists gain less from explicit instructions than generalists -
 *   needs several forward models labelled by kind, which one evaluation never has: listed as not
 *   judgeable with that reason.
 *
 * The explicit side is the recoverer the report's implicit-vs-explicit table pairs with the
 * implicit one (context 0-E; the skilled simulated recoverer, else the first). Verdicts follow
 * the one rule of ./findings-verdict.ts; recovery-eval.json pools its runs per (d, r), so the
 * test here is the unpaired two-proportion test, and the evidence says so.
 */
import { twoProportionPValue, wilsonInterval, type Proportion } from "../../src/metrics/wilson.ts";
import type { RecoveryEvalReport, RecoveryTableJsonRow } from "../recovery-eval/report-data.ts";
import { judged, unpairedVerdict, type Finding } from "./findings-verdict.ts";
import { noiseText } from "./noise-text.ts";

const F2 = "Forward policies rarely restore a past state on their own, and their rationales rarely aim at it (Finding 2).";
const F3 = "Explicit recovery instructions beat implicit recovery (Finding 3).";
const F4 = "Post-trained specialists gain less from explicit recovery than generalist agents (Finding 4).";

const pct = (p: Proportion) => `${(100 * p.rate).toFixed(1)}%`;
const nOf = (ci: string | undefined, fallback: number) => Number(/\(n=(\d+)\)\s*$/.exec(ci ?? "")?.[1] ?? fallback);

/** Pool rows: successes of `rate` over `n` (counts are recovered from the rounded rates). */
function pool(rows: readonly RecoveryTableJsonRow[], rate: (r: RecoveryTableJsonRow) => number, n: (r: RecoveryTableJsonRow) => number): Proportion {
  let s = 0, total = 0;
  for (const r of rows) {
    const k = n(r);
    s += Math.round(rate(r) * k);
    total += k;
  }
  return wilsonInterval(s, total);
}

/** Implicit rows and their explicit partners (same d and r). */
function pairedRows(report: RecoveryEvalReport): { implicit: RecoveryTableJsonRow[]; explicit: RecoveryTableJsonRow[]; variant?: string } {
  const implicit: RecoveryTableJsonRow[] = [];
  const explicit: RecoveryTableJsonRow[] = [];
  let variant: string | undefined;
  for (const imp of report.table.filter((r) => r.policy === "implicit" && r.n > 0)) {
    const same = report.table.filter((r) => r.policy === "explicit" && r.context === "0-E" && r.r === imp.r && r.d === imp.d && r.n > 0);
    const exp = same.find((r) => r.variant.includes("skilled")) ?? same[0];
    if (!exp) continue;
    implicit.push(imp);
    explicit.push(exp);
    variant ??= exp.variant;
  }
  return { implicit, explicit, variant };
}

/** Findings 2-4 for one recovery evaluation (undefined input: each says why it cannot be judged). */
export function recoveryFindings(report: RecoveryEvalReport | undefined): Finding[] {
  if (!report) {
    const why = "cannot be judged: no recovery evaluation (recovery-eval.json) in this folder; run `retrace eval-recovery`.";
    return [{ claim: F2, holds: null, evidence: why }, { claim: F3, holds: null, evidence: why }, { claim: F4, holds: null, evidence: "cannot be judged: it needs recovery evaluations of several forward models labelled generalist or post-trained." }];
  }
  const { implicit, explicit, variant } = pairedRows(report);
  const sim = report.simulated ? " (SIMULATED policies)" : "";
  const out: Finding[] = [];
  if (implicit.length === 0) {
    const why = "cannot be judged: the evaluation has no implicit variant with an explicit 0-E recoverer at the same d and r.";
    out.push({ claim: F2, holds: null, evidence: why }, { claim: F3, holds: null, evidence: why });
  } else {
    // Finding 2 at the largest budget (the policy's best chance), pooled over d.
    const rMax = Math.max(...implicit.map((r) => r.r));
    const at = (rows: RecoveryTableJsonRow[]) => rows.filter((r) => r.r === rMax);
    const scored = !/keyword classifier only/.test(report.rationaleMethod) && implicit.some((r) => r.rationaleSimilarity !== null);
    const intentOf = scored
      ? (rows: RecoveryTableJsonRow[]) => pool(at(rows), (r) => r.similarityIntent, (r) => nOf(r.similarityIntentCi, r.n))
      : (rows: RecoveryTableJsonRow[]) => pool(at(rows), (r) => r.restorativeIntent, (r) => r.intentN);
    const ii = intentOf(implicit), ei = intentOf(explicit);
    const is = pool(at(implicit), (r) => r.success, (r) => r.n);
    const how = scored ? `rationales similar to the ground-truth recovery instruction (${report.rationaleMethod.split(";")[0]})` : "restorative rationales by the keyword classifier (no similarity scoring in this run)";
    if (ii.n === 0 || ei.n === 0) out.push({ claim: F2, holds: null, evidence: `cannot be judged: no rationales were scored at r=${rMax} (the policies gave none).` });
    else {
      const p = twoProportionPValue(ii, ei);
      out.push(judged(F2, unpairedVerdict(ei, ii, p), `At r=${rMax}${sim}: implicit recovery succeeded in ${pct(is)} of ${is.n} runs; ${how}: implicit ${pct(ii)} of ${ii.n} episodes vs explicit ${variant} ${pct(ei)} of ${ei.n} (${noiseText(p)}; two-proportion z test, unpaired: recovery-eval.json keeps no per-sample outcomes).`));
    }
    const a = pool(implicit, (r) => r.success, (r) => r.n), b = pool(explicit, (r) => r.success, (r) => r.n);
    const gains = implicit.map((imp, i) => explicit[i].success - imp.success);
    const mean = gains.reduce((s, g) => s + g, 0) / gains.length;
    const p = twoProportionPValue(b, a);
    out.push(judged(F3, unpairedVerdict(b, a, p), `Pooled over ${implicit.length} (d, r) settings${sim}: explicit ${variant} ${pct(b)} vs implicit ${pct(a)} of ${a.n} runs each (${noiseText(p)}; two-proportion z test, unpaired: recovery-eval.json keeps no per-sample outcomes); mean margin ${(100 * mean).toFixed(1)} points (the paper: 17.86), ${gains.filter((g) => g > 0).length} of ${gains.length} settings favour explicit.`));
  }
  out.push({ claim: F4, holds: null, evidence: `cannot be judged from one evaluation: it compares forward models labelled generalist vs post-trained (this one evaluates "${report.label || "one policy"}").` });
  return out;
}
