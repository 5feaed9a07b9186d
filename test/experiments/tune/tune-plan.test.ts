import { describe, expect, it } from "vitest";
import { planRace } from "../../../src/tune/plan.ts";
import { cli } from "../helpers/model-roles.ts";

const CONFIG = "experiments/configs/tune-freeze-budget.yaml";

describe("retrace tune --plan", () => {
  it("prints the paired units, seeds and the grid bound's cost for a baseline and a gain, without running anything", async () => {
    const r = await cli("tune", CONFIG, "--plan", "--baseline", "0.4", "--gain", "10", "--tokens-per-episode", "2000", "--seconds-per-episode", "30", "--workers", "1");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const p = planRace({ baseline: 0.4, gain: 0.1, candidates: 25 });
    expect(r.stdout).toContain(`paired units needed: ${p.units} `);
    expect(r.stdout).toContain(`${p.units * 25} episodes, ${(p.units * 25 * 2000).toLocaleString("en-US")} tokens`);
    expect(r.stdout).toMatch(/Holm over 24 comparisons/);
  });

  it("asks for a baseline or a pilot in one line", async () => {
    const r = await cli("tune", CONFIG, "--plan");
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--baseline RATE .* or --pilot DIR/);
  });
});
