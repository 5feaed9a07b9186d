/**
 * "Do the paper's findings hold here?": the paper's qualitative findings checked against any run
 * folder's own numbers (simulated or model-backed), with one verdict rule everywhere
 * (./findings-verdict.ts): conditions share tasks and seeds, so claims are tested on paired
 * outcomes (McNemar's exact test); HOLDS only at p < 0.05 in the paper's direction.
 *
 * - Finding 1 (Section 4, ideal recovery): restoring to a past state beats a full reset (R=0) at
 *   K=1, paired by failed run (each strategy's continuation k=1 vs R=0's) - needs an
 *   ideal-recovery run with R=0 and at least one past-state strategy.
 * - Findings 2-4 (Section 5.3, recovery evaluation): from a recovery-eval.json, see
 *   ./findings-recovery.ts (Finding 4 needs several forward models and says so).
 * - Findings 5-6 (Section 6, end to end): ./findings-e2e.ts (which claim a pair gets comes from
 *   the recoverer its config gives it).
 *
 * A finding that cannot be judged is still listed (`holds: null`) with the reason; every judged
 * one says what it was computed from.
 */
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import type { EndToEndConfig } from "../config/schema.ts";
import { readResults, type ResultLine } from "../runner/results-log.ts";
import type { ExperimentSummary } from "../runner/summary.ts";
import type { RecoveryEvalReport } from "../recovery-eval/report-data.ts";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import { recoveryFindings } from "./findings-recovery.ts";
import { endToEndFindings } from "./findings-e2e.ts";
import { clusteredPairedVerdict, judged, outcomesOf, testText, weakest, type Finding } from "./findings-verdict.ts";
import { noiseText } from "./noise-text.ts";
import { annotationFailuresText } from "../ideal/facts.ts";
import { scoredInstances } from "../runner/scored-instances.ts";

/** What the findings are computed from. */
export interface FindingsInput {
  /** Summary of an ideal-recovery run (Finding 1). */
  ideal?: ExperimentSummary;
  /** Its results.jsonl lines (per-instance outcomes for the paired test). */
  idealLines?: readonly ResultLine[];
  /** Its frozen plan (how many failed runs the detector found no error in). */
  plan?: { instances: Array<{ fallback: boolean }> };
  /** Summary of an end-to-end run (Findings 5 and 6). */
  e2e?: ExperimentSummary;
  /** Its results.jsonl lines (per (task, seed) outcomes for the paired tests). */
  e2eLines?: readonly ResultLine[];
  /** Its config (manifest.json): the recoverer of each pair decides which Finding 6 claim applies. */
  e2eConfig?: EndToEndConfig;
  /** A recovery evaluation (Findings 2-4). */
  recovery?: RecoveryEvalReport;
  /** Its runs.jsonl: per-sample outcomes for the paired tests of Findings 2-3 (without them those are not judged). */
  recoveryRuns?: readonly RecoveryRun[];
}

const pct = (p: Proportion) => `${(100 * p.rate).toFixed(1)}%`;
export { noiseText };

const F1 =
  "Restoring to a past state beats a full reset at small K (Finding 1: every past-state strategy beats R=0 at K=1).";

/** Check the paper's findings against the given runs. */
export function computeFindings(input: FindingsInput): Finding[] {
  return [
    finding1(input.ideal, input.idealLines, input.plan),
    ...recoveryFindings(input.recovery, input.recoveryRuns),
    ...endToEndFindings(input.e2e, input.e2eLines, input.e2eConfig),
  ];
}

/**
 * Per failed run (`task/seed`, only those in `scored` when given): did any of continuations 1..K of `condition`
 * succeed?
 */
function successAtK(
  lines: readonly ResultLine[],
  condition: string,
  K: number,
  scored?: ReadonlySet<string>,
): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const l of lines) {
    const k = Number(l.extra?.k);
    if (l.condition !== condition || l.status !== "ok" || !(k <= K) || (scored && !scored.has(`${l.task}/${l.seed}`)))
      continue;
    const unit = `${l.task}/${l.seed}`;
    out.set(unit, (out.get(unit) ?? false) || l.success);
  }
  return out;
}

