import { describe, expect, it } from "vitest";
import {
  binomialHalfCdf,
  bootstrapVerdict,
  holmAdjust,
  holmVerdicts,
  mcnemarExact,
  mcnemarVerdict,
  MIN_DISCORDANT,
  pairedBootstrap,
  pairOutcomes,
} from "../../../packages/evaluation/src/metrics/paired.ts";

describe("McNemar's exact test", () => {
  it("matches the exact binomial values (R: binom.test(2, 12)$p.value = 0.03857422)", () => {
    // P(X <= 2 | n = 12, 1/2) = (1 + 12 + 66) / 4096 = 79/4096
    expect(binomialHalfCdf(2, 12)).toBeCloseTo(79 / 4096, 12);
    expect(mcnemarExact(10, 2)).toBeCloseTo(0.03857422, 8);
    expect(mcnemarExact(2, 10)).toBeCloseTo(0.03857422, 8);
    // 6 vs 0: 2 / 64; 5 vs 0: 2 / 32 (can never reach 0.05)
    expect(mcnemarExact(6, 0)).toBeCloseTo(0.03125, 12);
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 12);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
    // R: binom.test(40, 100)$p.value = 0.05688793
    expect(mcnemarExact(40, 60)).toBeCloseTo(0.05688793, 7);
    expect(() => mcnemarExact(-1, 2)).toThrow(/counts >= 0/);
  });

  it("pairs outcomes by unit and leaves out units only one side ran", () => {
    const a = new Map([
      ["t1/0", true],
      ["t1/1", true],
      ["t2/0", false],
      ["t2/1", false],
      ["t3/0", true],
    ]);
    const b = new Map([
      ["t1/0", true],
      ["t1/1", false],
      ["t2/0", true],
      ["t2/1", false],
    ]);
    expect(pairOutcomes(a, b)).toEqual({ n: 4, both: 1, onlyA: 1, onlyB: 1, neither: 1 });
  });

  it("gives one verdict rule: holds, direction only, not in the direction, does not hold, cannot tell", () => {
    const c = (onlyA: number, onlyB: number) => ({ n: 40, both: 5, neither: 40 - 5 - onlyA - onlyB, onlyA, onlyB });
    expect(mcnemarVerdict(c(10, 2))).toMatchObject({
      kind: "holds",
      test: "McNemar exact",
      n: 40,
      onlyA: 10,
      onlyB: 2,
    });
    expect(mcnemarVerdict(c(2, 10)).kind).toBe("does-not-hold");
    expect(mcnemarVerdict(c(7, 4))).toMatchObject({ kind: "direction-only" });
    expect(mcnemarVerdict(c(7, 4)).p).toBeCloseTo(0.5488, 4);
    expect(mcnemarVerdict(c(4, 4)).kind).toBe("not-in-direction");
    // 0/6 vs 0/6 (the model run) and 5 vs 0: no outcome could be significant
    expect(MIN_DISCORDANT).toBe(6);
    expect(mcnemarVerdict({ n: 6, both: 0, onlyA: 0, onlyB: 0, neither: 6 })).toMatchObject({ kind: "cannot-tell" });
    expect(mcnemarVerdict(c(5, 0)).kind).toBe("cannot-tell");
    expect(mcnemarVerdict(c(6, 0)).kind).toBe("holds");
  });
});

describe("paired bootstrap", () => {
  it("is seeded, brackets the mean, and separates a consistent gain from noise", () => {
    const gain = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 0 : 1));
    const b1 = pairedBootstrap(gain, { seed: 7, iterations: 4000 });
    expect(pairedBootstrap(gain, { seed: 7, iterations: 4000 })).toEqual(b1);
    expect(b1.mean).toBeCloseTo(20 / 30, 12);
    expect(b1.lo).toBeLessThan(b1.mean);
    expect(b1.hi).toBeGreaterThan(b1.mean);
    expect(b1.hi).toBeLessThanOrEqual(1);
    expect(b1.p).toBeLessThan(0.001);
    expect(bootstrapVerdict(b1).kind).toBe("holds");
    const noise = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? 1 : -1));
    const b2 = pairedBootstrap(noise, { seed: 7, iterations: 4000 });
    expect(b2.mean).toBe(0);
    expect(b2.p).toBe(1);
    expect(bootstrapVerdict(b2).kind).toBe("not-in-direction");
    expect(bootstrapVerdict(pairedBootstrap([1, 1, 1]))).toMatchObject({ kind: "cannot-tell", n: 3 });
    expect(pairedBootstrap([])).toMatchObject({ n: 0, p: 1 });
  });
});

describe("Holm's adjustment", () => {
  it("multiplies the i-th smallest p by m - i + 1, keeps the order monotone and caps at 1 (R: p.adjust(c(.01,.04,.03), 'holm'))", () => {
    // sorted 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, 0.04 * 1 = 0.04 -> raised to 0.06
    const adj = holmAdjust([0.01, 0.04, 0.03]);
    expect(adj[0]).toBeCloseTo(0.03, 12);
    expect(adj[1]).toBeCloseTo(0.06, 12);
    expect(adj[2]).toBeCloseTo(0.06, 12);
    expect(holmAdjust([0.6, 0.5])).toEqual([1, 1]);
    expect(holmAdjust([])).toEqual([]);
    expect(() => holmAdjust([1.5])).toThrow(/\[0, 1\]/);
  });

  it("re-derives each verdict from its adjusted p and records the family; a family of one is unchanged", () => {
    const c = (onlyA: number, onlyB: number) =>
      mcnemarVerdict({ n: 40, both: 0, neither: 40 - onlyA - onlyB, onlyA, onlyB });
    // 6 vs 0 (p = 0.03125) and 10 vs 2 (p = 0.0386): Holm gives 0.0625 and 0.0625 -> neither holds any more
    const [a, b] = holmVerdicts([c(6, 0), c(10, 2)], "retry caps");
    expect(a).toMatchObject({
      kind: "direction-only",
      correction: { method: "Holm", m: 2, family: "2 retry caps", rawP: expect.closeTo(0.03125, 12) },
    });
    expect(a.p).toBeCloseTo(0.0625, 12);
    expect(b.kind).toBe("direction-only");
    expect(b.p).toBeCloseTo(0.0625, 12);
    // a cannot-tell verdict counts in m (as p = 1) and stays cannot-tell
    const [x, y] = holmVerdicts([c(14, 0), c(2, 1)], "pairs");
    expect(x.kind).toBe("holds");
    expect(x.p).toBeCloseTo(4 / 2 ** 14, 12);
    expect(y.kind).toBe("cannot-tell");
    expect(holmVerdicts([c(6, 0)], "pairs")[0]).toEqual(c(6, 0));
  });
});
