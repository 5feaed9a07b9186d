/**
 * Stuck episodes in the summary (option `onStuck: "stop"`, issue 40): lines whose stop reason is
 * "stuck" are counted per condition and for the run, with the successes among them; the field is
 * left out when no episode ended stuck, so summaries of runs without the option are unchanged.
 */
import { describe, expect, it } from "vitest";
import type { ResultLine } from "../../../experiments/runner/results-log.ts";
import { stuckOf, summarize } from "../../../experiments/runner/summary.ts";

function line(condition: string, task: string, stopReason: string, success = false, status = "ok"): ResultLine {
  return {
    key: `${condition}/${task}/0`,
    index: 0,
    experiment: "x",
    condition,
    task,
    seed: 0,
    status,
    success,
    score: success ? 1 : 0,
    stopReason,
    envTries: 1,
    simulated: true,
    forwardSteps: 5,
    recoverySteps: 0,
    replaySteps: 0,
    recoveryAttempts: 1,
    detectorCalls: 5,
    policyFailures: 0,
    tokens: 0,
    costUsd: 0,
    stability: null,
    prompts: [],
  } as unknown as ResultLine;
}

describe("stuck counts in summary.json", () => {
  it("counts stuck episodes and their successes per condition and for the run", () => {
    const lines = [
      line("production", "a", "stuck", true),
      line("production", "b", "stuck"),
      line("production", "c", "done", true),
      line("paper", "a", "max-steps"),
      line("paper", "b", "stuck", false, "env-error"),
    ];
    const s = summarize({ experiment: "x", kind: "end-to-end", lines });
    expect(s.stuck).toEqual({ episodes: 2, successes: 1 });
    expect(s.conditions.find((c) => c.condition === "production")!.stuck).toEqual({ episodes: 2, successes: 1 });
    expect(s.conditions.find((c) => c.condition === "paper")!.stuck).toBeUndefined();
  });

  it("leaves the field out when no episode ended stuck", () => {
    const s = summarize({
      experiment: "x",
      kind: "end-to-end",
      lines: [line("r", "a", "done"), line("r", "b", "max-steps")],
    });
    expect(s.stuck).toBeUndefined();
    expect(s.conditions[0].stuck).toBeUndefined();
    expect(stuckOf([])).toBeUndefined();
  });
});
