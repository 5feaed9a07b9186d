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
import type { RecoveryEvalReport } from "../../../experiments/recovery-eval/report-data.ts";

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
    const all = computeFindings({ e2e: e2e([cond("gpt.no-recovery", 20, 60), cond("gpt.max-rec-1", 24, 60), cond("gpt.max-rec-3", 38, 60)]) });
    expect(all.map((x) => /Finding (\d)/.exec(x.claim)![1])).toEqual(["1", "2", "3", "4", "5", "6"]);
    const f = [all[0], all[5]];
    expect(f[0]).toMatchObject({ holds: null });
    expect(f[0].evidence).toMatch(/cannot be judged: no ideal-recovery run/);
    expect(all.slice(1, 4).every((x) => x.holds === null && /cannot be judged/.test(x.evidence))).toBe(true);
    expect(all[1].evidence).toMatch(/no recovery evaluation \(recovery-eval\.json\)/);
    expect(all[4]).toMatchObject({ claim: 'Recovery improves task success over no recovery at every retry cap (recoverer "gpt") (Finding 5).', holds: true, significant: false });
    expect(all[4].evidence).toBe("gpt: no recovery 33.3%, max-rec-1 40.0%, max-rec-3 63.3%; mean gain 18.3 points (the paper: 2.12); smallest gain, max-rec-1 vs none: p=0.45, within noise.");
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
    const f6 = (fs: ReturnType<typeof computeFindings>) => fs.find((x) => x.claim.includes("(Finding 6)"))!;
    const one = computeFindings({ e2e: e2e([cond("a.no-recovery", 1, 10), cond("a.max-rec-3", 2, 10)]) });
    expect(f6(one)).toMatchObject({ holds: null });
    expect(f6(one).evidence).toMatch(/one retry cap \(3\); it needs two/);
    const none = computeFindings({ e2e: e2e([cond("a.max-rec-1", 1, 10), cond("a.max-rec-3", 2, 10)]) });
    expect(f6(none).evidence).toMatch(/no no-recovery baseline/);
    expect(none.find((x) => x.claim.includes("(Finding 5)"))!.evidence).toMatch(/pair "a" needs a no-recovery baseline/);
    expect(f6(computeFindings({})).evidence).toMatch(/no end-to-end run/);
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

function evalReport(rows: Array<[policy: "implicit" | "explicit", variant: string, r: number, d: number, n: number, success: number, simIntent: number]>, simulated = false): RecoveryEvalReport {
  return {
    kind: "recovery-eval", simulated, note: "", label: "", dataset: "ds", datasetVersion: "v", samples: 40, budgets: "1,3", threshold: 0.99,
    rationaleMethod: "tfidf, restorative when the best similarity >= 0.09; keyword classifier as the baseline (restorativeIntent)",
    table: rows.map(([policy, variant, r, d, n, success, simIntent]) => ({
      policy, variant, context: "0-E", r, d, n, success, successCi: "", successLo: 0, successHi: 1, ro: success, rtc: success, restorativeIntent: 1, intentCi: "", intentN: n,
      rationaleSimilarity: 0.2, similarityIntent: simIntent, similarityIntentCi: `x (n=${n})`, meanSteps: 1, excluded: 0,
    })),
    implicitVsExplicit: [], trajectoryStages: [], datasetStages: [],
  };
}

describe("recovery-evaluation findings (2-4)", () => {
  it("judges implicit vs explicit recovery and rationale similarity from recovery-eval.json, in the same noise language", () => {
    const report = evalReport([
      ["implicit", "implicit/0-E", 1, 1, 20, 0.05, 0.1], ["explicit", "explicit-model/0-E", 1, 1, 20, 0.4, 0.9],
      ["implicit", "implicit/0-E", 3, 1, 20, 0.05, 0.1], ["explicit", "explicit-model/0-E", 3, 1, 20, 0.55, 0.85],
    ]);
    const f = computeFindings({ recovery: report });
    const [f2, f3, f4] = [2, 3, 4].map((k) => f.find((x) => x.claim.includes(`(Finding ${k})`))!);
    expect(f2).toMatchObject({ holds: true, significant: true });
    expect(f2.evidence).toBe("At r=3: implicit recovery succeeded in 5.0% of 20 runs; rationales similar to the ground-truth recovery instruction (tfidf, restorative when the best similarity >= 0.09): implicit 10.0% of 20 episodes vs explicit explicit-model/0-E 85.0% of 20 (p=0.000, beyond noise).");
    expect(f3).toMatchObject({ holds: true, significant: true });
    expect(f3.evidence).toMatch(/^Pooled over 2 \(d, r\) settings: explicit explicit-model\/0-E 47\.5% vs implicit 5\.0% of 40 runs each \(p=0\.000, beyond noise\); mean margin 42\.5 points \(the paper: 17\.86\), 2 of 2 settings favour explicit\.$/);
    expect(f4.holds).toBeNull();
    expect(f4.evidence).toMatch(/cannot be judged from one evaluation/);
  });

  it("says when explicit recovery does not win, and labels simulated evidence", () => {
    const f = computeFindings({ recovery: evalReport([["implicit", "implicit/0-E", 1, 5, 10, 0.3, 0.5], ["explicit", "explicit-weak/0-E", 1, 5, 10, 0.2, 0.5]], true) });
    const f3 = f.find((x) => x.claim.includes("(Finding 3)"))!;
    expect(f3).toMatchObject({ holds: false, significant: false });
    expect(f3.evidence).toContain("(SIMULATED policies)");
    expect(f3.evidence).toMatch(/within noise/);
    const noPair = computeFindings({ recovery: evalReport([["explicit", "explicit-model/0-E", 1, 1, 10, 0.5, 0.5]]) });
    expect(noPair.find((x) => x.claim.includes("(Finding 3)"))!.evidence).toMatch(/no implicit variant with an explicit 0-E recoverer/);
  });
});
