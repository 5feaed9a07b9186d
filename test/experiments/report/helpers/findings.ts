/**
 * Fixtures of the findings tests (test/experiments/report/findings-*.test.ts): end-to-end summaries
 * and result lines of made-up runs, and recovery-evaluation reports and runs.
 */
import { wilsonInterval } from "../../../../packages/evaluation/src/metrics/wilson.ts";
import type { EndToEndConfig } from "../../../../experiments/config/schema.ts";
import type { ResultLine } from "../../../../experiments/runner/results-log.ts";
import type { ConditionSummary, ExperimentSummary } from "../../../../experiments/runner/summary.ts";
import type { RecoveryEvalReport } from "../../../../experiments/recovery-eval/report-data.ts";
import type { RecoveryRun } from "../../../../packages/evaluation/src/eval/run.ts";

export function cond(condition: string, successes: number, n: number, simulated = false): ConditionSummary {
  return {
    condition,
    params: {},
    episodes: n,
    envErrors: 0,
    success: wilsonInterval(successes, n),
    meanRecoveryAttempts: 0,
    meanRecoverySteps: 0,
    meanForwardSteps: 0,
    meanReplaySteps: 0,
    stepsPerEpisode: 0,
    stepsPerSuccess: null,
    costPerEpisode: 0,
    costPerSuccess: null,
    tokensPerEpisode: 0,
    stability: {
      trajectories: 0,
      sources: [],
      deviationRate: 0,
      loopIncidence: 0,
      loopBurden: null,
      recoveryAbility: null,
      eligibleForRecovery: 0,
      avgRecoveryLength: null,
    },
    simulated,
  };
}

export function e2e(conditions: ConditionSummary[], simulated = false): ExperimentSummary {
  return { experiment: "model-e2e", kind: "end-to-end", simulated, note: "", episodes: 0, envErrors: 0, conditions };
}

/** Result lines of one condition: unit i (task t<i>, seed 0) succeeded when `won(i)`. */
export function linesOf(condition: string, n: number, won: (i: number) => boolean): ResultLine[] {
  return Array.from(
    { length: n },
    (_, i) =>
      ({
        key: `${condition}/t${i}/0`,
        index: i,
        experiment: "model-e2e",
        condition,
        task: `t${i}`,
        seed: 0,
        status: "ok",
        success: won(i),
        score: won(i) ? 1 : 0,
        stopReason: "done",
        envTries: 1,
        simulated: false,
        forwardSteps: 3,
        recoverySteps: 0,
        replaySteps: 0,
        recoveryAttempts: 0,
        detectorCalls: 0,
        policyFailures: 0,
        tokens: 0,
        costUsd: 0,
        stability: null,
        prompts: [],
      }) as ResultLine,
  );
}
/** Summary condition and lines together: the first `successes` units succeed. */
export function run(condition: string, successes: number, n: number): { c: ConditionSummary; lines: ResultLine[] } {
  return { c: cond(condition, successes, n), lines: linesOf(condition, n, (i) => i < successes) };
}
export function e2eInput(runs: Array<{ c: ConditionSummary; lines: ResultLine[] }>, config?: EndToEndConfig) {
  return {
    e2e: e2e(runs.map((r) => r.c)),
    e2eLines: runs.flatMap((r) => r.lines),
    ...(config ? { e2eConfig: config } : {}),
  };
}
export const sim = (profile: string) => ({ kind: "sim", profile });

export function evalReport(
  rows: Array<
    [
      policy: "implicit" | "explicit",
      variant: string,
      r: number,
      d: number,
      n: number,
      success: number,
      simIntent: number,
    ]
  >,
  simulated = false,
): RecoveryEvalReport {
  return {
    kind: "recovery-eval",
    simulated,
    note: "",
    label: "",
    dataset: "ds",
    datasetVersion: "v",
    samples: 40,
    recoveryBudget: "1,3",
    threshold: 0.99,
    rationaleMethod:
      "tfidf, restorative when the best similarity >= 0.09; keyword classifier as the baseline (restorativeIntent)",
    table: rows.map(([policy, variant, r, d, n, success, simIntent]) => ({
      policy,
      variant,
      context: "0-E",
      r,
      d,
      n,
      success,
      successCi: "",
      successLo: 0,
      successHi: 1,
      ro: success,
      rtc: success,
      restorativeIntent: 1,
      intentCi: "",
      intentN: n,
      rationaleSimilarity: 0.2,
      similarityIntent: simIntent,
      similarityIntentCi: `x (n=${n})`,
      meanSteps: 1,
      excluded: 0,
    })),
    implicitVsExplicit: [],
    trajectoryStages: [],
    datasetStages: [],
  };
}

/** Runs of one variant at one budget over samples s0..s(n-1): success and (scored) restorative intent per sample. */
export function evalRuns(
  variant: string,
  policyKind: "implicit" | "explicit",
  budget: number,
  n: number,
  success: (i: number) => boolean,
  intent: (i: number) => boolean = () => false,
): RecoveryRun[] {
  return Array.from(
    { length: n },
    (_, i) =>
      ({
        sampleId: `s${i}`,
        taskId: `t${i}`,
        distance: 1,
        variant,
        policyKind,
        context: "0-E",
        budget,
        status: "judged",
        stepsUsed: 1,
        declaredDone: true,
        actions: [],
        rationales: [],
        intent: { judged: 1, restorative: intent(i) ? 1 : 0, intent: intent(i) },
        rationale: { maxSimilarity: 0.2, restorative: intent(i) },
        verdict: { success: success(i), ro: { pass: success(i) }, rtc: { pass: success(i) } },
        simulated: false,
      }) as unknown as RecoveryRun,
  );
}
export const inSet =
  (...xs: number[]) =>
  (i: number) =>
    xs.includes(i);
export const range = (a: number, b: number) => (i: number) => i >= a && i < b;
