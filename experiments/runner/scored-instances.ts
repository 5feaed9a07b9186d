/**
 * Which failed runs of an ideal-recovery run Success@K scores (paper App. B.1: "after excluding
 * instances where action replay fails"): shared by summary.json's curves, its exclusion counts
 * and Finding 1's paired test, so all three count the same instances.
 */
import type { IncompleteInstances } from "@retrace-cua/evaluation/metrics/success-at-k";
import type { ResultLine } from "./results-log.ts";

/** Continuation lines (every status) per condition and failed run (`task/seed`). */
export function continuationOutcomes(lines: readonly ResultLine[]): Map<string, Map<string, ResultLine[]>> {
  const byCondition = new Map<string, Map<string, ResultLine[]>>();
  for (const l of lines) {
    if (l.extra?.phase !== "continuation") continue;
    const inst = byCondition.get(l.condition) ?? new Map<string, ResultLine[]>();
    const key = `${l.task}/${l.seed}`;
    inst.set(key, [...(inst.get(key) ?? []), l]);
    byCondition.set(l.condition, inst);
  }
  return byCondition;
}

/**
 * The failed runs (`task/seed`) that Success@K scores: under `exclude` (the paper's rule) those
 * with K usable continuations in every strategy that continued them; under `score-available`,
 * undefined (each strategy scores whatever it has). `byCondition`: the lines already grouped by
 * {@link continuationOutcomes}, when the caller has them.
 */
export function scoredInstances(
  lines: readonly ResultLine[],
  K: number,
  rule: IncompleteInstances = "exclude",
  byCondition = continuationOutcomes(lines),
): Set<string> | undefined {
  if (rule !== "exclude") return undefined;
  const all = new Set<string>();
  const incomplete = new Set<string>();
  for (const inst of byCondition.values())
    for (const [key, g] of inst) {
      all.add(key);
      if (g.filter((l) => l.status === "ok").length < K) incomplete.add(key);
    }
  return new Set([...all].filter((k) => !incomplete.has(k)));
}
