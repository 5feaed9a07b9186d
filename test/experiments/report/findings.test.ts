/**
 * The paper's findings checked on any run folder: model-backed end-to-end runs get the same
 * claims and noise language as the demo, and findings that cannot be judged say why.
 */
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { wilsonInterval } from "../../../packages/evaluation/src/metrics/wilson.ts";
import { computeFindings } from "../../../experiments/report/findings.ts";
import { findingVerdict } from "../../../experiments/report/html.ts";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import type { EndToEndConfig } from "../../../experiments/config/schema.ts";
import type { ResultLine } from "../../../experiments/runner/results-log.ts";
import { buildReport } from "../../../experiments/report/index.ts";
import type { ConditionSummary, ExperimentSummary } from "../../../experiments/runner/summary.ts";
import type { RecoveryEvalReport } from "../../../experiments/recovery-eval/report-data.ts";
import type { RecoveryRun } from "../../../packages/evaluation/src/eval/run.ts";

function cond(condition: string, successes: number, n: number, simulated = false): ConditionSummary {
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

function e2e(conditions: ConditionSummary[], simulated = false): ExperimentSummary {
  return { experiment: "model-e2e", kind: "end-to-end", simulated, note: "", episodes: 0, envErrors: 0, conditions };
}

/** Result lines of one condition: unit i (task t<i>, seed 0) succeeded when `won(i)`. */
function linesOf(condition: string, n: number, won: (i: number) => boolean): ResultLine[] {
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
function run(condition: string, successes: number, n: number): { c: ConditionSummary; lines: ResultLine[] } {
  return { c: cond(condition, successes, n), lines: linesOf(condition, n, (i) => i < successes) };
}
function e2eInput(runs: Array<{ c: ConditionSummary; lines: ResultLine[] }>, config?: EndToEndConfig) {
  return {
    e2e: e2e(runs.map((r) => r.c)),
    e2eLines: runs.flatMap((r) => r.lines),
    ...(config ? { e2eConfig: config } : {}),
  };
}
const sim = (profile: string) => ({ kind: "sim", profile });

describe("computeFindings", () => {
  it("judges a model-backed end-to-end run with paired McNemar tests and says Finding 1 cannot be judged without an ideal-recovery run", () => {
    // nested successes: max-rec-1 wins 4 units the baseline lost (too few to tell), max-rec-3 wins 18
    const all = computeFindings(
      e2eInput([run("gpt.no-recovery", 20, 60), run("gpt.max-rec-1", 24, 60), run("gpt.max-rec-3", 38, 60)]),
    );
    expect(all.map((x) => /Finding (\d)/.exec(x.claim)![1])).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(all[0]).toMatchObject({ holds: null });
    expect(all[0].evidence).toMatch(/cannot be judged: no ideal-recovery run/);
    expect(all.slice(1, 4).every((x) => x.holds === null && /cannot be judged/.test(x.evidence))).toBe(true);
    expect(all[1].evidence).toMatch(/no recovery evaluation \(recovery-eval\.json\)/);
    const f5 = all[4];
    expect(f5.claim).toBe(
      'Recovery improves task success over no recovery at every setting of max recovery iterations (recoverer "gpt") (Finding 5).',
    );
    expect(f5).toMatchObject({
      holds: null,
      verdict: { kind: "cannot-tell", test: "McNemar exact", n: 60, onlyA: 4, onlyB: 0 },
    });
    expect(findingVerdict(f5)).toBe("cannot tell (n too small: 4 discordant pairs, fewer than 6)");
    expect(f5.evidence).toContain(
      "gpt: no recovery 33.3%, max-rec-1 40.0%, max-rec-3 63.3%; mean gain 18.3 points (the paper: 2.12). Weakest setting, max-rec-1 vs none: McNemar exact over 60 paired (task, seed) units: 4 won only by max-rec-1, 0 only by no recovery",
    );
    expect(f5.evidence).toContain("Computed from model-e2e's results.jsonl, paired by task and seed");
    const f6 = all[5];
    expect(f6.claim).toBe('Recoverer "gpt" gains from more recovery attempts (Finding 6).');
    // 3 vs 1: 14 discordant pairs, all for 3: p = 2 / 2^14
    expect(f6).toMatchObject({ holds: true, significant: true, verdict: { kind: "holds", onlyA: 14, onlyB: 0 } });
    expect(f6.verdict!.p).toBeCloseTo(2 / 2 ** 14, 10);
    expect(findingVerdict(f6)).toBe("HOLDS (p=1.2e-4)");
  });

  it("says cannot tell for 0/6 vs 0/6, and direction only when the paired lead is within noise", () => {
    const zero = computeFindings(e2eInput([run("m.no-recovery", 0, 6), run("m.max-rec-1", 0, 6)]));
    expect(findingVerdict(zero[4])).toBe("cannot tell (n too small: 0 discordant pairs, fewer than 6)");
    // 7 units won only with recovery, 4 only without: p = 0.549
    const mixed = [run("m.no-recovery", 0, 0), run("m.max-rec-1", 0, 0)];
    mixed[0] = {
      c: cond("m.no-recovery", 14, 40),
      lines: linesOf("m.no-recovery", 40, (i) => i < 10 || (i >= 20 && i < 24)),
    };
    mixed[1] = { c: cond("m.max-rec-1", 17, 40), lines: linesOf("m.max-rec-1", 40, (i) => i < 17) };
    const f5 = computeFindings(e2eInput(mixed))[4];
    expect(f5).toMatchObject({
      holds: null,
      significant: false,
      verdict: { kind: "direction-only", onlyA: 7, onlyB: 4 },
    });
    expect(findingVerdict(f5)).toBe("direction only (p=0.549)");
  });

  it("chooses Finding 6's claim from the recoverer each pair's config gives it, not from the pair's name", () => {
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "x",
      maxRecoveryIterations: [1, 5],
      pairs: [
        { name: "weak", forward: sim("default"), recovery: sim("skilled") },
        { name: "other", baseline: false, forward: sim("default"), recovery: sim("weak") },
      ],
    }) as EndToEndConfig;
    const f = computeFindings(
      e2eInput(
        [
          run("weak.no-recovery", 30, 60),
          run("weak.max-rec-1", 31, 60),
          run("weak.max-rec-5", 33, 60),
          run("other.max-rec-1", 28, 60),
          run("other.max-rec-5", 20, 60),
        ],
        config,
      ),
    );
    const six = f.filter((x) => x.claim.includes("(Finding 6)"));
    expect(six.map((x) => x.claim)).toEqual([
      'Recoverer "weak" gains from more recovery attempts (Finding 6).',
      'Recoverer "other" (simulated weak recoverer (skill 0.3)) can lose against no recovery (Finding 6).',
    ]);
    // the weak recoverer's worst cap loses 10 units the baseline won and wins none: p = 2 / 2^10,
    // Holm over its 2 caps (the other cap cannot tell: p counts as 1) -> 4 / 2^10, then over the
    // 2 pairs of Finding 6 (pair "weak" cannot tell) -> 8 / 2^10
    expect(six[1]).toMatchObject({
      holds: true,
      verdict: { kind: "holds", onlyA: 10, onlyB: 0, correction: { method: "Holm", m: 2, rawP: 2 / 1024 } },
    });
    expect(six[1].verdict!.p).toBeCloseTo(8 / 1024, 12);
    expect(findingVerdict(six[1])).toBe(
      "HOLDS (p=0.008, Holm-adjusted over 2 settings of max recovery iterations, then 2 pairs (unadjusted 0.002))",
    );
    expect(six[1].evidence).toContain('baseline of pair "weak"');
    // Finding 5 is claimed for the capable recoverer only
    expect(f.filter((x) => x.claim.includes("(Finding 5)")).map((x) => x.claim)).toEqual([
      'Recovery improves task success over no recovery at every setting of max recovery iterations (recoverer "weak") (Finding 5).',
    ]);
  });

  it("reads Finding 6's claim from each recoverer's measured recovery ability, not its label", () => {
    const config = parseExperimentConfig({
      kind: "end-to-end",
      name: "x",
      maxRecoveryIterations: [1, 5],
      pairs: [{ name: "p", forward: sim("default"), recovery: sim("skilled") }],
    }) as EndToEndConfig;
    const withAbility = (r: { c: ConditionSummary; lines: ResultLine[] }, ability: number) => ({
      ...r,
      c: { ...r.c, stability: { ...r.c.stability, recoveryAbility: ability, eligibleForRecovery: 20 } },
    });
    const runs = (ability: number) => [
      run("p.no-recovery", 30, 60),
      withAbility(run("p.max-rec-1", 28, 60), ability),
      withAbility(run("p.max-rec-5", 20, 60), ability),
    ];
    const six = (ability: number) =>
      computeFindings(e2eInput(runs(ability), config)).find((x) => x.claim.includes("(Finding 6)"))!;
    // labelled skilled, but it came back from 20% of deviations: the weak recoverer's claim
    expect(six(0.2).claim).toBe(
      'Recoverer "p" (simulated skilled recoverer (skill 0.9)) can lose against no recovery (Finding 6).',
    );
    expect(six(0.2).evidence).toContain(
      "measured recovery ability 0.20 over 40 trajectories with a deviation (weak: weak below 0.5), which decides the claim",
    );
    expect(six(0.8).claim).toBe('Recoverer "p" gains from more recovery attempts (Finding 6).');
  });

  it("judges Finding 1 on continuation k=1 of each strategy paired by failed run, not on pooled rates", () => {
    // 20 failed runs; R=E-1 restores in runs 0..11 at k=1, R=0 in runs 10..13: 10 won only by R=E-1, 2 only by R=0
    const cont = (condition: string, strategy: string, won: (i: number, k: number) => boolean) =>
      Array.from({ length: 20 }, (_, i) =>
        [1, 2].map((k) => ({
          ...linesOf(condition, 20, () => false)[i],
          key: `${condition}/t${i}/0/k${k}`,
          success: won(i, k),
          extra: { phase: "continuation", strategy, k },
        })),
      ).flat() as ResultLine[];
    const idealLines = [
      ...cont("R=E-1", "error-minus-1", (i, k) => (k === 1 ? i < 12 : i < 14)),
      ...cont("R=0", "zero", (i, k) => (k === 1 ? i >= 10 && i < 14 : i < 14)),
    ];
    const curve = (s1: number, s2: number) => [wilsonInterval(s1, 20), wilsonInterval(s2, 20)];
    const ideal: ExperimentSummary = {
      experiment: "ideal",
      kind: "ideal-recovery",
      simulated: false,
      note: "",
      episodes: 80,
      envErrors: 0,
      conditions: [],
      successAtK: [
        { condition: "R=0", strategy: "zero", instances: 20, curve: curve(4, 14), meanRecoveryStep: 0 },
        { condition: "R=E-1", strategy: "error-minus-1", instances: 20, curve: curve(12, 14), meanRecoveryStep: 2 },
      ],
    };
    const f1 = computeFindings({ ideal, idealLines })[0];
    expect(f1).toMatchObject({
      holds: true,
      verdict: { kind: "holds", test: "McNemar exact", n: 20, onlyA: 10, onlyB: 2 },
    });
    expect(f1.verdict!.p).toBeCloseTo(0.03857422, 7);
    expect(f1.evidence).toContain(
      "R=E-1 vs R=0: McNemar exact over 20 paired failed runs (continuation k=1 of each): 10 won only by R=E-1, 2 only by R=0, p=0.039",
    );
    expect(f1.evidence).toContain("the gap narrows");
    expect(computeFindings({ ideal })[0].evidence).toMatch(/no results\.jsonl to pair/);
  });

  it("decides Finding 5 at the task level when seeds share tasks, the (task, seed) test beside it, labelled", () => {
    // 4 tasks x 3 seeds: recovery wins every seed of tasks 0-2 that no recovery lost (9 units), nothing else differs
    const unitLines = (condition: string, won: (t: number, s: number) => boolean) =>
      Array.from({ length: 12 }, (_, i) => ({
        ...linesOf(condition, 12, () => false)[i],
        key: `${condition}/t${i % 4}/${Math.floor(i / 4)}`,
        task: `t${i % 4}`,
        seed: Math.floor(i / 4),
        success: won(i % 4, Math.floor(i / 4)),
      })) as ResultLine[];
    const lines = [...unitLines("a.no-recovery", () => false), ...unitLines("a.max-rec-1", (t) => t < 3)];
    const f5 = computeFindings({
      e2e: e2e([cond("a.no-recovery", 0, 12), cond("a.max-rec-1", 9, 12)]),
      e2eLines: lines,
    }).find((x) => x.claim.includes("(Finding 5)"))!;
    // 9 discordant (task, seed) units would give p = 0.004, but they are 3 tasks: cannot tell
    expect(f5).toMatchObject({
      holds: null,
      verdict: {
        kind: "cannot-tell",
        clusters: "tasks",
        n: 4,
        onlyA: 3,
        onlyB: 0,
        unitLevel: { n: 12, onlyA: 9, onlyB: 0 },
      },
    });
    expect(f5.verdict!.unitLevel!.p).toBeCloseTo(2 / 512, 12);
    expect(findingVerdict(f5)).toBe("cannot tell (n too small: 3 deciding tasks, fewer than 6)");
    expect(f5.evidence).toContain(
      "sign test over tasks (cluster level) over 4 tasks: 3 favour max-rec-1, 0 favour no recovery, 1 tied; unit level (labelled, not independent: units share tasks), McNemar exact over 12 paired (task, seed) units: 9 won only by max-rec-1, 0 only by no recovery, p=0.004",
    );
  });

  it("says why a pair with one setting of max recovery iterations or no baseline cannot be judged", () => {
    const f6 = (fs: ReturnType<typeof computeFindings>) => fs.find((x) => x.claim.includes("(Finding 6)"))!;
    const one = computeFindings(e2eInput([run("a.no-recovery", 1, 10), run("a.max-rec-3", 2, 10)]));
    expect(f6(one)).toMatchObject({ holds: null });
    expect(f6(one).evidence).toMatch(/one setting of max recovery iterations \(3\); it needs two/);
    const none = computeFindings(e2eInput([run("a.max-rec-1", 1, 10), run("a.max-rec-3", 2, 10)]));
    expect(f6(none).evidence).toMatch(/no no-recovery baseline/);
    expect(none.find((x) => x.claim.includes("(Finding 5)"))!.evidence).toMatch(
      /pair "a" needs a no-recovery baseline/,
    );
    expect(f6(computeFindings({})).evidence).toMatch(/no end-to-end run/);
  });
});

