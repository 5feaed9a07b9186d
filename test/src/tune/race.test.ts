import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { createRng } from "../../../packages/core/src/rng.ts";
import type { UnitOutcome } from "../../../packages/evaluation/src/tune/objective.ts";
import { createRace } from "../../../packages/evaluation/src/tune/race.ts";
import type { RaceOptions } from "../../../packages/evaluation/src/tune/race-options.ts";
import type { RaceResult } from "../../../packages/evaluation/src/tune/race-result.ts";
import { plantedLandscape } from "../../../packages/evaluation/src/tune/planted.ts";
import {
  checkKnobs,
  enumerateSpace,
  sampleCandidates,
  spaceSize,
  type Knob,
  type KnobValue,
} from "../../../packages/evaluation/src/tune/space.ts";

type Outcome = (setting: Record<string, KnobValue>, unit: number) => UnitOutcome;

/** Drive a race to the end, answering each round from `outcome`; returns the result and the requests seen. */
function drive(knobs: Knob[], options: RaceOptions, outcome: Outcome): { result: RaceResult; rounds: string[] } {
  const race = createRace(knobs, options);
  const rounds: string[] = [];
  for (let req = race.next(); req; req = race.next()) {
    const r = req;
    rounds.push(`${r.batch}/${r.round}:${r.candidates.map((c) => c.id).join(",")}@${r.from}-${r.to}`);
    race.record(
      new Map(
        r.candidates.map((c) => [
          c.id,
          Array.from({ length: r.to - r.from }, (_, i) => outcome(c.setting, r.from + i)),
        ]),
      ),
    );
  }
  return { result: race.result(), rounds };
}

const RACE = { unitsPerRound: 10, firstTestAfter: 20, maxUnitsPerBatch: 400, maxEpisodes: 20_000 };

describe("the racing tuner on a planted landscape", () => {
  it("finds the planted best freeze window x budget in at least 18 of 20 seeds, with at most half the grid's episodes", () => {
    let found = 0,
      race = 0,
      grid = 0;
    for (let s = 0; s < 20; s++) {
      const land = plantedLandscape({ seed: `landscape-${s}` });
      const { result } = drive(land.knobs, { ...RACE, seed: s }, land.outcome);
      const w = result.candidates.find((c) => c.id === result.winner);
      if (w && w.setting["options.freezeWindow"] === 3 && w.setting["options.recoveryBudget"] === 5) found++;
      race += result.episodes;
      grid += result.gridEpisodes;
    }
    expect(found).toBeGreaterThanOrEqual(18);
    expect(race / grid).toBeLessThanOrEqual(0.5);
  });

  it("finds it too when a space is sampled in batches (elites meet new candidates on fresh units)", () => {
    let found = 0;
    for (let s = 0; s < 20; s++) {
      const land = plantedLandscape({ seed: `landscape-${s}` });
      const { result, rounds } = drive(
        land.knobs,
        { ...RACE, seed: s, batchSize: 10, elites: 2, batches: 4 },
        land.outcome,
      );
      expect(result.batches.length).toBeGreaterThan(1);
      // each batch starts on units no earlier batch used
      for (let b = 1; b < result.batches.length; b++)
        expect(result.batches[b].from).toBe(result.batches[b - 1].from + result.batches[b - 1].units);
      expect(rounds.length).toBe(result.batches.reduce((n, b) => n + b.rounds, 0));
      const w = result.candidates.find((c) => c.id === result.winner);
      if (w && w.setting["options.freezeWindow"] === 3 && w.setting["options.recoveryBudget"] === 5) found++;
    }
    expect(found).toBeGreaterThanOrEqual(18);
  });

  it("is deterministic under a seed: the same outcomes give the same rounds and decisions", () => {
    const land = plantedLandscape({ seed: "det" });
    const a = drive(land.knobs, { ...RACE, seed: 7, batchSize: 8, batches: 3 }, land.outcome);
    const b = drive(land.knobs, { ...RACE, seed: 7, batchSize: 8, batches: 3 }, land.outcome);
    expect(b.rounds).toEqual(a.rounds);
    expect(b.result).toEqual(a.result);
    const c = drive(land.knobs, { ...RACE, seed: 8, batchSize: 8, batches: 3 }, land.outcome);
    expect(c.result.batches[0].candidates).not.toEqual(a.result.batches[0].candidates);
  });
});

