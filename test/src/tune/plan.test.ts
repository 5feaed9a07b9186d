import { describe, expect, it } from "vitest";
import { createRng } from "../../../packages/core/src/rng.ts";
import { mcnemarExact } from "../../../packages/evaluation/src/metrics/paired.ts";
import { mcnemarPower, planRace } from "../../../packages/evaluation/src/tune/plan.ts";

describe("planning a race", () => {
  it("gives the paired units McNemar needs for power 0.8, and the simulated power at that n agrees", () => {
    const plan = planRace({ baseline: 0.5, gain: 0.15, pilot: { onlyBetter: 0.2, onlyBaseline: 0.05 } });
    expect(plan.power).toBeGreaterThanOrEqual(0.8);
    expect(plan.discordanceSource).toBe("pilot");
    // simulate the paired design at the planned n: about 80% of studies reject
    const rng = createRng("plan-sim");
    let rejected = 0;
    const studies = 2000;
    for (let s = 0; s < studies; s++) {
      let a = 0,
        b = 0;
      for (let i = 0; i < plan.units; i++) {
        const u = rng.next();
        if (u < 0.2) a++;
        else if (u < 0.25) b++;
      }
      if (mcnemarExact(a, b) < 0.05 && a > b) rejected++;
    }
    expect(rejected / studies).toBeGreaterThan(0.76);
    expect(rejected / studies).toBeLessThan(0.9);
    // a plan 20% smaller falls short of the power
    expect(mcnemarPower(Math.floor(plan.units * 0.8), 0.2, 0.05, 0.05)).toBeLessThan(0.8);
  });

  it("needs more units without a pilot (independence is conservative), for more candidates (Holm) and for smaller gains", () => {
    const pilot = planRace({ baseline: 0.5, gain: 0.1, pilot: { onlyBetter: 0.15, onlyBaseline: 0.05 } });
    const indep = planRace({ baseline: 0.5, gain: 0.1 });
    expect(indep.units).toBeGreaterThan(pilot.units);
    expect(planRace({ baseline: 0.5, gain: 0.1, candidates: 10 }).units).toBeGreaterThan(indep.units);
    expect(planRace({ baseline: 0.5, gain: 0.2 }).units).toBeLessThan(indep.units);
  });

  it("prices the grid bound in episodes, tokens, dollars and time", () => {
    const p = planRace({
      baseline: 0.4,
      gain: 0.2,
      candidates: 5,
      tokensPerEpisode: 1000,
      usdPerEpisode: 0.01,
      secondsPerEpisode: 30,
      workers: 2,
    });
    expect(p.gridEpisodes).toBe(p.units * 5);
    expect(p.tokens).toBe(p.gridEpisodes * 1000);
    expect(p.usd).toBeCloseTo(p.gridEpisodes * 0.01);
    expect(p.seconds).toBe(p.gridEpisodes * 15);
  });

  it("rejects impossible inputs in one line naming the flag", () => {
    expect(() => planRace({ baseline: 0.95, gain: 0.1 })).toThrow(/--gain/);
    expect(() => planRace({ baseline: 1.5, gain: 0.1 })).toThrow(/--baseline/);
    expect(() => planRace({ baseline: 0.5, gain: 0.1, pilot: { onlyBetter: 0.01, onlyBaseline: 0.2 } })).toThrow(
      /--pilot/,
    );
  });
});
