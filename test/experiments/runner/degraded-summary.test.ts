/**
 * Degraded recovery in the summary (issue 40): episodes whose detector failed `degradedAfter`
 * times in a row carry `degraded` on their results.jsonl line; summary.json counts them per
 * condition and for the run, and leaves the field out when nothing degraded.
 */
import { describe, expect, it } from "vitest";
import type { ResultLine } from "../../../experiments/runner/results-log.ts";
import { degradedOf, summarize } from "../../../experiments/runner/summary.ts";

function line(condition: string, task: string, degraded?: number): ResultLine {
  return {
    key: `${condition}/${task}/0`,
    index: 0,
    experiment: "x",
    condition,
    task,
    seed: 0,
    status: "ok",
    success: false,
    score: 0,
    stopReason: "done",
    envTries: 1,
    simulated: true,
    forwardSteps: 5,
    recoverySteps: 0,
    replaySteps: 0,
    recoveryAttempts: 0,
    detectorCalls: 5,
    ...(degraded ? { degraded } : {}),
    policyFailures: 0,
    tokens: 0,
    costUsd: 0,
    stability: null,
    prompts: [],
  } as ResultLine;
}

describe("degraded counts in summary.json", () => {
  it("counts degraded episodes and times per condition and for the run", () => {
    const lines = [line("recovery", "a", 1), line("recovery", "b", 2), line("recovery", "c"), line("no-recovery", "a")];
    const s = summarize({ experiment: "x", kind: "end-to-end", lines });
    expect(s.degraded).toEqual({ episodes: 2, times: 3 });
    expect(s.conditions.find((c) => c.condition === "recovery")!.degraded).toEqual({ episodes: 2, times: 3 });
    expect(s.conditions.find((c) => c.condition === "no-recovery")!.degraded).toBeUndefined();
  });

  it("leaves the field out when nothing degraded", () => {
    const s = summarize({ experiment: "x", kind: "end-to-end", lines: [line("recovery", "a"), line("recovery", "b")] });
    expect(s.degraded).toBeUndefined();
    expect(degradedOf([line("r", "a", 0)])).toBeUndefined();
  });
});
