/**
 * Tables from recovery runs: recovery success per policy x context x r x d with Wilson intervals
 * (the paper's Figures 4/5/7), the rate of restorative intent (Table 8), and the agreement of the
 * oracle's parts with ground truth (R_O alone, R_TC alone, both), with false-positive and
 * false-negative rates.
 */
import { wilsonInterval, type Proportion } from "../metrics/wilson.ts";
import type { RecoveryContextKind } from "@retrace-cua/core/recovery";
import type { RecoveryRun } from "./run.ts";

/** One cell of the recovery table. */
export interface RecoveryTableRow {
  variant: string;
  policyKind: "implicit" | "explicit";
  context: RecoveryContextKind;
  budget: number;
  distance: number;
  /** Runs counted: judged ones (of samples judged in every variant, with `samples: "common"`). */
  n: number;
  /**
   * Runs left out: not judged (reconstruction failure, environment or policy error) or, with `samples: "common"`, of a
   * sample some other variant could not judge.
   */
  excluded: number;
  /** R = R_TC AND R_O. */
  success: Proportion;
  ro: Proportion;
  rtc: Proportion;
  /** Keyword baseline: episodes with at least one restorative rationale, among episodes with a judged rationale. */
  intent: Proportion;
  /** Mean best similarity of the rationales to the ground-truth recovery instruction (null when not scored). */
  similarity: number | null;
  /** Episodes whose best similarity reaches the scorer's threshold, among scored episodes. */
  similarityIntent: Proportion;
  /** Mean recovery steps used. */
  meanSteps: number;
}

/**
 * Which runs a recovery table counts:
 * - "common" (the paper's, App. A.2 "Recovery Verification": "we exclusively sample tasks that
 *   are consistently executable across all variants"): only samples judged in every variant and
 *   budget run at their distance, so every row of a distance counts the same samples;
 * - "per-row": each row counts its own judged runs (a sample that failed to reconstruct for one
 *   variant still counts in the others; rows then compare different sample sets).
 */
export const SAMPLE_SELECTIONS = ["common", "per-row"] as const;
export type SampleSelection = (typeof SAMPLE_SELECTIONS)[number];

/**
 * The samples judged in every (variant, budget) seen at their distance: a sample with a run that
 * was not judged, or with no run at all for some variant or budget, is left out.
 */
export function commonSamples(runs: readonly RecoveryRun[]): Set<string> {
  const cellsByDistance = new Map<number, Set<string>>();
  const judgedBySample = new Map<string, { distance: number; cells: Set<string>; failed: boolean }>();
  for (const r of runs) {
    const cell = `${r.variant}\u0000${r.budget}`;
    let cells = cellsByDistance.get(r.distance);
    if (!cells) cellsByDistance.set(r.distance, (cells = new Set()));
    cells.add(cell);
    const key = `${r.distance}\u0000${r.sampleId}`;
    let s = judgedBySample.get(key);
    if (!s) judgedBySample.set(key, (s = { distance: r.distance, cells: new Set(), failed: false }));
    if (r.status === "judged" && r.verdict) s.cells.add(cell);
    else s.failed = true;
  }
  const out = new Set<string>();
  for (const [key, s] of judgedBySample) {
    if (!s.failed && s.cells.size === cellsByDistance.get(s.distance)!.size) out.add(key);
  }
  return out;
}

/**
 * Group runs by (variant, r, d) in first-seen order and compute the table. `samples` chooses the
 * runs counted (see {@link SAMPLE_SELECTIONS}); `excluded` counts a row's runs left out.
 */