describe("eliminations and stopping", () => {
  const knobs: Knob[] = [{ path: "options.freezeWindow", values: [0, 1, 3] }];

  it("eliminates a clearly worse candidate with its Holm-adjusted McNemar p-value and the candidate it lost to", () => {
    const rates: Record<number, number> = { 0: 0.2, 1: 0.9, 3: 0.9 };
    const { result } = drive(knobs, { ...RACE, seed: 1, maxUnitsPerBatch: 60 }, (s, u) => ({
      success: createRng("x", u).next() < rates[s["options.freezeWindow"] as number],
      cost: 1,
    }));
    const bad = result.candidates.find((c) => c.setting["options.freezeWindow"] === 0)!;
    expect(bad.eliminated?.reason).toBe("worse");
    expect(bad.eliminated!.pAdjusted!).toBeLessThan(0.05);
    expect(bad.eliminated!.pAdjusted!).toBeGreaterThanOrEqual(bad.eliminated!.p!);
    expect(bad.eliminated!.family).toBe(2);
    expect(["c1", "c2"]).toContain(bad.eliminated!.against);
    expect(bad.eliminated!.units).toBe(20);
  });

  it("reports identical candidates as a statistically tied set, not a winner", () => {
    const { result } = drive(knobs, { ...RACE, seed: 1, tieMargin: 0.1 }, (_s, u) => ({
      success: createRng("same", u).next() < 0.5,
      cost: 0,
    }));
    expect(result.reason).toBe("tied");
    expect(result.winner).toBeUndefined();
    expect(result.survivors).toHaveLength(3);
    expect(result.decision).toContain("statistically tied");
  });

  it("stops when the episode budget is spent and reports the survivors", () => {
    const { result } = drive(knobs, { ...RACE, seed: 1, maxEpisodes: 75 }, (s, u) => ({
      success: createRng("b", u, String(s["options.freezeWindow"])).next() < 0.5,
      cost: 0,
    }));
    expect(result.reason).toBe("budget");
    expect(result.episodes).toBeLessThanOrEqual(75);
    expect(result.survivors.length).toBeGreaterThan(1);
  });

  it("eliminates candidates above the cost limit, and says so when none is within it", () => {
    const cost = (s: Record<string, KnobValue>) => 100 * (1 + (s["options.freezeWindow"] as number));
    const { result } = drive(knobs, { ...RACE, seed: 1, costLimit: 250 }, (s, u) => ({
      success: createRng("c", u).next() < 0.5,
      cost: cost(s),
    }));
    expect(result.candidates.find((c) => c.setting["options.freezeWindow"] === 3)!.eliminated?.reason).toBe(
      "over-cost",
    );
    expect(result.survivors).not.toContain("c2");
    const none = drive(knobs, { ...RACE, seed: 1, costLimit: 50 }, (s, u) => ({
      success: createRng("c", u).next() < 0.5,
      cost: cost(s),
    })).result;
    expect(none.reason).toBe("none-within-cost");
    expect(none.winner).toBeUndefined();
  });

  it("refuses outcomes that do not cover the round's units", () => {
    const race = createRace(knobs, { ...RACE, seed: 1 });
    const req = race.next()!;
    expect(() => race.record(new Map(req.candidates.map((c) => [c.id, [{ success: true, cost: 0 }]])))).toThrow(
      /needs 10 outcomes/,
    );
  });

  it("rejects bad race options with a one-line ConfigError naming the field", () => {
    expect(() => createRace(knobs, { ...RACE, seed: 1, alpha: 2 })).toThrow(ConfigError);
    expect(() => createRace(knobs, { ...RACE, seed: 1, unitsPerRound: 0 })).toThrow(/tune\.race\.unitsPerRound/);
    expect(() => createRace(knobs, { ...RACE, seed: 1, batchSize: 4, elites: 4 })).toThrow(/tune\.race\.elites/);
  });
});

