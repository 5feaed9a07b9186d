/**
 * Independent, reproducible draws on the model path (issue 19), against a server that samples:
 * every model call carries a draw identity (episode seed, task, continuation k, role, ordinal)
 * that keys the cache and is sent as `seed`. Different seeds and different continuations get
 * different draws; a cached re-run makes 0 calls and writes the same bytes; `draws: paired`
 * shares a condition pair's first draw, `independent` does not; `sendSeed: false` omits the seed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { EpisodeRecord } from "../../experiments/runner/episode.ts";
import { formatAction } from "../../packages/core/src/action.ts";
import { startSamplingOpenAIServer, type SamplingOpenAIServer } from "../helpers/sampling-openai-server.ts";
import { cli } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-draws-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: SamplingOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

const TASK = "files-rename-draft";
const lines = (out: string): ResultLine[] =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);
/** The actions an episode executed, one string per step. */
const actionsOf = (out: string, folder: string): string[] =>
  (JSON.parse(readFileSync(join(out, folder, "trajectory.json"), "utf8")) as EpisodeRecord).trajectory.steps.map((s) =>
    s.actions.map(formatAction).join("; "),
  );

function e2eConfig(name: string, patch: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): string {
  const model = { kind: "model", format: "pyautogui", temperature: 0.7, ...spec };
  const config = {
    kind: "end-to-end",
    name,
    env: { kind: "simdesk", tasks: [TASK] },
    seeds: [0, 1, 2],
    maxRecoveryIterations: [1],
    options: {
      maxForwardSteps: 4,
      recoveryBudget: 2,
      detection: "sequential",
      recoveryStep: "llm",
      recoveryContext: "0-E",
    },
    pairs: [
      {
        name: "m",
        forward: model,
        recovery: model,
        detector: { kind: "model", ...spec },
        selector: { kind: "model", ...spec },
      },
    ],
    ...patch,
  };
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

async function run(cfg: string, server: SamplingOpenAIServer, out: string, ...extra: string[]) {
  const r = await cli(
    "run",
    cfg,
    "--base-url",
    server.url,
    "--model",
    "sampling-vlm",
    "--out",
    out,
    "--workers",
    "1",
    "--quiet",
    ...extra,
  );
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r;
}

describe("draws of model calls against a sampling server", () => {
  it("gives 3 seeds 3 trajectories at temperature 0.7, pairs conditions by default, and replays a cached run with 0 calls and the same bytes", async () => {
    const server = await startSamplingOpenAIServer();
    servers.push(server);
    const cfg = e2eConfig("draws-e2e");
    const cache = join(dir, "cache-e2e");
    const out1 = join(dir, "e2e-1");
    await run(cfg, server, out1, "--cache", "readwrite", "--cache-dir", cache);
    const base = [0, 1, 2].map((s) => actionsOf(out1, join("m.no-recovery", TASK, String(s))));
    expect(new Set(base.map((a) => JSON.stringify(a))).size).toBe(3);
    // seeds 0 and 1 no longer share the first request's answer (nor its seed)
    expect(base[0][0]).not.toBe(base[1][0]);
    const firstForward = server.received.filter((r) => r.role === "forward").map((r) => r.seed);
    expect(firstForward.every((s) => Number.isInteger(s))).toBe(true);
    // paired (the default): the recovery condition's first forward step is the baseline's draw
    const rec = [0, 1, 2].map((s) => actionsOf(out1, join("m.max-rec-1", TASK, String(s))));
    for (let s = 0; s < 3; s++) expect(rec[s][0]).toBe(base[s][0]);
    const summary = JSON.parse(readFileSync(join(out1, "summary.json"), "utf8"));
    expect(summary.draws).toBe("paired");
    expect(JSON.parse(readFileSync(join(out1, "manifest.json"), "utf8")).draws).toBe("paired");

    // A cached re-run: not one model request, the same results.jsonl bytes.
    const calls = server.calls;
    const out2 = join(dir, "e2e-2");
    await run(cfg, server, out2, "--cache", "readwrite", "--cache-dir", cache);
    expect(server.calls).toBe(calls);
    expect(readFileSync(join(out2, "results.jsonl"), "utf8")).toBe(readFileSync(join(out1, "results.jsonl"), "utf8"));
  }, 180_000);

  it("draws each condition apart under draws: independent, and omits the seed with sendSeed: false", async () => {
    const server = await startSamplingOpenAIServer();
    servers.push(server);
    const out = join(dir, "e2e-independent");
    await run(e2eConfig("draws-independent", { draws: "independent", seeds: [0, 1] }), server, out);
    const firsts = (c: string) => [0, 1].map((s) => actionsOf(out, join(c, TASK, String(s)))[0]);
    const [b, r] = [firsts("m.no-recovery"), firsts("m.max-rec-1")];
    expect(b[0] !== r[0] || b[1] !== r[1]).toBe(true);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).draws).toBe("independent");

    const before = server.received.length;
    await run(e2eConfig("draws-noseed", { seeds: [0] }, { sendSeed: false }), server, join(dir, "e2e-noseed"));
    const sent = server.received.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((x) => x.seed === undefined)).toBe(true);
    expect(server.received.slice(0, before).every((x) => x.seed !== undefined)).toBe(true);
  }, 180_000);

  it("draws K = 5 continuations from one R (at least 2 distinct action sequences) and replays them from the cache with 0 calls", async () => {
    const server = await startSamplingOpenAIServer({ doneRate: 0.05 });
    servers.push(server);
    const config = {
      kind: "ideal-recovery",
      name: "draws-ideal",
      env: { kind: "simdesk", tasks: [TASK] },
      seeds: [0],
      k: 5,
      strategies: ["zero"],
      forward: { kind: "model", format: "pyautogui", temperature: 0.7 },
      detector: { kind: "model" },
      options: { maxForwardSteps: 3 },
    };
    const cfg = join(dir, "ideal.json");
    writeFileSync(cfg, JSON.stringify(config));
    const cache = join(dir, "cache-ideal");
    const out1 = join(dir, "ideal-1");
    await run(cfg, server, out1, "--cache", "readwrite", "--cache-dir", cache);
    const all = lines(out1);
    const conts = all.filter((l) => l.extra?.phase === "continuation");
    expect(conts).toHaveLength(5);
    // every continuation asked the server (none replayed the rollout's cached answers)
    for (const c of conts) expect(c.models!.policy!.calls).toBeGreaterThan(0);
    expect(server.byRole.forward).toBe(all.reduce((s, l) => s + (l.models?.policy?.calls ?? 0), 0));
    const sequences = conts.map((c) => JSON.stringify(actionsOf(out1, join(c.condition, TASK, `0-k${c.extra!.k}`))));
    expect(new Set(sequences).size).toBeGreaterThanOrEqual(2);

    const calls = server.calls;
    const out2 = join(dir, "ideal-2");
    await run(cfg, server, out2, "--cache", "readwrite", "--cache-dir", cache);
    expect(server.calls).toBe(calls);
    expect(readFileSync(join(out2, "results.jsonl"), "utf8")).toBe(readFileSync(join(out1, "results.jsonl"), "utf8"));
  }, 180_000);
});
