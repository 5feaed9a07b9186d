import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildReport } from "../../../experiments/report/index.ts";
import { paretoFront } from "../../../experiments/report/race.ts";
import { createRace } from "../../../packages/evaluation/src/tune/race.ts";
import { plantedLandscape } from "../../../packages/evaluation/src/tune/planted.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-race-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plantedRace() {
  const land = plantedLandscape({ seed: "report" });
  const race = createRace(land.knobs, {
    seed: 1,
    unitsPerRound: 10,
    firstTestAfter: 20,
    maxUnitsPerBatch: 400,
    maxEpisodes: 20_000,
  });
  for (let req = race.next(); req; req = race.next()) {
    const q = req;
    race.record(
      new Map(
        q.candidates.map((c) => [
          c.id,
          Array.from({ length: q.to - q.from }, (_, i) => land.outcome(c.setting, q.from + i)),
        ]),
      ),
    );
  }
  return race.result();
}

describe("the report's race section", () => {
  it("shows the decision, each elimination with its p-value, success and cost with intervals, and the success-vs-cost chart", async () => {
    const r = plantedRace();
    writeFileSync(join(dir, "race.json"), JSON.stringify({ ...r, costUnit: "tokens", simulated: true }));
    const out = await buildReport(dir);
    const html = readFileSync(out.file, "utf8");
    const section = html.slice(
      html.indexOf('<section id="race">'),
      html.indexOf("</section>", html.indexOf('<section id="race">')),
    );
    expect(section).toContain(r.decision.slice(0, 40));
    const eliminated = r.candidates.filter((c) => c.eliminated?.reason === "worse");
    expect(eliminated.length).toBe(24);
    for (const c of eliminated.slice(0, 5))
      expect(section).toContain(`against ${c.eliminated!.against}: p = ${c.eliminated!.pAdjusted!.toPrecision(2)}`);
    expect(section).toContain("winner");
    expect(section).toContain('canvas id="c-race-pareto"');
    expect(section).toContain("Simulated components");
    expect(html).toContain('href="#race"');
    // costs grow with the budget here: the front holds the cheapest candidate and the most successful one
    const front = paretoFront(r);
    const cheapest = [...r.candidates].sort((a, b) => a.cost.mean - b.cost.mean || b.success.rate - a.success.rate)[0];
    expect(front).toContain(cheapest.id);
    expect(front).toContain(
      [...r.candidates].sort((a, b) => b.success.rate - a.success.rate || a.cost.mean - b.cost.mean)[0].id,
    );
    for (const id of front) {
      const a = r.candidates.find((c) => c.id === id)!;
      expect(r.candidates.some((b) => b.success.rate > a.success.rate && b.cost.mean < a.cost.mean)).toBe(false);
    }
  });
});
