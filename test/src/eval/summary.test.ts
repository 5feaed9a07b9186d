import { describe, expect, it } from "vitest";
import type { RecoveryRun } from "../../../packages/evaluation/src/eval/run.ts";
import {
  agreementOf,
  cohenKappa,
  oracleAgreement,
  recoveryTable,
} from "../../../packages/evaluation/src/eval/summary.ts";

function run(ro: boolean, rtc: boolean, truth: boolean, extra: Partial<RecoveryRun> = {}): RecoveryRun {
  return {
    sampleId: "s",
    taskId: "t",
    distance: 1,
    variant: "v",
    policyKind: "explicit",
    context: "0-E",
    budget: 3,
    status: "judged",
    stepsUsed: 2,
    declaredDone: false,
    actions: [],
    rationales: ["restore: undo"],
    intent: { judged: 1, restorative: 1, intent: true },
    verdict: {
      success: ro && rtc,
      ro: { pass: ro, ssim: ro ? 1 : 0.9, threshold: 0.99 },
      rtc: { pass: rtc, replayedSteps: 1 },
    },
    truth,
    simulated: true,
    ...extra,
  };
}

describe("cohenKappa", () => {
  it("matches textbook values", () => {
    // Wikipedia's worked example: 50 proposals, both yes 20, A yes/B no 5, A no/B yes 10, both no 15:
    // p_o = 0.7, p_e = 0.5, kappa = 0.4; Cohen's SE = sqrt(0.7 * 0.3 / (50 * 0.25)) = 0.12961
    const k = cohenKappa(20, 5, 15, 10)!;
    expect(k.kappa).toBeCloseTo(0.4, 10);
    expect(k.se).toBeCloseTo(0.129615, 5);
    expect(k.lo).toBeCloseTo(0.4 - 1.959964 * 0.129615, 4);
    expect(k.hi).toBeCloseTo(0.4 + 1.959964 * 0.129615, 4);
    // the same 60% agreement, different marginals: 0.1304 and 0.2593 (Wikipedia, "kappa paradoxes")
    expect(cohenKappa(45, 15, 15, 25)!.kappa).toBeCloseTo(0.1304, 4);
    expect(cohenKappa(25, 35, 35, 5)!.kappa).toBeCloseTo(0.2593, 4);
    // perfect agreement, perfect disagreement with balanced marginals
    expect(cohenKappa(3, 0, 4, 0)!.kappa).toBe(1);
    expect(cohenKappa(0, 5, 0, 5)!.kappa).toBe(-1);
  });

  it("is undefined with no records or when both raters always say the same one thing", () => {
    expect(cohenKappa(0, 0, 0, 0)).toBeNull();
    expect(cohenKappa(7, 0, 0, 0)).toBeNull();
    const a = agreementOf("always yes", [{ truth: true }, { truth: true }], () => true);
    expect(a).toMatchObject({ oracle: "always yes", n: 2, truePositive: 2, kappa: null, kappaCi: null });
    expect(a.agreement.rate).toBe(1);
  });

  it("clips its interval to [-1, 1]", () => {
    // n = 8, p_o = 7/8, p_e = 1/2: kappa 0.75, SE 0.2339, so kappa + 1.96 SE = 1.208 -> 1
    const k = cohenKappa(4, 0, 3, 1)!;
    expect(k.kappa).toBeCloseTo(0.75, 10);
    expect(k.hi).toBe(1);
    expect(k.lo).toBeCloseTo(0.75 - 1.959964 * Math.sqrt((0.875 * 0.125) / (8 * 0.25)), 6);
  });
});

