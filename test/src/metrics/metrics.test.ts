import { describe, expect, it } from "vitest";
import { wilsonInterval, twoProportionPValue, normalCdf } from "../../../packages/evaluation/src/metrics/wilson.ts";
import { successAtK, successAtKCurve, passAtK } from "../../../packages/evaluation/src/metrics/success-at-k.ts";
import { stabilityOf, summarizeStability } from "../../../packages/evaluation/src/metrics/stability.ts";
import { recommend } from "../../../packages/evaluation/src/metrics/compare.ts";
import { detectorStability } from "../../../packages/evaluation/src/metrics/trajectory-labels.ts";
import type { Trajectory, StepRecord } from "../../../packages/core/src/trajectory.ts";

describe("Wilson interval", () => {
  it("matches the hand-computed 95% interval for 8 of 10", () => {
    // p=0.8, z^2=3.8416: centre 0.99208/1.38416=0.716738, margin 1.96*sqrt(0.025604)/1.38416=0.226581
    const p = wilsonInterval(8, 10);
    expect(p.rate).toBe(0.8);
    expect(p.lo).toBeCloseTo(0.490157, 4);
    expect(p.hi).toBeCloseTo(0.943319, 4);
  });
  it("stays inside [0,1] at 0 of 5 and is [0,1] for no data", () => {
    // 0/5: centre (3.8416/10)/1.76832 = 0.217246, margin 1.96*sqrt(3.8416/100)/1.76832 = 0.217246
    const p = wilsonInterval(0, 5);
    expect(p.lo).toBeCloseTo(0, 6);
    expect(p.hi).toBeCloseTo(0.434493, 4);
    expect(wilsonInterval(0, 0)).toMatchObject({ rate: 0, lo: 0, hi: 1 });
  });
  it("rejects impossible counts", () => {
    expect(() => wilsonInterval(3, 2)).toThrow(/successes <= n/);
  });
  it("gives a small p-value only for clearly different proportions", () => {
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 4);
    // 50/100 vs 30/100: pooled 0.4, se=sqrt(0.24*0.02)=0.069282, z=2.886751, p=0.003892
    expect(twoProportionPValue({ successes: 50, n: 100 }, { successes: 30, n: 100 })).toBeCloseTo(0.003892, 4);
    expect(twoProportionPValue({ successes: 5, n: 10 }, { successes: 5, n: 10 })).toBeCloseTo(1, 6);
  });
});

describe("Success@K", () => {
  const instances = [
    [false, true, false],
    [false, false, false],
    [true, false, false],
    [false, false, true],
  ];
  it("counts an instance as solved at K when any of its first K continuations succeeded", () => {
    expect(successAtK(instances, 1).successes).toBe(1);
    expect(successAtK(instances, 2).successes).toBe(2);
    expect(successAtK(instances, 3).successes).toBe(3);
    expect(successAtKCurve(instances, 3).map((p) => p.rate)).toEqual([0.25, 0.5, 0.75]);
  });
  it("ignores instances without usable continuations", () => {
    expect(successAtK([[true], []], 1)).toMatchObject({ successes: 1, n: 1 });
  });
  it("has an unbiased pass@k matching the closed form", () => {
    // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 10);
    expect(passAtK(5, 4, 2)).toBe(1);
    expect(passAtK(5, 0, 3)).toBe(0);
  });
});

