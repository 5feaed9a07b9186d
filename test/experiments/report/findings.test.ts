/**
 * The paper's findings checked on any run folder: model-backed end-to-end runs get the same
 * claims and noise language as the demo, and findings that cannot be judged say why.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../../src/metrics/wilson.ts";
import { computeFindings } from "../../../experiments/report/findings.ts";
import { buildReport } from "../../../experiments/report/index.ts";
import type { ConditionSummary, ExperimentSummary } from "../../../experiments/runner/summary.ts";

function cond(condition: string, successes: number, n: number, simulated = false): ConditionSummary {
  return {
    condition, params: {}, episodes: n, envErrors: 0, success: wilsonInterval(successes, n), meanRecoveryAttempts: 0, meanRecoverySteps: 0, meanForwardSteps: 0, meanReplaySteps: 0,
    stepsPerEpisode: 0, stepsPerSuccess: null, costPerEpisode: 0, costPerSuccess: null, tokensPerEpisode: 0, stability: { trajectories: 0, sources: [], deviationRate: 0, loopIncidence: 0, loopBurden: null, recoveryAbility: null, eligibleForRecovery: 0, avgRecoveryLength: null }, simulated,
  };
}

function e2e(conditions: ConditionSummary[], simulated = false): ExperimentSummary {
  return { experiment: "model-e2e", kind: "end-to-end", simulated, note: "", episodes: 0, envErrors: 0, conditions };
}

describe("computeFindings", () => {
  it("judges a model-backed end-to-end run and says Finding 1 cannot be judged without an ideal-recovery run", () => {
    const f = computeFindings({ e2e: e2e([cond("gpt.no-recovery", 20, 60), cond("gpt.max-rec-1", 24, 60), cond("gpt.max-rec-3", 38, 60)]) });
    expect(f).toHaveLength(2);
    expect(f[0]).toMatchObject({ holds: null });
    expect(f[0].evidence).toMatch(/cannot be judged: no ideal-recovery run/);
    expect(f[1].claim).toBe('Recoverer "gpt" gains from more recovery attempts (Finding 6).');
    expect(f[1].holds).toBe(true);
    expect(f[1].significant).toBe(true);
    expect(f[1].evidence).toMatch(/gpt: no recovery 33\.3%, 1 attempt 40\.0%, 3 63\.3% \(3 vs 1: p=0\.0\d\d, beyond noise; 3 vs none: p=0\.00\d, beyond noise\)/);
  });

  it("uses the shared baseline for a pair without one, names it, and reports within-noise losses", () => {
    const f = computeFindings({ e2e: e2e([cond("strong.no-recovery", 30, 60), cond("strong.max-rec-1", 31, 60), cond("strong.max-rec-5", 33, 60), cond("weak-model.max-rec-1", 28, 60), cond("weak-model.max-rec-5", 25, 60)]) });
    const weak = f.find((x) => x.claim.includes("weak-model"))!;
    expect(weak.claim).toBe('Recoverer "weak-model" can lose against no recovery (Finding 6).');
    expect(weak.holds).toBe(true);
    expect(weak.significant).toBe(false);
    expect(weak.evidence).toContain('baseline of pair "strong"');
    expect(weak.evidence).toMatch(/within noise/);
  });

  it("says why a pair with one retry cap or no baseline cannot be judged", () => {
    const one = computeFindings({ e2e: e2e([cond("a.no-recovery", 1, 10), cond("a.max-rec-3", 2, 10)]) });
    expect(one[1]).toMatchObject({ holds: null });
    expect(one[1].evidence).toMatch(/one retry cap \(3\); it needs two/);
    const none = computeFindings({ e2e: e2e([cond("a.max-rec-1", 1, 10), cond("a.max-rec-3", 2, 10)]) });
    expect(none[1].evidence).toMatch(/no no-recovery baseline/);
    expect(computeFindings({})[1].evidence).toMatch(/no end-to-end run/);
  });
});

describe("retrace report on a model-backed run folder", () => {
  it("renders the findings section computed from the folder's own runs, without the simulation banner", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "retrace-findings-")), "e2e");
    mkdirSync(dir, { recursive: true });
    // One finished episode (the report refuses an empty results.jsonl); the findings come from summary.json.
    const line = {
      key: "gpt.no-recovery/t1/0", index: 0, experiment: "model-e2e", condition: "gpt.no-recovery", task: "t1", seed: 0, status: "ok", success: true, score: 1, stopReason: "done",
      envTries: 1, simulated: false, forwardSteps: 3, recoverySteps: 0, replaySteps: 0, recoveryAttempts: 0, detectorCalls: 0, policyFailures: 0, tokens: 0, costUsd: 0, stability: null, prompts: [],
    };
    writeFileSync(join(dir, "results.jsonl"), JSON.stringify(line) + "\n");
    writeFileSync(join(dir, "summary.json"), JSON.stringify(e2e([cond("gpt.no-recovery", 20, 60), cond("gpt.max-rec-1", 24, 60), cond("gpt.max-rec-3", 38, 60)])));
    const out = await buildReport(dir, { episodesPerRun: 0 });
    const html = readFileSync(out.file, "utf8");
    expect(html).toMatch(/Do the paper('|&#39;)s findings hold here\?/);
    expect(html).toContain("Recoverer &quot;gpt&quot; gains from more recovery attempts");
    expect(html).toContain("cannot be judged: no ideal-recovery run");
    expect(html).not.toContain("Checked on simulated policies");
  });
});
