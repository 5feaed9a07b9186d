/**
 * Success@K's denominator (paper App. B.1: "after excluding instances where action replay
 * fails"): a failed run with fewer than K usable continuations in any strategy is left out of
 * every strategy's curve by default; `incompleteInstances: score-available` keeps the earlier
 * rule (each strategy scores what it has), labelled in summary.json.
 */
import { describe, expect, it } from "vitest";
import { successAtK, successAtKCurve } from "../../../packages/evaluation/src/metrics/success-at-k.ts";
import type { ResultLine } from "../../../experiments/runner/results-log.ts";
import { summarize } from "../../../experiments/runner/summary.ts";
import { scoredInstances } from "../../../experiments/runner/scored-instances.ts";

/** A continuation line: `ok: false` is a continuation whose action replay failed (env-error). */
function line(condition: string, strategy: string, task: string, k: number, success: boolean, ok = true): ResultLine {
  return {
    key: `${condition}/${task}/0/k${k}`,
    index: 0,
    experiment: "x",
    condition,
    task,
    seed: 0,
    status: ok ? "ok" : "env-error",
    success: ok && success,
    score: ok && success ? 1 : 0,
    stopReason: "done",
    envTries: 1,
    simulated: true,
    forwardSteps: 3,
    recoverySteps: 0,
    replaySteps: 2,
    ...(ok ? {} : { replayDesyncs: 1 }),
    recoveryAttempts: 0,
    detectorCalls: 0,
    policyFailures: 0,
    tokens: 0,
    costUsd: 0,
    stability: null,
    prompts: [],
    extra: { phase: "continuation", strategy, k, recoveryStep: strategy === "zero" ? 0 : 2 },
  } as ResultLine;
}

// Three failed runs, K = 2. R=0 never replays; R=E-1's replay failed once on run "b", which
// R=E-1 would otherwise have scored on its one remaining continuation (a success).
const lines: ResultLine[] = [
  line("R=0", "zero", "a", 1, false),
  line("R=0", "zero", "a", 2, false),
  line("R=0", "zero", "b", 1, false),
  line("R=0", "zero", "b", 2, false),
  line("R=0", "zero", "c", 1, true),
  line("R=0", "zero", "c", 2, false),
  line("R=E-1", "error-minus-1", "a", 1, true),
  line("R=E-1", "error-minus-1", "a", 2, false),
  line("R=E-1", "error-minus-1", "b", 1, false, false),
  line("R=E-1", "error-minus-1", "b", 2, true),
  line("R=E-1", "error-minus-1", "c", 1, false),
  line("R=E-1", "error-minus-1", "c", 2, false),
];

describe("Success@K excludes whole instances, as the paper does", () => {
  it("leaves out an instance with fewer than K usable continuations by default, and scores it on what it has under score-available", () => {
    const inst = [[true, false], [true], [false, false]];
    expect(successAtK(inst, 2)).toMatchObject({ successes: 1, n: 2 });
    expect(successAtK(inst, 2, { incomplete: "score-available" })).toMatchObject({ successes: 2, n: 3 });
    // one denominator along the whole curve: the short instance is out at K = 1 too
    expect(successAtKCurve(inst, 2).map((p) => p.n)).toEqual([2, 2]);
    expect(successAtKCurve(inst, 2, { incomplete: "score-available" }).map((p) => p.n)).toEqual([3, 3]);
  });

  it("gives every strategy the same failed runs: a run whose replay failed in one strategy leaves every curve", () => {
    expect([...scoredInstances(lines, 2)!].sort()).toEqual(["a", "c"].map((t) => `${t}/0`));
    const s = summarize({ experiment: "x", kind: "ideal-recovery", lines, maxK: 2 });
    const by = Object.fromEntries(s.successAtK!.map((c) => [c.condition, c]));
    expect(by["R=0"]).toMatchObject({ instances: 2, excluded: 1 });
    expect(by["R=E-1"]).toMatchObject({ instances: 2, excluded: 1 });
    expect(by["R=0"].curve.map((p) => p.successes)).toEqual([1, 1]);
    expect(by["R=E-1"].curve.map((p) => p.successes)).toEqual([1, 1]);
  });

  it("keeps the earlier per-strategy denominators under incompleteInstances: score-available", () => {
    const s = summarize({
      experiment: "x",
      kind: "ideal-recovery",
      lines,
      maxK: 2,
      incompleteInstances: "score-available",
    });
    const by = Object.fromEntries(s.successAtK!.map((c) => [c.condition, c]));
    expect(by["R=0"]).toMatchObject({ instances: 3, excluded: 0 });
    // R=E-1 scores run "b" on its one usable continuation (a success at k = 2, counted at K = 1)
    expect(by["R=E-1"].curve.map((p) => [p.successes, p.n])).toEqual([
      [2, 3],
      [2, 3],
    ]);
  });
});