describe("stability metrics", () => {
  it("computes deviation rate, recovery ability, recovery length and loop burden by hand", () => {
    // s0 -> A(on) -> X(off) -> Y(off) -> A(on) -> X(off) -> Y(off) -> A(on) -> B(on) -> B(on, stagnant)
    const L = (state: string, onTrack: boolean) => ({ state, onTrack });
    const m = stabilityOf(
      "s0",
      [
        L("A", true),
        L("X", false),
        L("Y", false),
        L("A", true),
        L("X", false),
        L("Y", false),
        L("A", true),
        L("B", true),
        L("B", true),
      ],
      "ground-truth",
    );
    expect(m.steps).toBe(9);
    expect(m.offTrackSteps).toBe(4);
    expect(m.deviationRate).toBeCloseTo(4 / 9, 10);
    expect(m.deviations).toBe(2);
    expect(m.recoveryAbility).toBe(1);
    expect(m.recoveryLengths).toEqual([2, 2]);
    expect(m.avgRecoveryLength).toBe(2);
    // repeated transitions A->X, X->Y, Y->A in the second lap: 3 loop steps
    expect(m.loopSteps).toBe(3);
    expect(m.loopBurden).toBeCloseTo(3 / 9, 10);
    expect(m.stagnantSteps).toBe(1);
  });
  it("leaves recovery ability undefined without a deviation and counts an unrecovered one as 0", () => {
    expect(stabilityOf("s", [{ state: "a", onTrack: true }], "detector").recoveryAbility).toBeNull();
    const m = stabilityOf(
      "s",
      [
        { state: "a", onTrack: false },
        { state: "b", onTrack: false },
      ],
      "detector",
    );
    expect(m.recoveryAbility).toBe(0);
    expect(m.avgRecoveryLength).toBeNull();
  });
  it("aggregates like GraceBench: RA over eligible runs, LBR over runs with loops", () => {
    const a = stabilityOf(
      "s",
      [
        { state: "x", onTrack: false },
        { state: "s", onTrack: true },
      ],
      "ground-truth",
    ); // DR .5, RA 1, ARL 1
    const b = stabilityOf(
      "s",
      [
        { state: "x", onTrack: false },
        { state: "y", onTrack: false },
      ],
      "ground-truth",
    ); // DR 1, RA 0
    const c = stabilityOf(
      "s",
      [
        { state: "a", onTrack: true },
        { state: "s", onTrack: true },
        { state: "a", onTrack: true },
        { state: "s", onTrack: true },
      ],
      "ground-truth",
    ); // loops 2/4
    const s = summarizeStability([a, b, c]);
    expect(s.deviationRate).toBeCloseTo((0.5 + 1 + 0) / 3, 10);
    expect(s.recoveryAbility).toBeCloseTo(0.5, 10);
    expect(s.eligibleForRecovery).toBe(2);
    expect(s.avgRecoveryLength).toBe(1);
    expect(s.loopIncidence).toBeCloseTo(1 / 3, 10);
    expect(s.loopBurden).toBeCloseTo(0.5, 10);
    expect(s.sources).toEqual(["ground-truth"]);
  });
  it("labels forward steps from the blamed step onward as off track from detector verdicts", () => {
    const step = (seq: number, role: StepRecord["role"], t: number, extra: Partial<StepRecord> = {}): StepRecord => ({
      seq,
      role,
      step: t,
      actions: [],
      before: `s${seq}`,
      after: `s${seq + 1}`,
      ...extra,
    });
    const traj: Trajectory = {
      taskId: "t",
      steps: [
        step(0, "forward", 0),
        step(1, "forward", 1),
        step(2, "forward", 2, { detection: { isError: true, errorStep: 1, reason: "", confidence: 1 } }),
        step(3, "recovery", 0),
        step(4, "forward", 1),
      ],
      events: [
        { afterSeq: 2, kind: "recovery-start", detail: {} },
        { afterSeq: 3, kind: "truncate", detail: {} },
      ],
    };
    const m = detectorStability(traj);
    expect(m.source).toBe("detector");
    expect(m.offTrackSteps).toBe(3); // forward 1, forward 2, recovery 0
    expect(m.deviations).toBe(1);
    expect(m.recoveryLengths).toEqual([3]);
  });
});

describe("recommend", () => {
  it("says a lead is within noise when intervals overlap", () => {
    const r = recommend([
      { label: "fw=1", rate: wilsonInterval(6, 10) },
      { label: "fw=5", rate: wilsonInterval(7, 10) },
    ]);
    expect(r.best.label).toBe("fw=5");
    expect(r.withinNoise).toBe(true);
    expect(r.text).toMatch(/Within noise/);
  });
  it("calls a large lead real", () => {
    const r = recommend([
      { label: "a", rate: wilsonInterval(20, 100) },
      { label: "b", rate: wilsonInterval(80, 100) },
    ]);
    expect(r.best.label).toBe("b");
    expect(r.withinNoise).toBe(false);
    expect(r.tiedWithBest).toEqual(["b"]);
  });
});
