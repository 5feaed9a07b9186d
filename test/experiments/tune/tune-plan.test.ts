import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify as toYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { planRace } from "../../../packages/evaluation/src/tune/plan.ts";
import { cli } from "../helpers/model-roles.ts";

const CONFIG = "experiments/configs/tune-freeze-budget.yaml";
const dir = mkdtempSync(join(tmpdir(), "retrace-tune-plan-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("retrace tune --plan", () => {
  it("prints the paired units, seeds and the grid bound's cost for a baseline and a gain, without running anything", async () => {
    const r = await cli(
      "tune",
      CONFIG,
      "--plan",
      "--baseline",
      "0.4",
      "--gain",
      "10",
      "--tokens-per-episode",
      "2000",
      "--seconds-per-episode",
      "30",
      "--workers",
      "1",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const p = planRace({ baseline: 0.4, gain: 0.1, candidates: 25 });
    expect(r.stdout).toContain(`paired units needed: ${p.units} `);
    expect(r.stdout).toContain(`${p.units * 25} episodes, ${(p.units * 25 * 2000).toLocaleString("en-US")} tokens`);
    expect(r.stdout).toMatch(/Holm over 24 comparisons/);
  });

  it("measures the baseline, the paired discordance and the seconds per episode from a pilot race folder", async () => {
    const file = join(dir, "pilot.yaml");
    writeFileSync(
      file,
      toYaml({
        kind: "tune",
        name: "pilot",
        env: { kind: "simdesk", sample: 3 },
        options: { maxForwardSteps: 20 },
        pair: {
          name: "p",
          forward: { kind: "sim", profile: "sloppy" },
          recovery: { kind: "sim", profile: "skilled" },
          detector: { kind: "sim", profile: "decent" },
        },
        space: { "pair.recovery.profile": ["weak", "skilled"] },
        race: { seedsPerRound: 2, maxSeedsPerBatch: 2, maxEpisodes: 50 },
      }),
    );
    const pilot = await cli("tune", file, "--out", join(dir, "pilot"), "--workers", "1", "--quiet");
    expect(pilot.code).toBe(0);
    const r = await cli("tune", CONFIG, "--plan", "--pilot", join(dir, "pilot"), "--gain", "20", "--workers", "1");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/baseline \d+% on 6 units/);
    expect(r.stdout).toMatch(/discordance \d+% of paired units \((pilot|independence)/);
    expect(r.stdout).not.toMatch(/, 0\.00 h/);
  }, 60_000);

  it("asks for a baseline or a pilot in one line", async () => {
    const r = await cli("tune", CONFIG, "--plan");
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--baseline RATE .* or --pilot DIR/);
  });
});