describe("oracleAgreement", () => {
  it("counts confusion matrices per oracle part against the truth", () => {
    const runs = [
      run(true, true, true),
      run(true, false, false),
      run(false, true, false),
      run(false, false, false),
      run(true, true, false),
      run(false, true, true),
    ];
    const [ro, rtc, both] = oracleAgreement(runs);
    expect(ro).toMatchObject({
      oracle: "R_O",
      n: 6,
      truePositive: 1,
      falsePositive: 2,
      trueNegative: 2,
      falseNegative: 1,
    });
    expect(rtc).toMatchObject({ oracle: "R_TC", truePositive: 2, falsePositive: 2, trueNegative: 2, falseNegative: 0 });
    expect(both).toMatchObject({
      oracle: "R_O AND R_TC",
      truePositive: 1,
      falsePositive: 1,
      trueNegative: 3,
      falseNegative: 1,
    });
    expect(both.falsePositiveRate.rate).toBeCloseTo(1 / 4);
    expect(both.falseNegativeRate.rate).toBeCloseTo(1 / 2);
    expect(both.agreement.rate).toBeCloseTo(4 / 6);
    // kappa: po = 4/6, pe = (2/6)(2/6) + (4/6)(4/6) = 20/36 -> (24/36 - 20/36) / (16/36) = 0.25
    expect(both.kappa).toBeCloseTo(0.25);
  });

  it("adds the mean-only R_Om rows beside R_Om when the verdicts carry a local floor", () => {
    const masked = (meanPass: boolean, floorPass: boolean, rtc: boolean, truth: boolean) => {
      const r = run(true, rtc, truth);
      const rom = {
        pass: meanPass && floorPass,
        meanPass,
        ssim: 0.995,
        threshold: 0.99,
        maskedWindows: 0,
        localSsim: floorPass ? 0.9 : 0.1,
        localFloor: 0.2,
      };
      return { ...r, verdict: { ...r.verdict!, rom, maskedSuccess: rom.pass && rtc } };
    };
    // A leftover window: the mean passes, the floor does not (truth: not recovered).
    const runs = [masked(true, true, true, true), masked(true, false, true, false), masked(false, true, true, false)];
    const rows = new Map(oracleAgreement(runs).map((a) => [a.oracle, a]));
    expect(rows.get("R_Om AND R_TC")).toMatchObject({ truePositive: 1, falsePositive: 0, trueNegative: 2 });
    expect(rows.get("R_Om (mean only) AND R_TC")).toMatchObject({ truePositive: 1, falsePositive: 1, trueNegative: 1 });
    expect(rows.get("R_Om (mean only)")).toMatchObject({ falsePositive: 1 });
    // Verdicts without a floor (older runs) give no mean-only rows: they would repeat R_Om.
    const old = runs.map((r) => ({
      ...r,
      verdict: { ...r.verdict!, rom: { ...r.verdict!.rom!, localFloor: undefined } },
    }));
    expect(oracleAgreement(old).map((a) => a.oracle)).not.toContain("R_Om (mean only)");
  });

  it("leaves out runs without truth or not judged", () => {
    const runs = [
      run(true, true, true),
      { ...run(true, true, true), truth: undefined },
      run(true, true, true, { status: "reconstruction-failed", verdict: undefined }),
    ];
    expect(oracleAgreement(runs)[0].n).toBe(1);
  });
});

describe("recoveryTable", () => {
  it("keeps only samples judged in every variant and budget by default (the paper's), each row its own with samples: per-row", () => {
    const at = (sampleId: string, variant: string, budget: number, extra: Partial<RecoveryRun> = {}) =>
      run(true, true, true, { sampleId, variant, budget, ...extra });
    const runs = [
      at("a", "implicit", 3),
      at("a", "explicit", 3),
      at("a", "implicit", 10),
      at("a", "explicit", 10),
      // b could not be judged for the explicit variant at r = 10 (the environment failed)
      at("b", "implicit", 3),
      at("b", "explicit", 3),
      at("b", "implicit", 10),
      at("b", "explicit", 10, { status: "env-error", verdict: undefined }),
      // c never ran the explicit variant at r = 3 (missing), d is judged everywhere but at another distance
      at("c", "implicit", 3),
      at("c", "implicit", 10),
      at("c", "explicit", 10),
      at("d", "implicit", 3, { distance: 5 }),
    ];
    const common = new Map(recoveryTable(runs).map((r) => [`${r.variant}/${r.budget}/${r.distance}`, r]));
    expect([...common.values()].map((r) => [r.variant, r.budget, r.distance, r.n, r.excluded])).toEqual([
      ["implicit", 3, 1, 1, 2],
      ["explicit", 3, 1, 1, 1],
      ["implicit", 10, 1, 1, 2],
      ["explicit", 10, 1, 1, 2],
      ["implicit", 3, 5, 1, 0],
    ]);
    expect(recoveryTable(runs, { samples: "common" })).toEqual([...common.values()]);
    const perRow = recoveryTable(runs, { samples: "per-row" });
    expect(perRow.map((r) => [r.variant, r.budget, r.distance, r.n, r.excluded])).toEqual([
      ["implicit", 3, 1, 3, 0],
      ["explicit", 3, 1, 2, 0],
      ["implicit", 10, 1, 3, 0],
      ["explicit", 10, 1, 2, 1],
      ["implicit", 3, 5, 1, 0],
    ]);
  });

  it("groups by variant, budget and distance with Wilson intervals and excluded counts", () => {
    const runs = [
      run(true, true, true),
      run(true, false, false),
      run(false, false, false, { intent: { judged: 1, restorative: 0, intent: false } }),
      run(true, true, true, { budget: 10 }),
      run(true, true, true, { status: "env-error", verdict: undefined }),
    ];
    const t = recoveryTable(runs, { samples: "per-row" });
    expect(t).toHaveLength(2);
    expect(t[0]).toMatchObject({ variant: "v", budget: 3, distance: 1, n: 3, excluded: 1 });
    expect(t[0].success.successes).toBe(1);
    expect(t[0].ro.successes).toBe(2);
    expect(t[0].rtc.successes).toBe(1);
    expect(t[0].intent).toMatchObject({ successes: 2, n: 3 });
    expect(t[0].success.lo).toBeGreaterThan(0);
    expect(t[0].success.hi).toBeLessThan(1);
    expect(t[1]).toMatchObject({ budget: 10, n: 1, excluded: 0 });
  });
});
