/**
 * Fault injection (issue 12): a small end-to-end SimDesk ablation under seeded environment faults
 * (every kind) and HTTP model faults (every kind) behind the real LLM detector and selector. Every
 * episode ends with a recorded outcome, no hang outlives its deadline, env-error episodes stay out
 * of the success rates, no failed detector call starts a recovery, the echoed key is in no file,
 * and the same seed gives the same results.jsonl bytes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { runChaos, type ChaosResult } from "../../../experiments/chaos/run.ts";
import { ENV_FAULTS } from "../../../experiments/chaos/env-faults.ts";
import { MODEL_FAULTS } from "../../../experiments/chaos/model-server.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-chaos-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = parseExperimentConfig({
  kind: "end-to-end",
  name: "chaos-test",
  env: { kind: "simdesk", sample: 4 },
  seeds: { count: 2 },
  options: { maxForwardSteps: 16, freezeWindow: 3, recoveryBudget: 6 },
  maxRecoveryIterations: [3],
  pairs: [
    { name: "skilled", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } },
  ],
});
const KEY = "chaos-test-key-0123456789abcdef";
const run = (out: string) =>
  runChaos({
    config,
    out: join(dir, out),
    seed: 2,
    envFaultRate: 0.2,
    modelFaultRate: 0.5,
    envTimeoutMs: 2500,
    modelTimeoutMs: 3000,
    maxRetries: 2,
    workers: 1,
    apiKey: KEY,
  });

describe("retrace chaos", () => {
  let first: ChaosResult;
  it("keeps every target under environment and model faults of every kind", async () => {
    first = await run("a");
    const f = first.figures;
    expect(f.episodesExpected).toBe(2 * 4 * 2);
    expect(f.episodesRecorded).toBe(f.episodesExpected);
    expect(f.episodesHung).toBe(0);
    expect(f.envErrorsExcluded).toBe(true);
    expect(f.successDenominator).toBe(f.episodesRecorded - f.envErrorEpisodes);
    expect(f.detectorFailuresThatTriggeredRecovery).toBe(0);
    expect(f.filesWithKey).toEqual([]);
    // the faults really happened, each kind at least once
    for (const k of ENV_FAULTS) expect(first.envFaults[k], k).toBeGreaterThan(0);
    for (const k of MODEL_FAULTS) expect(first.modelFaults?.[k], k).toBeGreaterThan(0);
    expect(f.detectorFailures).toBeGreaterThan(0);
    expect(f.recoveries).toBeGreaterThan(0);
    // the echoed key reached the written files, redacted
    const cacheText = readFileSync(join(dir, "a", "results.jsonl"), "utf8");
    expect(cacheText).not.toContain(KEY);
    const chaosJson = JSON.parse(readFileSync(join(dir, "a", "chaos.json"), "utf8"));
    expect(chaosJson.simulated).toBe(true);
    // a hang costs at most its deadline per try (3 tries), not forever
    expect(f.maxEpisodeMs).toBeLessThan(60_000);
  }, 300_000);

  it("gives the same results.jsonl bytes for the same seed", async () => {
    await run("b");
    expect(readFileSync(join(dir, "b", "results.jsonl"), "utf8")).toBe(
      readFileSync(join(dir, "a", "results.jsonl"), "utf8"),
    );
  }, 300_000);
});