export function recoveryTable(
  runs: readonly RecoveryRun[],
  options: { samples?: SampleSelection } = {},
): RecoveryTableRow[] {
  const common = (options.samples ?? "common") === "common" ? commonSamples(runs) : undefined;
  const counted = (r: RecoveryRun) =>
    r.status === "judged" && !!r.verdict && (!common || common.has(`${r.distance}\u0000${r.sampleId}`));
  const groups = new Map<string, RecoveryRun[]>();
  for (const r of runs) {
    const key = `${r.variant}\u0000${r.budget}\u0000${r.distance}`;
    const g = groups.get(key);
    if (g) g.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.values()].map((g) => {
    const judged = g.filter(counted);
    const withIntent = judged.filter((r) => r.intent.intent !== null);
    return {
      variant: g[0].variant,
      policyKind: g[0].policyKind,
      context: g[0].context,
      budget: g[0].budget,
      distance: g[0].distance,
      n: judged.length,
      excluded: g.length - judged.length,
      success: count(judged, (r) => r.verdict!.success),
      ro: count(judged, (r) => r.verdict!.ro.pass),
      rtc: count(judged, (r) => r.verdict!.rtc.pass),
      intent: count(withIntent, (r) => r.intent.intent === true),
      ...similarityOf(judged),
      meanSteps: judged.length === 0 ? 0 : judged.reduce((s, r) => s + r.stepsUsed, 0) / judged.length,
    };
  });
}

function similarityOf(judged: readonly RecoveryRun[]): { similarity: number | null; similarityIntent: Proportion } {
  const scored = judged.filter((r) => r.rationale && r.rationale.maxSimilarity !== null);
  return {
    similarity:
      scored.length === 0 ? null : scored.reduce((s, r) => s + r.rationale!.maxSimilarity!, 0) / scored.length,
    similarityIntent: count(scored, (r) => r.rationale!.restorative === true),
  };
}

function count<T>(items: readonly T[], pred: (x: T) => boolean): Proportion {
  return wilsonInterval(items.filter(pred).length, items.length);
}

/**
 * The oracles and joins retrace measures: the paper's R_O, R_TC and R_O AND R_TC, then the masked R_Om (beyond the
 * paper).
 */
export type OracleName =
  "R_O" | "R_TC" | "R_O AND R_TC" | "R_Om" | "R_Om AND R_TC" | "R_Om (mean only)" | "R_Om (mean only) AND R_TC";

/** Agreement of one oracle with ground truth (or human labels). "Positive" = judged a successful recovery. */
export interface OracleAgreement {
  /** One of {@link OracleName}, or a baseline's name (e.g. "LLM judge"). */
  oracle: OracleName | (string & {});
  n: number;
  truePositive: number;
  falsePositive: number;
  trueNegative: number;
  falseNegative: number;
  /** (TP + TN) / n with a Wilson interval. */
  agreement: Proportion;
  /** FP / (FP + TN): says recovered when the state truly differs. */
  falsePositiveRate: Proportion;
  /** FN / (FN + TP): says failed when the state truly matches. */
  falseNegativeRate: Proportion;
  /** Cohen's kappa against the truth (null when undefined: no records, or both raters constant and equal). */
  kappa: number | null;
  /** 95% interval of kappa from Cohen's (1960) large-sample standard error, clipped to [-1, 1] (null with kappa). */
  kappaCi: { lo: number; hi: number } | null;
}

/**
 * The oracles that apply to `judged` runs, with what each says about a run: R_O, R_TC and their
 * conjunction; R_Om and R_Om AND R_TC when every run has a masked verdict; the mean-only R_Om (no
 * local floor) and its conjunction with R_TC when every verdict records it.
 */