function finding1(
  ideal: ExperimentSummary | undefined,
  lines: readonly ResultLine[] | undefined,
  plan: FindingsInput["plan"],
): Finding {
  if (!ideal)
    return {
      claim: F1,
      holds: null,
      evidence: "cannot be judged: no ideal-recovery run in this folder (it needs Success@K per recovery step).",
    };
  const curves = ideal.successAtK ?? [];
  const zero = curves.find((c) => c.strategy === "zero");
  const others = curves.filter((c) => c.strategy !== "zero");
  if (!zero || others.length === 0)
    return {
      claim: F1,
      holds: null,
      evidence: "cannot be judged: the ideal-recovery run needs R=0 and at least one past-state strategy.",
    };
  if (zero.instances === 0)
    return {
      claim: F1,
      holds: null,
      evidence: "cannot be judged: no failed forward runs with a detected error to restore.",
    };
  if (!lines)
    return {
      claim: F1,
      holds: null,
      evidence: "cannot be judged: no results.jsonl to pair the continuations by failed run.",
    };
  const em1 = others.find((c) => c.strategy === "error-minus-1") ?? others[0];
  const a = em1.curve[0],
    b = zero.curve[0];
  const last = Math.min(em1.curve.length, zero.curve.length) - 1;
  const gap1 = a.rate - b.rate,
    gapK = em1.curve[last].rate - zero.curve[last].rate;
  const trend =
    gap1 <= 0
      ? "no lead to narrow"
      : gapK < 0
        ? "full resets catch up and overtake it"
        : gapK < gap1
          ? "the gap narrows"
          : "the gap does not narrow";
  // The failed runs the curves score (the paper's rule leaves out a run with fewer than K usable continuations in any
  // strategy).
  const scored = scoredInstances(lines, zero.curve.length, ideal.ideal?.incompleteInstances ?? "exclude");
  const zero1 = successAtK(lines, zero.condition, 1, scored);
  const verdicts = others.map((c) => ({
    c,
    v: clusteredPairedVerdict(successAtK(lines, c.condition, 1, scored), zero1),
  }));
  const w = weakest(verdicts.map((x) => x.v));
  const deciding = verdicts.find((x) => x.v === w)!;
  const fallback = plan ? plan.instances.filter((i) => i.fallback).length : 0;
  const failures = annotationFailuresText(ideal.ideal, others.find((c) => c.strategy === "llm")?.condition);
  return judged(
    F1,
    w,
    `Success@1: ${em1.condition} ${pct(a)} vs R=0 ${pct(b)} over ${em1.instances} failed runs; ${others.map((c) => `${c.condition} ${pct(c.curve[0])}`).join(", ")}. Weakest, ${deciding.c.condition} vs R=0: ${testText(w, deciding.c.condition, "R=0", "failed runs (continuation k=1 of each)")}. ${last === 0 ? "Only K=1 was run, so nothing is said about larger K." : `At K=${last + 1}: ${em1.condition} ${pct(em1.curve[last])} vs R=0 ${pct(zero.curve[last])} (${trend} as K grows).`}${plan ? ` E comes from the ${ideal.simulated ? "simulated " : ""}detector: ${fallback} of ${plan.instances.length} failed runs got no error from it and ${ideal.ideal?.noErrorFound === "last-step" ? "continued from E = their last step (noErrorFound: last-step, the paper's rule)" : "were left out of the continuations (noErrorFound: exclude)"}.` : ""}${failures ? ` ${failures}` : ""}${ideal.ideal ? ` Left out for a failed action replay: ${ideal.ideal.exclusions.replayFailed.continuations} continuations of ${ideal.ideal.exclusions.replayFailed.runs} failed runs; continuation budget: ${ideal.ideal.continuationBudget === "from-restore" ? `${ideal.ideal.maxForwardSteps} steps after R` : `${ideal.ideal.maxForwardSteps} steps in all, the replayed prefix included`}.` : ""} Computed from ${ideal.experiment}'s results.jsonl${ideal.simulated ? " (SIMULATED)" : ""}.`,
  );
}

/** A run folder's summary and its directory. */
export interface RunSummaryRef {
  dir: string;
  summary: ExperimentSummary;
}

/**
 * Findings for the runs of a folder: the first ideal-recovery run (with its plan.json), the first
 * end-to-end run and the first recovery evaluation (`recovery-eval.json` among `extras`, with the
 * runs.jsonl beside it when `root` locates it). Undefined when the folder has none of them.
 */
export function findingsForRuns(
  runs: readonly RunSummaryRef[],
  extras: ReadonlyArray<{ name: string; data: unknown; rel?: string }> = [],
  root?: string,
): { simulated: boolean; findings: Finding[] } | undefined {
  const ideal = runs.find((r) => r.summary.kind === "ideal-recovery");
  const e2e = runs.find((r) => r.summary.kind === "end-to-end");
  const linesOf = (dir: string) => [...readResults(join(dir, "results.jsonl")).values()];
  const manifest =
    e2e && existsSync(join(e2e.dir, "manifest.json"))
      ? readJsonFile<{ config?: EndToEndConfig }>(join(e2e.dir, "manifest.json"), {
          what: "manifest.json",
          prefix: "report: ",
        })
      : undefined;
  const recoveryExtra = extras.find(
    (e) =>
      (e.data as Partial<RecoveryEvalReport>)?.kind === "recovery-eval" &&
      Array.isArray((e.data as Partial<RecoveryEvalReport>).table),
  );
  const recovery = recoveryExtra?.data as RecoveryEvalReport | undefined;
  const runsFile =
    recoveryExtra?.rel !== undefined && root ? join(root, dirname(recoveryExtra.rel), "runs.jsonl") : undefined;
  const recoveryRuns = runsFile && existsSync(runsFile) ? readRecoveryRuns(runsFile) : undefined;
  if (!ideal && !e2e && !recovery) return undefined;
  const planFile = ideal ? join(ideal.dir, "plan.json") : undefined;
  const plan =
    planFile && existsSync(planFile)
      ? readJsonFile<FindingsInput["plan"]>(planFile, { what: "plan.json", prefix: "report: " })
      : undefined;
  return {
    simulated: [ideal, e2e].some((r) => r?.summary.simulated) || recovery?.simulated === true,
    findings: computeFindings({
      ideal: ideal?.summary,
      idealLines: ideal ? linesOf(ideal.dir) : undefined,
      plan,
      e2e: e2e?.summary,
      e2eLines: e2e ? linesOf(e2e.dir) : undefined,
      e2eConfig: manifest?.config?.kind === "end-to-end" ? manifest.config : undefined,
      recovery,
      recoveryRuns,
    }),
  };
}

/** Read a recovery evaluation's runs.jsonl (one RecoveryRun per line). */
export function readRecoveryRuns(file: string): RecoveryRun[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RecoveryRun);
}
