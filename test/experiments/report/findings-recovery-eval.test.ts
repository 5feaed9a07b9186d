/**
 * The paper's findings 2-4 checked on recovery-evaluation runs: sign tests over distinct samples,
 * target states counted once, and findings that cannot be judged from pooled rates say why.
 */
import { describe, expect, it } from "vitest";
import { computeFindings } from "../../../experiments/report/findings.ts";
import { findingVerdict } from "../../../experiments/report/html.ts";
import type { RecoveryRun } from "../../../packages/evaluation/src/eval/run.ts";
import { evalReport, evalRuns, inSet, range } from "./helpers/findings.ts";

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
