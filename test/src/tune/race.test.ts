import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { createRng } from "../../../src/rng.ts";
import { createRace, type RaceOptions, type RaceResult, type UnitOutcome } from "../../../src/tune/race.ts";
import { plantedLandscape } from "../../../src/tune/planted.ts";
import { checkKnobs, enumerateSpace, sampleCandidates, spaceSize, type Knob, type KnobValue } from "../../../src/tune/space.ts";

type Outcome = (setting: Record<string, KnobValue>, unit: number) => UnitOutcome;

/** Drive a race to the end, answering each round from `outcome`; returns the result and the requests seen. */
function drive(knobs: Knob[], options: RaceOptions, outcome: Outcome): { result: RaceResult; rounds: string[] } {
  const race = createRace(knobs, options);
  const rounds: string[] = [];
  for (let req = race.next(); req; req = race.next()) {
    const r = req;
    rounds.push(`${r.batch}/${r.round}:${r.candidates.map((c) => c.id).join(",")}@${r.from}-${r.to}`);
    race.record(new Map(r.candidates.map((c) => [c.id, Array.from({ length: r.to - r.from }, (_, i) => outcome(c.setting, r.from + i))])));
  }
  return { result: race.result(), rounds };
}

const RACE = { unitsPerRound: 10, firstTestAfter: 20, maxUnitsPerBatch: 400, maxEpisodes: 20_000 };

describe("the racing tuner on a planted landscape", () => {
  it("finds the planted best freeze window x budget in at least 18 of 20 seeds, with at most half the grid's episodes", () => {
    let found = 0, race = 0, grid = 0;
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
      const { result, rounds } = drive(land.knobs, { ...RACE, seed: s, batchSize: 10, elites: 2, batches: 4 }, land.outcome);
      expect(result.batches.length).toBeGreaterThan(1);
      // each batch starts on units no earlier batch used
      for (let b = 1; b < result.batches.length; b++) expect(result.batches[b].from).toBe(result.batches[b - 1].from + result.batches[b - 1].units);
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
    const { result } = drive(knobs, { ...RACE, seed: 1, maxUnitsPerBatch: 60 }, (s, u) => ({ success: createRng("x", u).next() < rates[s["options.freezeWindow"] as number], cost: 1 }));
    const bad = result.candidates.find((c) => c.setting["options.freezeWindow"] === 0)!;
    expect(bad.eliminated?.reason).toBe("worse");
    expect(bad.eliminated!.pAdjusted!).toBeLessThan(0.05);
    expect(bad.eliminated!.pAdjusted!).toBeGreaterThanOrEqual(bad.eliminated!.p!);
    expect(bad.eliminated!.family).toBe(2);
    expect(["c1", "c2"]).toContain(bad.eliminated!.against);
    expect(bad.eliminated!.units).toBe(20);
  });

  it("reports identical candidates as a statistically tied set, not a winner", () => {
    const { result } = drive(knobs, { ...RACE, seed: 1, tieMargin: 0.1 }, (_s, u) => ({ success: createRng("same", u).next() < 0.5, cost: 0 }));
    expect(result.reason).toBe("tied");
    expect(result.winner).toBeUndefined();
    expect(result.survivors).toHaveLength(3);
    expect(result.decision).toContain("statistically tied");
  });

  it("stops when the episode budget is spent and reports the survivors", () => {
    const { result } = drive(knobs, { ...RACE, seed: 1, maxEpisodes: 75 }, (s, u) => ({ success: createRng("b", u, String(s["options.freezeWindow"])).next() < 0.5, cost: 0 }));
    expect(result.reason).toBe("budget");
    expect(result.episodes).toBeLessThanOrEqual(75);
    expect(result.survivors.length).toBeGreaterThan(1);
  });

  it("eliminates candidates above the cost limit, and says so when none is within it", () => {
    const cost = (s: Record<string, KnobValue>) => 100 * (1 + (s["options.freezeWindow"] as number));
    const { result } = drive(knobs, { ...RACE, seed: 1, costLimit: 250 }, (s, u) => ({ success: createRng("c", u).next() < 0.5, cost: cost(s) }));
    expect(result.candidates.find((c) => c.setting["options.freezeWindow"] === 3)!.eliminated?.reason).toBe("over-cost");
    expect(result.survivors).not.toContain("c2");
    const none = drive(knobs, { ...RACE, seed: 1, costLimit: 50 }, (s, u) => ({ success: createRng("c", u).next() < 0.5, cost: cost(s) })).result;
    expect(none.reason).toBe("none-within-cost");
    expect(none.winner).toBeUndefined();
  });

  it("refuses outcomes that do not cover the round's units", () => {
    const race = createRace(knobs, { ...RACE, seed: 1 });
    const req = race.next()!;
    expect(() => race.record(new Map(req.candidates.map((c) => [c.id, [{ success: true, cost: 0 }]])))).toThrow(/needs 10 outcomes/);
  });

  it("rejects bad race options with a one-line ConfigError naming the field", () => {
    expect(() => createRace(knobs, { ...RACE, seed: 1, alpha: 2 })).toThrow(ConfigError);
    expect(() => createRace(knobs, { ...RACE, seed: 1, unitsPerRound: 0 })).toThrow(/tune\.race\.unitsPerRound/);
    expect(() => createRace(knobs, { ...RACE, seed: 1, batchSize: 4, elites: 4 })).toThrow(/tune\.race\.elites/);
  });
});

describe("the candidate space", () => {
  it("enumerates a grid and samples without replacement under a seed", () => {
    const knobs: Knob[] = [{ path: "options.freezeWindow", values: [0, 1, 3, 5, 10] }, { path: "pair.detector.minConfidence", values: [0.3, 0.5, 0.7] }];
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
