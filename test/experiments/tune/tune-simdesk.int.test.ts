/**
 * `retrace tune` on SimDesk with simulated agents, through the CLI: a small race writes its rounds,
 * race.json and a plain summary; the same config gives the same race; a race killed with SIGKILL
 * mid-way and continued with --resume makes the same decisions as an uninterrupted one.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stringify as toYaml, parse as parseYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/model-roles.ts";
import type { RaceResult } from "../../../packages/evaluation/src/tune/race-result.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-tune-"));
const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** A race with a knob that matters: a weak vs a skilled recoverer, crossed with two freeze windows. */
function config(extra: Record<string, unknown> = {}): string {
  const c = {
    kind: "tune",
    name: "tune-small",
    env: { kind: "simdesk", sample: 4 },
    options: { maxForwardSteps: 25 },
    pair: {
      name: "skilled",
      forward: { kind: "sim", profile: "sloppy" },
      recovery: { kind: "sim", profile: "skilled" },
      detector: { kind: "sim", profile: "decent" },
    },
    space: { "pair.recovery.profile": ["weak", "skilled"], "options.freezeWindow": [0, 10] },
    race: { seedsPerRound: 2, maxSeedsPerBatch: 12, maxEpisodes: 400 },
    ...extra,
  };
  const file = join(dir, `tune-${Math.random().toString(36).slice(2, 8)}.yaml`);
  writeFileSync(file, toYaml(c));
  return file;
}

const raceOf = (out: string) =>
  JSON.parse(readFileSync(join(out, "race.json"), "utf8")) as RaceResult & { costUnit: string };

describe("retrace tune on SimDesk (simulated agents)", () => {
  it("races, writes race.json, rounds and the winner or tied set, and a plain summary; the same config gives the same race", async () => {
    const file = config();
    const a = await cli("tune", file, "--out", join(dir, "a"), "--workers", "1", "--quiet");
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/decision: /);
    expect(a.stdout).toContain("[SIMULATED components]");
    const race = raceOf(join(dir, "a"));
    expect(race.candidates).toHaveLength(4);
    expect(race.episodes).toBeLessThanOrEqual(400);
    expect(race.episodes).toBe(race.candidates.reduce((n, c) => n + c.episodes, 0));
    // the recoverer matters: the weak-recoverer candidates are eliminated, each with its p-value, and a skilled one
    // leads
    const out = race.candidates.filter((c) => c.eliminated?.reason === "worse");
    for (const c of out) expect(c.eliminated!.pAdjusted!).toBeLessThan(0.05);
    expect(
      race.candidates
        .filter((c) => c.setting["pair.recovery.profile"] === "weak")
        .every((c) => c.eliminated?.reason === "worse"),
    ).toBe(true);
    expect(race.candidates.find((c) => c.id === race.survivors[0])!.setting["pair.recovery.profile"]).toBe("skilled");
    expect(readdirSync(join(dir, "a", "rounds")).length).toBe(race.batches[0].rounds);
    if (race.winner) {
      const y = parseYaml(readFileSync(join(dir, "a", "winner.yaml"), "utf8")) as Record<string, any>;
      expect(y.kind).toBe("end-to-end");
      expect(readFileSync(join(dir, "a", "winner.ts"), "utf8")).toMatch(
        /withRecovery\(myPolicy, \{[\s\S]*maxRecoveryIterations: 3/,
      );
    } else expect(race.survivors.length).toBeGreaterThan(1);

    const b = await cli("tune", file, "--out", join(dir, "b"), "--workers", "1", "--quiet");
    expect(b.code).toBe(0);
    const { decision: _d, ...ra } = race;
    const { decision: _e, ...rb } = raceOf(join(dir, "b"));
    expect(rb).toEqual(ra);
  }, 240_000);

  it("refuses a fresh race into a race folder and a knob value the config rejects, in one line each", async () => {
    const file = config();
    const again = await cli("tune", file, "--out", join(dir, "a"), "--quiet");
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already holds a race: pass --resume/);
    const bad = await cli(
      "tune",
      config({ space: { "options.freezeWindow": [0, -3] } }),
      "--out",
      join(dir, "bad"),
      "--quiet",
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/space\.options\.freezeWindow\.1: value -3/);
    expect(existsSync(join(dir, "bad"))).toBe(false);
  }, 60_000);

  // SimDesk's simulated agents cost 0 tokens, so the cost cap admits every candidate here; what this
  // checks is that a cost objective's race (its identity, its tests) resumes to the same decisions.
  it.each([
    { objective: "success", extra: {} },
    { objective: "success under a token cap", extra: { objective: { kind: "success", maxTokensPerEpisode: 5000 } } },
  ])(
    "continues a race ($objective) killed with SIGKILL mid-round with --resume and makes the same decisions as an uninterrupted race",
    async ({ objective, extra }) => {
      const file = config({ race: { seedsPerRound: 1, maxSeedsPerBatch: 12, maxEpisodes: 400 }, ...extra });
      const tag = objective.replace(/\W+/g, "-");
      const whole = await cli("tune", file, "--out", join(dir, `whole-${tag}`), "--workers", "1", "--quiet");
      expect(whole.code).toBe(0);
      const out = join(dir, `killed-${tag}`);
      const bin = fileURLToPath(new URL("../../../experiments/bin/retrace.mjs", import.meta.url));
      const child = spawn(process.execPath, [bin, "tune", file, "--out", out, "--workers", "1", "--quiet"], {
        stdio: "ignore",
      });
      children.push(child);
      // kill it once the third round has begun writing results
      const deadline = Date.now() + 120_000;
      const third = join(out, "rounds", "b0-r2");
      while (
        Date.now() < deadline &&
        !(existsSync(third) && readdirSync(third).some((g) => existsSync(join(third, g, "results.jsonl"))))
      )
        await new Promise((r) => setTimeout(r, 20));
      expect(existsSync(third)).toBe(true);
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      expect(existsSync(join(out, "race.json"))).toBe(false);
      const resumed = await cli("tune", file, "--out", out, "--workers", "1", "--quiet", "--resume");
      expect(resumed.stderr).toBe("");
      expect(resumed.code).toBe(0);
      const { decision: _a, ...w } = raceOf(join(dir, `whole-${tag}`));
      const { decision: _b, ...r } = raceOf(out);
      expect(r).toEqual(w);
      if ("objective" in extra) expect(r.costLimit).toBe(5000);
    },
    300_000,
  );
});