describe("the candidate space", () => {
  it("enumerates a grid and samples without replacement under a seed", () => {
    const knobs: Knob[] = [
      { path: "options.freezeWindow", values: [0, 1, 3, 5, 10] },
      { path: "pair.detector.minConfidence", values: [0.3, 0.5, 0.7] },
    ];
    expect(spaceSize(knobs)).toBe(15);
    const all = enumerateSpace(knobs);
    expect(new Set(all.map((c) => JSON.stringify(c.setting))).size).toBe(15);
    const taken = new Set([0, 1, 2]);
    const a = sampleCandidates(knobs, 20, createRng(3), taken);
    expect(a).toHaveLength(12);
    expect(a.map((c) => c.id)).not.toContain("c0");
    expect(sampleCandidates(knobs, 5, createRng(3), taken)).toEqual(sampleCandidates(knobs, 5, createRng(3), taken));
  });

  it("rejects a repeated knob, a repeated value or a path that is not a field path", () => {
    expect(() => checkKnobs([{ path: "options.freezeWindow", values: [1, 1] }])).toThrow(/listed twice/);
    expect(() => checkKnobs([{ path: "a b", values: [1] }])).toThrow(/dotted config field path/);
    expect(() => checkKnobs([])).toThrow(/at least one knob/);
  });
});

describe("cost objectives on a planted cost landscape", () => {
  // Success peaks at freeze window 3 x budget 5 (75%), but an episode costs 1000 tokens per budget
  // step (+-50% per episode): under a cap of 4000 tokens the best is window 3 x budget 3 (63%), and
  // per token it is window 3 x budget 1 (51% at 1000 tokens; the next best per token, 39%, is 24% worse).
  const planted = (s: number) => plantedLandscape({ seed: `cost-landscape-${s}`, costNoise: 0.5 });
  const at = (r: RaceResult, fw: number, rb: number) => {
    const w = r.candidates.find((c) => c.id === r.winner);
    return !!w && w.setting["options.freezeWindow"] === fw && w.setting["options.recoveryBudget"] === rb;
  };

  it("under a cost cap picks the planted best-under-cap in at least 18 of 20 seeds, eliminating the over-cap best with a p-value", () => {
    let found = 0;
    for (let s = 0; s < 20; s++) {
      const land = planted(s);
      const { result } = drive(land.knobs, { ...RACE, seed: s, costLimit: 4000 }, land.outcome);
      if (at(result, 3, 3)) found++;
      expect(result.objective).toBe("success");
      expect(result.costLimit).toBe(4000);
      for (const id of result.survivors)
        expect(result.candidates.find((c) => c.id === id)!.cost.mean).toBeLessThanOrEqual(4000);
      const top = result.candidates.find(
        (c) => c.setting["options.freezeWindow"] === 3 && c.setting["options.recoveryBudget"] === 5,
      )!;
      expect(top.eliminated?.reason).toBe("over-cost");
      if (!top.eliminated?.atEnd) expect(top.eliminated!.pAdjusted!).toBeLessThan(0.05);
    }
    expect(found).toBeGreaterThanOrEqual(18);
  });

  it("by success per cost picks the planted best per token in at least 18 of 20 seeds, with bootstrap p-values", () => {
    let found = 0;
    for (let s = 0; s < 20; s++) {
      const land = planted(s);
      const { result } = drive(land.knobs, { ...RACE, seed: s, objective: "success-per-cost" }, land.outcome);
      if (at(result, 3, 1)) found++;
      const worse = result.candidates.filter((c) => c.eliminated?.reason === "worse");
      expect(worse.length).toBeGreaterThan(0);
      for (const c of worse) expect(c.eliminated!.pAdjusted!).toBeLessThan(0.05);
    }
    expect(found).toBeGreaterThanOrEqual(18);
  });

  it("is deterministic under the seed with a cost objective", () => {
    const land = planted(7);
    const a = drive(land.knobs, { ...RACE, seed: 7, objective: "success-per-cost", costLimit: 4000 }, land.outcome);
    const b = drive(land.knobs, { ...RACE, seed: 7, objective: "success-per-cost", costLimit: 4000 }, land.outcome);
    expect(b.rounds).toEqual(a.rounds);
    expect(b.result).toEqual(a.result);
  });

  it("refuses success per cost on unpriced (zero-cost) episodes instead of dividing by zero", () => {
    const land = plantedLandscape({ seed: "free", tokensPerBudget: 0 });
    expect(() => drive(land.knobs, { ...RACE, seed: 1, objective: "success-per-cost" }, land.outcome)).toThrow(
      /unpriced model or a simulated agent/,
    );
  });
});