export function oraclesFor(judged: readonly RecoveryRun[]): Array<[OracleName, (r: RecoveryRun) => boolean]> {
  const oracles: Array<[OracleName, (r: RecoveryRun) => boolean]> = [
    ["R_O", (r) => r.verdict!.ro.pass],
    ["R_TC", (r) => r.verdict!.rtc.pass],
    ["R_O AND R_TC", (r) => r.verdict!.success],
  ];
  if (judged.length > 0 && judged.every((r) => r.verdict!.rom)) {
    oracles.push(["R_Om", (r) => r.verdict!.rom!.pass], ["R_Om AND R_TC", (r) => r.verdict!.maskedSuccess === true]);
    if (
      judged.every((r) => typeof r.verdict!.rom!.meanPass === "boolean" && r.verdict!.rom!.localFloor !== undefined)
    ) {
      oracles.push(
        ["R_Om (mean only)", (r) => r.verdict!.rom!.meanPass],
        ["R_Om (mean only) AND R_TC", (r) => r.verdict!.rom!.meanPass && r.verdict!.rtc.pass],
      );
    }
  }
  return oracles;
}

/**
 * Agreement of every applicable oracle ({@link oraclesFor}) with the `truth` of judged runs that
 * carry one (SimDesk's ground truth, or a human label put in `truth`).
 */
export function oracleAgreement(runs: readonly RecoveryRun[]): OracleAgreement[] {
  const judged = runs.filter((r) => r.status === "judged" && r.verdict && r.truth !== undefined);
  return oraclesFor(judged).map(([oracle, says]) => agreementOf(oracle, judged, says));
}

/**
 * One oracle's agreement with the truth over `records`: confusion counts, Wilson intervals, Cohen's kappa with its
 * interval.
 */
export function agreementOf<R extends { truth?: boolean | null }>(
  oracle: OracleAgreement["oracle"],
  records: readonly R[],
  says: (r: R) => boolean,
): OracleAgreement {
  const { n, tp, fp, tn, fn, agreement, fpr, fnr } = confusion(records, says);
  const k = cohenKappa(tp, fp, tn, fn);
  return {
    oracle,
    n,
    truePositive: tp,
    falsePositive: fp,
    trueNegative: tn,
    falseNegative: fn,
    agreement,
    falsePositiveRate: fpr,
    falseNegativeRate: fnr,
    kappa: k?.kappa ?? null,
    kappaCi: k ? { lo: k.lo, hi: k.hi } : null,
  };
}

/** A verdict's confusion counts against the truth over `records`, with Wilson intervals of agreement, FPR and FNR. */
export function confusion<R extends { truth?: boolean | null }>(records: readonly R[], says: (r: R) => boolean) {
  let tp = 0,
    fp = 0,
    tn = 0,
    fn = 0;
  for (const r of records) {
    const s = says(r);
    if (s && r.truth) tp++;
    else if (s) fp++;
    else if (r.truth) fn++;
    else tn++;
  }
  return {
    n: records.length,
    tp,
    fp,
    tn,
    fn,
    agreement: wilsonInterval(tp + tn, records.length),
    fpr: wilsonInterval(fp, fp + tn),
    fnr: wilsonInterval(fn, fn + tp),
  };
}

/**
 * Cohen's kappa of two binary raters from their 2 x 2 table (tp = both yes, fp = rater yes / truth
 * no, fn = rater no / truth yes, tn = both no): (p_o - p_e) / (1 - p_e), with a 95% interval from
 * Cohen's (1960) large-sample standard error sqrt(p_o (1 - p_o) / (n (1 - p_e)^2)), clipped to
 * [-1, 1]. Null when n = 0 or p_e = 1 (both raters said the same one thing every time).
 */
export function cohenKappa(
  tp: number,
  fp: number,
  tn: number,
  fn: number,
): { kappa: number; lo: number; hi: number; se: number } | null {
  const n = tp + fp + tn + fn;
  if (n === 0) return null;
  const po = (tp + tn) / n;
  const pe = ((tp + fp) / n) * ((tp + fn) / n) + ((tn + fn) / n) * ((tn + fp) / n);
  if (pe === 1) return null;
  const kappa = (po - pe) / (1 - pe);
  const se = Math.sqrt((po * (1 - po)) / (n * (1 - pe) ** 2));
  return { kappa, se, lo: Math.max(-1, kappa - 1.959964 * se), hi: Math.min(1, kappa + 1.959964 * se) };
}
