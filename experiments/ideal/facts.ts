/**
 * What summary.json says about an ideal-recovery run's instances (paper App. B.1): the rule for
 * failed runs the detector finds no error in, what the continuation budget bounds, and how many
 * failed runs or continuations were left out, by reason.
 */
import type { IncompleteInstances } from "@retrace-cua/evaluation/metrics/success-at-k";
import type { IdealRecoveryConfig } from "../config/schema.ts";
import type { ResultLine } from "../runner/results-log.ts";
import type { RunPlan } from "./plan.ts";
import { scoredInstances } from "../runner/scored-instances.ts";

/** Condition id of the standard forward rollouts. */
export const FORWARD_CONDITION = "forward";

/** Why failed runs of an ideal-recovery run were or were not continued, with counts (summary.json `ideal`). */
export interface IdealRunFacts {
  /** The rule for failed runs without a detected error (config `noErrorFound`). */
  noErrorFound: "last-step" | "exclude";
  /** What the step budget bounds in a continuation (config `continuationBudget`). */
  continuationBudget: "from-restore" | "total";
  /** The Success@K rule for failed runs with fewer than K usable continuations (config `incompleteInstances`). */
  incompleteInstances: IncompleteInstances;
  maxForwardSteps: number;
  /** Failed forward runs annotated (plan.json). */
  failedRuns: number;
  /** Failed runs continued from at least one strategy. */
  continued: number;
  /**
   * Annotation failures (plan.json): failed runs whose detector failed (E = the last step for that
   * reason; they are among `exclusions.noErrorFound`), and failed runs whose selector failed, of
   * those the selector was asked about (R=LLM is then the fail-safe E-1, not the selector's choice).
   */
  annotationFailures: { detector: number; selector: number; selectorAsked: number };
  exclusions: {
    /**
     * Failed runs without a detected error step (the detector saw none or failed): how many, and how many of them were
     * left out.
     */
    noErrorFound: { runs: number; excluded: number };
    /**
     * Continuations whose action replay never reproduced o_R (left out of Success@K, as in App. B.1), and the failed
     * runs they belong to.
     */
    replayFailed: { continuations: number; runs: number };
    /** Continuations lost to other environment errors after every retry (left out of Success@K). */
    envErrors: { continuations: number; runs: number };
    /**
     * Failed runs left out of every strategy's Success@K because some strategy has fewer than K usable continuations of
     * them (`incompleteInstances: exclude`; 0 under `score-available`).
     */
    incomplete: { runs: number };
  };
}

/** One line on the annotation failures ("" when there were none), for the console, the report and Finding 1. */
export function annotationFailuresText(
  facts: Pick<IdealRunFacts, "annotationFailures" | "failedRuns"> | undefined,
  llmLabel = "R=LLM",
): string {
  const a = facts?.annotationFailures;
  if (!a || (a.detector === 0 && a.selector === 0)) return "";
  const parts = [
    ...(a.detector > 0
      ? [
          `the detector failed on ${a.detector} of ${facts!.failedRuns} failed runs (E = their last step, counted among those without a detected error)`,
        ]
      : []),
    ...(a.selector > 0
      ? [
          `the selector failed on ${a.selector} of ${a.selectorAsked} (${llmLabel} used its fail-safe E-1 there, not a choice)`,
        ]
      : []),
  ];
  return `Annotation failures: ${parts.join("; ")}.`;
}

/** The exclusion counts of a finished ideal-recovery run. */
export function idealRunFacts(
  config: IdealRecoveryConfig,
  plan: Pick<RunPlan, "instances"> | undefined,
  lines: readonly ResultLine[],
): IdealRunFacts {
  const instances = plan?.instances ?? [];
  const noError = instances.filter((i) => i.fallback).length;
  const cont = lines.filter((l) => l.condition !== FORWARD_CONDITION);
  const failed = cont.filter((l) => l.status === "env-error" && (l.replayDesyncs ?? 0) > 0);
  const other = cont.filter((l) => l.status === "env-error" && !((l.replayDesyncs ?? 0) > 0));
  const runsOf = (ls: readonly ResultLine[]) => new Set(ls.map((l) => `${l.task}/${l.seed}`)).size;
  const continued = new Set(cont.map((l) => `${l.task}/${l.seed}`));
  return {
    noErrorFound: config.noErrorFound,
    continuationBudget: config.continuationBudget,
    incompleteInstances: config.incompleteInstances,
    maxForwardSteps: config.options.maxForwardSteps ?? 50,
    failedRuns: instances.length,
    continued: continued.size,
    annotationFailures: {
      detector: instances.filter((i) => i.detectorFailure).length,
      selector: instances.filter((i) => i.selectorFailure).length,
      selectorAsked: instances.filter((i) => i.recoveryStep.llm !== undefined).length,
    },
    exclusions: {
      noErrorFound: { runs: noError, excluded: config.noErrorFound === "exclude" ? noError : 0 },
      replayFailed: { continuations: failed.length, runs: runsOf(failed) },
      envErrors: { continuations: other.length, runs: runsOf(other) },
      incomplete: {
        runs:
          config.incompleteInstances === "exclude"
            ? continued.size - (scoredInstances(lines, config.k, "exclude")?.size ?? continued.size)
            : 0,
      },
    },
  };
}
