/**
 * `retrace tune` on the model path, against the stand-in (adapters/testing/stand-in: a SIMULATED
 * sampling model behind the OpenAI API, on 127.0.0.1): every role a model, the race's cost per
 * episode in tokens from the server's usage, and a re-run from the model-call cache makes no server
 * call and the same decisions.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify as toYaml } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../../packages/testing/src/stand-in/server.ts";
import type { RaceResult } from "../../../packages/evaluation/src/tune/race-result.ts";
import { cli } from "../helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-tune-stand-in-"));
let server: StandInServer | undefined;
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const model = {
  kind: "model",
  model: "retrace-stand-in",
  format: "pyautogui",
  observation: "a11y_tree",
  temperature: 0.7,
};

describe("retrace tune against a sampling model server", () => {
  it("races model-backed settings with token costs per candidate, and replays the same race from the cache with no server call", async () => {
    server = await startStandInServer({ errorRate: 0.3, seed: 1 });
    const file = join(dir, "tune.yaml");
    writeFileSync(
      file,
      toYaml({
        kind: "tune",
        name: "tune-stand-in",
        env: { kind: "simdesk", tasks: ["files-rename-draft", "files-trash-menu"] },
        options: { maxForwardSteps: 12, recoveryBudget: 4 },
        pair: {
          name: "m",
          forward: model,
          recovery: model,
          detector: { kind: "model", model: "retrace-stand-in", observation: "a11y_tree", temperature: 0.7 },
        },
        space: { maxRecoveryIterations: [1, 3] },
        race: { seedsPerRound: 1, maxSeedsPerBatch: 3, maxEpisodes: 100 },
      }),
    );
    const cache = join(dir, "cache");
    const args = (out: string, mode: string) => [
      "tune",
      file,
      "--base-url",
      server!.url,
      "--out",
      join(dir, out),
      "--workers",
      "1",
      "--quiet",
      "--cache",
      mode,
      "--cache-dir",
      cache,
    ];
    const a = await cli(...args("a", "readwrite"));
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    const race = JSON.parse(readFileSync(join(dir, "a", "race.json"), "utf8")) as RaceResult & { costUnit: string };
    expect(race.costUnit).toBe("tokens");
    expect(race.episodes).toBeGreaterThanOrEqual(2 * 2 * 2);
    // every candidate's episodes were paid in tokens the server reported
    for (const c of race.candidates) expect(c.cost.mean).toBeGreaterThan(0);
    expect(a.stdout).toMatch(/tokens \d+\/episode/);
    expect(a.stdout).toContain("[SIMULATED components]"); // the stand-in declares itself
    // requests carried draw identities: the forward agent sampled, so the units' trajectories differ
    const forwardSeeds = server.log.filter((l) => l.role === "forward").map((l) => l.seed);
    expect(new Set(forwardSeeds).size).toBeGreaterThan(forwardSeeds.length / 2);
    const calls = server.calls;
    const b = await cli(...args("b", "read"));
    expect(b.code).toBe(0);
    expect(server.calls).toBe(calls);
    const { decision: _x, ...ra } = race;
    const { decision: _y, ...rb } = JSON.parse(readFileSync(join(dir, "b", "race.json"), "utf8")) as typeof race;
    expect(rb).toEqual(ra);
  }, 300_000);

  it("races success per dollar with priced model specs: each candidate's cost in USD from the server's usage, a bootstrap decision, the same race again from the cache", async () => {
    server ??= await startStandInServer({ errorRate: 0.3, seed: 1 });
    const prices = { "retrace-stand-in": { inputPerMillion: 2, outputPerMillion: 8 } };
    const priced = { ...model, prices };
    const file = join(dir, "tune-usd.yaml");
    writeFileSync(
      file,
      toYaml({
        kind: "tune",
        name: "tune-stand-in-usd",
        env: { kind: "simdesk", tasks: ["files-rename-draft", "files-trash-menu"] },
        options: { maxForwardSteps: 12, recoveryBudget: 4 },
        pair: {
          name: "m",
          forward: priced,
          recovery: priced,
          detector: { kind: "model", model: "retrace-stand-in", observation: "a11y_tree", temperature: 0.7, prices },
        },
        space: { maxRecoveryIterations: [1, 3] },
        objective: { kind: "success-per-usd" },
        race: { seedsPerRound: 1, maxSeedsPerBatch: 3, maxEpisodes: 100 },
      }),
    );
    const cache = join(dir, "cache-usd");
    const args = (out: string, mode: string) => [
      "tune",
      file,
      "--base-url",
      server!.url,
      "--out",
      join(dir, out),
      "--workers",
      "1",
      "--quiet",
      "--cache",
      mode,
      "--cache-dir",
      cache,
    ];
    const a = await cli(...args("usd-a", "readwrite"));
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    const race = JSON.parse(readFileSync(join(dir, "usd-a", "race.json"), "utf8")) as RaceResult & {
      costUnit: string;
      objectiveKind: string;
    };
    expect(race.costUnit).toBe("usd");
    expect(race.objectiveKind).toBe("success-per-usd");
    // the dollars are the server's reported tokens at the specs' prices: positive, and well under a cent per episode
    // here
    for (const c of race.candidates) {
      expect(c.cost.mean).toBeGreaterThan(0);
      expect(c.cost.mean).toBeLessThan(0.05);
    }
    expect(a.stdout).toContain("objective: success per USD (paired bootstrap, Holm)");
    expect(a.stdout).toMatch(/\$\d+\.\d{4}\/episode/);
    const calls = server.calls;
    const b = await cli(...args("usd-b", "read"));
    expect(b.code).toBe(0);
    expect(server.calls).toBe(calls);
    const { decision: _x, ...ra } = race;
    const { decision: _y, ...rb } = JSON.parse(readFileSync(join(dir, "usd-b", "race.json"), "utf8")) as typeof race;
    expect(rb).toEqual(ra);
  }, 300_000);
});
