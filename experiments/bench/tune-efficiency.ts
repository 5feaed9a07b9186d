/**
 * `tune-efficiency`: episodes a race uses divided by the episodes a full grid of the same
 * candidates needs for the same decision at the same confidence (every candidate on as many paired
 * units as the race's longest batch ran), on the planted freeze-window x budget landscape
 * (packages/evaluation/src/tune/planted.ts: one pair best by 12 points per grid step), over 20 seeds. Target: <= 0.5,
 * with the planted best found in >= 90% of the seeds.
 */
import { createRace } from "@retrace-cua/evaluation/tune/race";
import { plantedLandscape } from "@retrace-cua/evaluation/tune/planted";
import type { BenchResult } from "./result.ts";

export async function run(): Promise<BenchResult[]> {
  let race = 0,
    grid = 0,
    found = 0;
  const seeds = 20;
  for (let s = 0; s < seeds; s++) {
    const land = plantedLandscape({ seed: `landscape-${s}` });
    const r = createRace(land.knobs, {
      seed: s,
      unitsPerRound: 10,
      firstTestAfter: 20,
      maxUnitsPerBatch: 400,
      maxEpisodes: 20_000,
    });
    for (let req = r.next(); req; req = r.next()) {
      const q = req;
      r.record(
        new Map(
          q.candidates.map((c) => [
            c.id,
            Array.from({ length: q.to - q.from }, (_, i) => land.outcome(c.setting, q.from + i)),
          ]),
        ),
      );
    }
    const res = r.result();
    const w = res.candidates.find((c) => c.id === res.winner);
    if (w && Object.entries(land.best).every(([k, v]) => w.setting[k] === v)) found++;
    race += res.episodes;
    grid += res.gridEpisodes;
  }
  const ratio = race / grid;
  return [
    {
      name: "tune-efficiency",
      ratioOf: "race episodes / grid episodes for the same decision",
      ratio,
      target: "<= 0.5 (and the planted best found in >= 90% of seeds)",
      pass: ratio <= 0.5 && found / seeds >= 0.9,
      details: { raceEpisodes: race, gridEpisodes: grid, seeds, plantedBestFound: found, candidates: 25 },
    },
  ];
}
