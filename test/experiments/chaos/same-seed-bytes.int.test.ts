/**
 * Issue 31: "`trajectories.jsonl.gz` holds `envMs`, so same-seed runs are not byte-identical
 * there." Two chaos runs (seeded environment faults, so some episodes are retried: envTries > 1;
 * the LLM detector and selector over HTTP to the seeded chaos server) with the same config and
 * seed, episode records packed: every file is byte-identical except those docs/reliability.md
 * names as holding measured times (timings.jsonl, chaos.json's wall times, the model cache's
 * entries, each episode's OSWorld-style traj.jsonl). The records hold no measured time (no envMs,
 * no latencyMs); the calls' latencies are in timings.jsonl, where the viewer reads them.
 */
import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseExperimentConfig } from "../../../experiments/config/load.ts";
import { runChaos } from "../../../experiments/chaos/run.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-same-seed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = parseExperimentConfig({
  kind: "end-to-end",
  name: "same-seed",
  env: { kind: "simdesk", sample: 3 },
  seeds: { count: 2 },
  options: { maxForwardSteps: 12, freezeWindow: 3, recoveryBudget: 4 },
  maxRecoveryIterations: [2],
  pairs: [{ name: "s", forward: { kind: "sim", profile: "sloppy" }, recovery: { kind: "sim", profile: "skilled" } }],
});
const run = (out: string) =>
  runChaos({
    config,
    out: join(dir, out),
    seed: 11,
    envFaultRate: 0.2,
    modelFaultRate: 0.3,
    envTimeoutMs: 2500,
    modelTimeoutMs: 3000,
    workers: 1,
    apiKey: "same-seed-key-0123456789abcdef",
    episodeRecords: "pack",
  });

/** Files holding measured times, by design (docs/reliability.md "Same seed, same bytes"). */
const TIMED = (f: string) =>
  f === "timings.jsonl" || f === "chaos.json" || f.startsWith("model-cache/") || f.endsWith("/traj.jsonl");

const files = (d: string) =>
  readdirSync(d, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(d.length + 1))
    .sort();

describe("same config and seed, with retried episodes", () => {
  it("writes byte-identical files except those holding measured times; the record pack holds no time", async () => {
    await run("a");
    await run("b");
    const a = join(dir, "a");
    const b = join(dir, "b");
    const lines = readFileSync(join(a, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // the case: some episodes were retried after an environment error
    expect(lines.filter((l) => l.envTries > 1).length).toBeGreaterThan(0);
    expect(files(b)).toEqual(files(a));
    const differ = files(a).filter((f) => !readFileSync(join(a, f)).equals(readFileSync(join(b, f))));
    expect(differ.filter((f) => !TIMED(f))).toEqual([]);
    for (const f of ["results.jsonl", "trajectories.jsonl.gz", "summary.json", "summary.csv", "manifest.json"])
      expect(files(a)).toContain(f);
    const pack = gunzipSync(readFileSync(join(a, "trajectories.jsonl.gz"))).toString("utf8");
    expect(pack).not.toMatch(/"envMs"|"latencyMs"/);
    expect(pack).toContain('"usage"'); // the detector's usage is there, without its latency
  }, 600_000);
});