describe("retrace report on a model-backed run folder", () => {
  it("renders the findings section computed from the folder's own runs, without the simulation banner", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "retrace-findings-")), "e2e");
    mkdirSync(dir, { recursive: true });
    const runs = [run("gpt.no-recovery", 20, 60), run("gpt.max-rec-1", 24, 60), run("gpt.max-rec-3", 38, 60)];
    writeFileSync(
      join(dir, "results.jsonl"),
      runs
        .flatMap((r) => r.lines)
        .map((l, i) => JSON.stringify({ ...l, index: i }))
        .join("\n") + "\n",
    );
    writeFileSync(join(dir, "summary.json"), JSON.stringify(e2e(runs.map((r) => r.c))));
    const out = await buildReport(dir, { episodesPerRun: 0 });
    const html = readFileSync(out.file, "utf8");
    expect(html).toMatch(/Do the paper('|&#39;)s findings hold here\?/);
    expect(html).toContain("<b>HOLDS (p=1.2e-4)</b>: Recoverer &quot;gpt&quot; gains from more recovery attempts");
    expect(html).toContain("McNemar");
    expect(html).toContain("cannot be judged: no ideal-recovery run");
    expect(html).not.toContain("Checked on simulated components");
  });
});

function evalReport(
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
function evalRuns(
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
const inSet =
  (...xs: number[]) =>
  (i: number) =>
    xs.includes(i);
const range = (a: number, b: number) => (i: number) => i >= a && i < b;

describe("recovery-evaluation findings (2-4)", () => {
  const report = evalReport([
    ["implicit", "implicit/0-E", 1, 1, 12, 1 / 12, 0.1],
    ["explicit", "explicit-model/0-E", 1, 1, 12, 8 / 12, 0.9],
    ["implicit", "implicit/0-E", 3, 1, 12, 2 / 12, 0.1],
    ["explicit", "explicit-model/0-E", 3, 1, 12, 8 / 12, 0.85],
  ]);
  // 12 samples at r = 1 and 3. Per sample (explicit minus implicit successes): s0-s5 +2, s6-s7 +1
  // (implicit also wins r=3), s8 -1 (only implicit, at r=1), s9-s11 0. Sign test: 8 vs 1 of 9
  // discordant samples, p = 2 * (1 + 9) / 2^9 = 0.0390625. Per budget: r=1 8 vs 1 (p = 0.0390625),
  // r=3 6 vs 0 (p = 2 / 2^6 = 0.03125); Holm over 2 budgets: 0.0625 and max(0.0625, 0.039) = 0.0625.
  const runs = [
    ...evalRuns("implicit/0-E", "implicit", 1, 12, inSet(8), range(8, 11)),
    ...evalRuns("explicit-model/0-E", "explicit", 1, 12, range(0, 8)),
    ...evalRuns("implicit/0-E", "implicit", 3, 12, inSet(6, 7), range(8, 11)),
    ...evalRuns("explicit-model/0-E", "explicit", 3, 12, range(0, 8), range(0, 10)),
  ];

  it("tests Finding 3 with a sign test over distinct samples stratified by budget, with exact p-values", () => {
    const f3 = computeFindings({ recovery: report, recoveryRuns: runs }).find((x) => x.claim.includes("(Finding 3)"))!;
    expect(f3).toMatchObject({
      holds: true,
      significant: true,
      verdict: {
        kind: "holds",
        test: "sign test over target states, stratified by budget",
        n: 12,
        onlyA: 8,
        onlyB: 1,
        clusters: "trajectories",
      },
    });
    expect(f3.verdict!.p).toBeCloseTo(20 / 512, 12);
    expect(findingVerdict(f3)).toBe("HOLDS (p=0.039)");
    expect(f3.evidence).toContain(
      "sign test over target states, stratified by budget over 12 paired target states: 8 won only by explicit explicit-model/0-E, 1 only by implicit, p=0.039 (each of the 12 units is its own trajectory: this is the cluster-level test) (24 sample-budget pairs over r=1,3",
    );
    expect(f3.evidence).toContain("Holm-adjusted over 2 budgets): r=1: 8 vs 1, p=0.063; r=3: 6 vs 0, p=0.063");
    expect(f3.evidence).not.toMatch(/two-proportion/);
  });

  it("tests Finding 2's comparison over target states at the largest budget, and 'rarely' against the stated 20% threshold", () => {
    // r=3 intent: explicit s0-s9, implicit s8-s10: 8 explicit-only, 1 implicit-only: p = 0.0390625.
    // But implicit rationales aim at restoring in 3 of 12 target states (25%): "rarely" (< 20%) is
    // not shown, so the claim does not hold as a whole (the weakest of its three tests decides).
    const f2 = computeFindings({ recovery: report, recoveryRuns: runs }).find((x) => x.claim.includes("(Finding 2)"))!;
    expect(f2).toMatchObject({ holds: null, verdict: { kind: "not-in-direction", n: 12 } });
    expect(f2.evidence).toContain('At r=3: "rarely" tested as < 20% of implicit target states');
    expect(f2.evidence).toContain("implicit restoration 2 of 12 target states, not shown below 20%");
    expect(f2.evidence).toContain("restorative implicit rationales 3 of 12 target states, not shown below 20%");
    expect(f2.evidence).toContain(
      "sign test over target states over 12 paired target states: 8 won only by explicit explicit-model/0-E, 1 only by implicit, p=0.039",
    );
    expect(f2.evidence).toContain("Implicit recovery succeeded in 16.7% of 12 samples");
    // with implicit intent and success in 0 of 12, the comparison holds and "rarely" points the
    // right way, but 12 target states cannot show < 20% (0.8^12 = 0.069): direction only
    const rare = runs.map((r) =>
      r.policyKind === "implicit"
        ? {
            ...r,
            intent: { judged: 1, restorative: 0, intent: false },
            rationale: { maxSimilarity: 0.1, restorative: false },
            verdict: { ...r.verdict!, success: false },
          }
        : r,
    ) as RecoveryRun[];
    const held = computeFindings({ recovery: report, recoveryRuns: rare }).find((x) =>
      x.claim.includes("(Finding 2)"),
    )!;
    expect(held).toMatchObject({ holds: null, verdict: { kind: "direction-only" } });
    expect(held.evidence).toMatch(/implicit restoration 0 of 12 target states, not shown below 20%, p=0\.069/);
  });

  it("counts a target state once (d=1 and d=5) and decides Findings 2-3 at the trajectory level, the target-state test beside", () => {
    // 12 trajectories t<i>/r0, each with 2 target states sampled at d=1 and d=5 (48 samples):
    // explicit wins every sample of trajectories 0-6, implicit wins trajectory 7, the rest tie.
    const ids = Array.from({ length: 12 }, (_, t) =>
      [1, 2].flatMap((step) => [1, 5].map((d) => ({ id: `t${t}/r0/t${step}/d${d}`, t, d }))),
    ).flat();
    const mk = (variant: string, kind: "implicit" | "explicit", win: (t: number) => boolean) =>
      ids.map(
        (x) =>
          ({
            ...evalRuns(variant, kind, 3, 1, () => win(x.t))[0],
            sampleId: x.id,
            taskId: `t${x.t}`,
            distance: x.d,
          }) as RecoveryRun,
      );
    const rr = [
      ...mk("implicit/0-E", "implicit", (t) => t === 7),
      ...mk("explicit-model/0-E", "explicit", (t) => t < 7),
    ];
    const rep = evalReport([
      ["implicit", "implicit/0-E", 3, 1, 48, 4 / 48, 0.5],
      ["explicit", "explicit-model/0-E", 3, 1, 48, 28 / 48, 0.5],
    ]);
    const f3 = computeFindings({ recovery: rep, recoveryRuns: rr }).find((x) => x.claim.includes("(Finding 3)"))!;
    // target states: 14 favour explicit, 2 implicit (24 units, not 48); trajectories: 7 vs 1, p = 2 * 9 / 256 = 0.0703
    expect(f3.verdict).toMatchObject({
      test: "sign test over trajectories (cluster level)",
      clusters: "trajectories",
      n: 12,
      onlyA: 7,
      onlyB: 1,
      kind: "direction-only",
      unitLevel: { n: 24, onlyA: 14, onlyB: 2 },
    });
    expect(f3.verdict!.p).toBeCloseTo(18 / 256, 12);
    expect(f3.evidence).toContain(
      "sign test over trajectories (cluster level) over 12 trajectories: 7 favour explicit explicit-model/0-E, 1 favour implicit, 4 tied, p=0.070; unit level (labelled, not independent: units share trajectories), sign test over target states over 24 paired target states: 14 won only by explicit explicit-model/0-E, 2 only by implicit, p=0.004",
    );
  });

  it("counts distinct samples for the gate: 4 samples at 3 budgets are 4 units, not 12 runs", () => {
    const small = evalReport(
      [1, 3, 10].flatMap(
        (r) =>
          [
            ["implicit", "implicit/0-E", r, 1, 4, 0, 0.5],
            ["explicit", "explicit-model/0-E", r, 1, 4, 1, 0.5],
          ] as Array<["implicit" | "explicit", string, number, number, number, number, number]>,
      ),
    );
    const smallRuns = [1, 3, 10].flatMap((r) => [
      ...evalRuns("implicit/0-E", "implicit", r, 4, () => false),
      ...evalRuns("explicit-model/0-E", "explicit", r, 4, () => true),
    ]);
    const f3 = computeFindings({ recovery: small, recoveryRuns: smallRuns }).find((x) =>
      x.claim.includes("(Finding 3)"),
    )!;
    expect(f3).toMatchObject({ holds: null, verdict: { kind: "cannot-tell", n: 4, onlyA: 4, onlyB: 0 } });
    expect(findingVerdict(f3)).toBe("cannot tell (n too small: 4 discordant pairs, fewer than 6)");
  });

  it("does not judge Findings 2-3 from pooled rates when runs.jsonl is missing, and labels simulated evidence", () => {
    const f = computeFindings({ recovery: { ...report, simulated: true } });
    for (const k of [2, 3]) {
      const x = f.find((y) => y.claim.includes(`(Finding ${k})`))!;
      expect(x.holds).toBeNull();
      expect(x.evidence).toMatch(
        /^cannot be judged: no per-sample outcomes \(runs\.jsonl beside recovery-eval\.json\)/,
      );
      expect(x.evidence).toContain("(SIMULATED policies)");
    }
    const f4 = f.find((x) => x.claim.includes("(Finding 4)"))!;
    expect(f4.holds).toBeNull();
    expect(f4.evidence).toMatch(/cannot be judged from one evaluation/);
    const noPair = computeFindings({ recovery: evalReport([["explicit", "explicit-model/0-E", 1, 1, 10, 0.5, 0.5]]) });
    expect(noPair.find((x) => x.claim.includes("(Finding 3)"))!.evidence).toMatch(
      /no implicit variant with an explicit 0-E recoverer/,
    );
  });

  it("says when explicit recovery does not win", () => {
    // explicit wins s0-s1, implicit s2-s9 at r=1: 2 vs 8, p = 2 * (1 + 10 + 45) / 1024 = 0.109375
    const rep = evalReport([
      ["implicit", "implicit/0-E", 1, 1, 10, 0.8, 0.5],
      ["explicit", "explicit-weak/0-E", 1, 1, 10, 0.2, 0.5],
    ]);
    const rr = [
      ...evalRuns("implicit/0-E", "implicit", 1, 10, range(2, 10)),
      ...evalRuns("explicit-weak/0-E", "explicit", 1, 10, range(0, 2)),
    ];
    const f3 = computeFindings({ recovery: rep, recoveryRuns: rr }).find((x) => x.claim.includes("(Finding 3)"))!;
    expect(f3).toMatchObject({
      holds: null,
      significant: false,
      verdict: { kind: "not-in-direction", onlyA: 2, onlyB: 8 },
    });
    expect(f3.verdict!.p).toBeCloseTo(112 / 1024, 12);
    expect(findingVerdict(f3)).toBe("not in the paper's direction (p=0.109)");
  });
});
