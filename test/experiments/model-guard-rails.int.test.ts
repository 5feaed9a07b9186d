/**
 * Guard rails of model-backed runs (issue 10 §6, issue 12 defects 2-4) against real servers on
 * 127.0.0.1: every call failing (HTTP 500) exits non-zero and counts errors per role; a hung
 * server ends at the episode deadline; --max-cost-usd stops scheduling; mixed sim/model pairs run;
 * bad agent overrides are refused with the config field before anything is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../packages/testing/src/scripted-openai-server.ts";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import { ablationQueues, cli, narrowedPreset, startRoleServer } from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-guard-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));
const lines = (out: string): ResultLine[] =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);

/** Every pair agent of the preset with these extra model fields. */
const everyAgent = (fields: object) => (c: Record<string, any>) => {
  for (const role of ["forward", "recovery", "detector", "selector", "summarizer"])
    c.pairs[0][role] = { ...c.pairs[0][role], ...fields };
};

describe("guard rails of model-backed runs", () => {
  it("exits 1 and says so when every model call failed (HTTP 500), counting errors per role", async () => {
    const server = await startScriptedOpenAIServer({ responder: () => ({ status: 500 }) });
    servers.push(server);
    const cfg = narrowedPreset(join(dir, "500.json"), (c) => {
      everyAgent({ maxRetries: 0 })(c);
      c.options.maxForwardSteps = 3;
    });
    const out = join(dir, "500");
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "m",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^retrace: every model call failed \(detector (\d+)\/\1, policy (\d+)\/\2\); the results say nothing about the agents/m,
    );
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.allModelCallsFailed).toBe(true);
    expect(summary.models.policy.calls).toBeGreaterThan(0);
    expect(summary.models.policy.errors).toBe(summary.models.policy.calls);
    expect(lines(out).every((l) => l.models?.policy?.errors === l.models?.policy?.calls)).toBe(true);
  }, 60_000);

  it("run --policy: exits 1 when every call fails (HTTP 500), and refuses ftp:// and not-a-url before anything is written", async () => {
    const server = await startScriptedOpenAIServer({ responder: () => ({ status: 500 }) });
    servers.push(server);
    const out = join(dir, "policy500");
    const r = await cli(
      "run",
      "--policy",
      "openai",
      "--base-url",
      server.url,
      "--model",
      "m",
      "--task",
      "files-rename-draft",
      "--out",
      out,
      "--max-steps",
      "2",
      "--max-retries",
      "0",
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^retrace: every model call failed \(2 of 2; first: .*HTTP 500/);
    for (const url of ["not-a-url", "ftp://example.org/v1"]) {
      const o = join(dir, `policy-${url.length}`);
      const bad = await cli(
        "run",
        "--policy",
        "openai",
        "--base-url",
        url,
        "--model",
        "m",
        "--task",
        "files-rename-draft",
        "--out",
        o,
      );
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim()).toBe(
        `retrace: --base-url: expected an http:// or https:// URL such as http://127.0.0.1:8000/v1, got "${url}"`,
      );
      expect(existsSync(o)).toBe(false);
    }
  }, 60_000);

  it("ends an episode on a hung server at its wall-clock deadline", async () => {
    const server = await startScriptedOpenAIServer({ responder: () => ({ delayMs: Infinity }) });
    servers.push(server);
    const cfg = narrowedPreset(join(dir, "hang.json"), (c) => {
      c.episodeTimeoutMs = 1500;
      c.maxRecoveryIterations = [1];
      c.baseline = false;
    });
    const out = join(dir, "hang");
    const t0 = Date.now();
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "m",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(r.stderr).toMatch(/^retrace: every model call failed \(policy 1\/1\)/); // the call in flight at the deadline
    const [line] = lines(out);
    expect(line.stopReason).toBe("aborted");
    expect(line.success).toBe(false);
    expect(r.code).toBe(1);
    expect(line.models?.policy).toMatchObject({ calls: 1, errors: 1 });
  }, 60_000);

  it("--max-cost-usd stops scheduling new episodes once the spent cost reaches the cap", async () => {
    const server = await startRoleServer(await ablationQueues());
    servers.push(server);
    const cfg = narrowedPreset(
      join(dir, "cost.json"),
      everyAgent({ prices: { "m*": { inputPerMillion: 1000, outputPerMillion: 1000 } } }),
    );
    const out = join(dir, "cost");
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "m",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
      "--max-cost-usd",
      "0.0001",
    );
    expect(r.code).toBe(0);
    expect(lines(out)).toHaveLength(1);
    expect(lines(out)[0].costUsd).toBeGreaterThan(0.0001);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.stopped).toMatchObject({ notRun: 1 });
    expect(summary.stopped.reason).toMatch(/^--max-cost-usd 0.0001/);
    expect(r.stdout).toMatch(/stopped early: --max-cost-usd 0.0001: \$[\d.]+ spent; 1 episode\(s\) not run/);
  }, 60_000);

  it("runs mixed pairs: a model forward agent with a simulated detector, and a simulated forward agent with an LLM detector", async () => {
    const server = await startRoleServer({
      forward: Array.from({ length: 40 }, () => ({ text: "DONE" })),
      detector: [],
      selector: [],
      summarizer: [],
      recoverer: [],
    });
    servers.push(server);
    const cfg = join(dir, "mixed.json");
    writeFileSync(
      cfg,
      JSON.stringify({
        kind: "end-to-end",
        name: "mixed",
        env: { kind: "simdesk", tasks: ["files-rename-draft"] },
        seeds: [0],
        baseline: false,
        maxRecoveryIterations: [1],
        options: { maxForwardSteps: 8 },
        pairs: [
          {
            name: "model-fwd",
            forward: { kind: "model" },
            detector: { kind: "sim", profile: "perfect" },
            recovery: { kind: "sim", profile: "skilled" },
            selector: { kind: "sim" },
          },
          {
            name: "sim-fwd",
            forward: { kind: "sim", profile: "sloppy" },
            detector: { kind: "model" },
            recovery: { kind: "sim", profile: "skilled" },
          },
        ],
      }),
    );
    const out = join(dir, "mixed");
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "m",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.code).toBe(0);
    const [a, b] = lines(out);
    expect(a.simulated).toBe(true);
    expect(Object.keys(a.models!)).toEqual(["policy"]);
    expect(b.simulated).toBe(true);
    expect(Object.keys(b.models!)).toEqual(["detector"]);
    expect(b.models!.detector!.calls).toBeGreaterThan(0);
    expect(server.byRole.detector).toBe(b.models!.detector!.calls);
  }, 60_000);

  it("refuses bad agent overrides and seeds with the config field, leaving nothing behind", async () => {
    const base = {
      kind: "end-to-end",
      name: "bad",
      seeds: [0],
      pairs: [{ name: "p", forward: { kind: "sim", profile: "sloppy" }, detector: { kind: "sim", profile: "decent" } }],
    };
    const cases: Array<[object, string[], RegExp]> = [
      [
        { pairs: [{ ...base.pairs[0], detector: { kind: "sim", profile: "decent", recall: 7 } }] },
        [],
        /^retrace: config\.pairs\.0\.detector\.recall: Too big: expected number to be <=1$/,
      ],
      [
        { pairs: [{ ...base.pairs[0], forward: { kind: "sim", profile: "sloppy", slipRate: "lots" } }] },
        [],
        /^retrace: config\.pairs\.0\.forward\.slipRate: Invalid input: expected number, received string$/,
      ],
      [
        { pairs: [{ ...base.pairs[0], detector: { kind: "sim", profile: "decent", recal: 0.5 } }] },
        [],
        /^retrace: config\.pairs\.0\.detector: unknown field\(s\) "recal" for a sim detector$/,
      ],
      [
        { pairs: [{ ...base.pairs[0], detector: { kind: "loop", maxCycle: 0 } }] },
        [],
        /^retrace: config\.pairs\.0\.detector\.maxCycle: Too small/,
      ],
      [
        { pairs: [{ ...base.pairs[0], selector: { kind: "stagnation" } }] },
        [],
        /^retrace: config\.pairs\.0\.selector\.kind: stagnation cannot be a selector \(for selector: sim, model\)$/,
      ],
      [
        { pairs: [{ ...base.pairs[0], forward: { kind: "gpt" } }] },
        [],
        /^retrace: config\.pairs\.0\.forward\.kind: unknown agent kind "gpt" \(for forward: sim, model, openai-agents, ai-sdk, stagehand\)$/,
      ],
      [
        {
          pairs: [{ ...base.pairs[0], forward: { kind: "model", model: "m", format: "uitars", backend: "anthropic" } }],
        },
        [],
        /^retrace: config\.pairs\.0\.forward\.backend: format uitars talks to a chat model; use backend: openai \(or leave it out\) or backend: langchain$/,
      ],
      [
        { pairs: [{ ...base.pairs[0], forward: { kind: "model", model: "m", timeoutMs: -1 } }] },
        [],
        /^retrace: config\.pairs\.0\.forward\.timeoutMs: Too small/,
      ],
      [{}, ["--seed", "99999999999999999999"], /^retrace: --seed: expected an integer between/],
    ];
    for (const [i, [patch, flags, expected]] of cases.entries()) {
      const cfg = join(dir, `bad${i}.json`);
      writeFileSync(cfg, JSON.stringify({ ...base, ...patch }));
      const out = join(dir, `bad-out-${i}`);
      const r = await cli("run", cfg, "--out", out, "--quiet", ...flags);
      expect(r.code, JSON.stringify(patch)).toBe(2);
      expect(r.stderr.trim(), JSON.stringify(patch)).toMatch(expected);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(existsSync(out)).toBe(false);
    }
  });
});
