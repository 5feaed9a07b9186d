/**
 * Cached prompt tokens in the results of an OpenAI-style, a vLLM-style and an Anthropic-style
 * server (issue 40): the model-backed end-to-end preset runs against scripted servers on 127.0.0.1
 * that report cached tokens their provider's way, and the cached, uncached and billed-equivalent
 * tokens per role appear in results.jsonl, summary.json, the console's table and the report, and
 * survive a replay from the record/replay cache byte for byte.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { ExperimentSummary } from "../../experiments/runner/summary.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import {
  ablationQueues,
  cli,
  narrowedPreset,
  recovererAnswers,
  restorativeAction,
  startRoleServer,
} from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-cached-tokens-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

const lines = (out: string): ResultLine[] =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);
const summaryOf = (out: string) => JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as ExperimentSummary;

describe("cached prompt tokens in the results", () => {
  for (const style of ["openai", "vllm"] as const)
    it(`${style}-style chat completions: prompt_tokens_details.cached_tokens is counted apart, billed at half, in results, summary, console and report, and replayed from the cache`, async () => {
      // every policy call: 3,000 prompt tokens of which 2,048 cached; the detector's server reports no cache detail at
      // all (vLLM: null)
      const server = await startRoleServer(await ablationQueues(), {
        usage: {
          forward: { inputTokens: 3000, outputTokens: 20, cachedInputTokens: 2048, style },
          detector: { inputTokens: 1000, outputTokens: 10, style },
        },
      });
      servers.push(server);
      const price = { inputPerMillion: 2.5, outputPerMillion: 10 };
      const cfg = narrowedPreset(
        join(dir, `${style}.json`),
        (c) => void (c.pairs[0].forward.prices = { "scripted-vlm": price }),
      );
      const out = join(dir, `run-${style}`);
      const cache = join(dir, `cache-${style}`);
      const r = await cli(
        "run",
        cfg,
        "--base-url",
        server.url,
        "--model",
        "scripted-vlm",
        "--out",
        out,
        "--workers",
        "1",
        "--quiet",
        "--cache",
        "write",
        "--cache-dir",
        cache,
      );
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      server.verify();
      // the server saw the conversation key, one per episode and role
      const keys = server.requests.map((q) => q.body?.prompt_cache_key as string);
      expect(keys.every((k) => /^retrace-[0-9a-f]{16}\/(policy|detector|selector|summarizer|recoverer)$/.test(k))).toBe(
        true,
      );

      const [baseline, recovery] = lines(out);
      for (const l of [baseline, recovery]) {
        const p = l.models!.policy!;
        expect(p.calls).toBeGreaterThan(2);
        expect(p).toMatchObject({
          inputTokens: 3000 * p.calls,
          cachedInputTokens: 2048 * p.calls,
          uncachedInputTokens: 952 * p.calls,
          cacheWriteInputTokens: 0,
          outputTokens: 20 * p.calls,
        });
        // billed: 952 uncached + 0.5 x 2,048 cached + 20 output = 1,996 per call
        expect(p.billedTokens).toBe(1996 * p.calls);
        // cost at the cached price: (952 + 1,024) x $2.5/M + 20 x $10/M per call
        expect(p.costUsd).toBeCloseTo((p.calls * (1976 * 2.5 + 20 * 10)) / 1e6, 9);
      }
      // a role whose server reported no cache keeps its shape: no cached fields, billed = tokens
      const det = recovery.models!.detector!;
      expect(det).not.toHaveProperty("cachedInputTokens");
      expect(det).not.toHaveProperty("billedTokens");
      expect(det.inputTokens).toBe(1000 * det.calls);
      const others = Object.entries(recovery.models!)
        .filter(([role]) => role !== "policy")
        .reduce((s, [, m]) => s + m!.inputTokens + m!.outputTokens, 0);
      expect(recovery.billedTokens).toBe(recovery.models!.policy!.billedTokens! + others);
      expect(recovery.tokens - recovery.billedTokens!).toBe(1024 * recovery.models!.policy!.calls);

      const summary = summaryOf(out);
      const rec = summary.conditions.find((c) => c.condition === "model.max-rec-1")!;
      expect(rec.tokens!.promptCache).toBe(true);
      expect(rec.tokens!.roles.policy).toMatchObject({
        cachedInputTokens: recovery.models!.policy!.cachedInputTokens,
        uncachedInputTokens: recovery.models!.policy!.uncachedInputTokens,
        billedTokens: recovery.models!.policy!.billedTokens,
        billedPerEpisode: recovery.models!.policy!.billedTokens,
      });
      expect(rec.tokens!.roles.detector).toMatchObject({
        cachedInputTokens: 0,
        uncachedInputTokens: det.inputTokens,
        billedTokens: det.inputTokens + det.outputTokens,
      });
      expect(rec.tokens!.total.billedTokens).toBe(recovery.billedTokens);
      expect(rec.billedTokensPerEpisode).toBe(recovery.billedTokens);
      const allPolicyCalls = baseline.models!.policy!.calls + recovery.models!.policy!.calls;
      expect(summary.models!.policy).toMatchObject({
        cachedInputTokens: 2048 * allPolicyCalls,
        billedTokens: 1996 * allPolicyCalls,
      });

      // console: the per-role table has the split
      const row = r.stdout.split("\n").find((l) => /^policy\s/.test(l))!;
      expect(r.stdout).toMatch(
        /model role\s+calls\s+errors\s+in tokens\s+uncached in\s+cached in\s+out tokens\s+billed tokens\s+cost/,
      );
      expect(row.trim().split(/\s+/).slice(1, 8)).toEqual(
        [
          allPolicyCalls,
          0,
          3000 * allPolicyCalls,
          952 * allPolicyCalls,
          2048 * allPolicyCalls,
          20 * allPolicyCalls,
          1996 * allPolicyCalls,
        ].map(String),
      );

      // report: the token table per role with uncached, cached and billed columns
      const rep = await cli("report", out, "--quiet", "--episodes", "1");
      expect(rep.code).toBe(0);
      const html = readFileSync(join(out, "report.html"), "utf8");
      const p = recovery.models!.policy!;
      expect(html).toContain(
        `<td>policy</td><td>${p.calls}</td><td>${p.inputTokens}</td><td>${p.uncachedInputTokens}</td><td>${p.cachedInputTokens}</td><td>${p.outputTokens}</td><td>${p.billedTokens}</td>`,
      );
      expect(html).toContain("billed overhead");

      // replayed from the record/replay cache: 0 requests, the same cached counts, the same bytes
      const before = server.calls;
      const out2 = join(dir, `run-${style}-replay`);
      const r2 = await cli(
        "run",
        cfg,
        "--base-url",
        server.url,
        "--model",
        "scripted-vlm",
        "--out",
        out2,
        "--workers",
        "1",
        "--quiet",
        "--cache",
        "read",
        "--cache-dir",
        cache,
      );
      expect(r2.code).toBe(0);
      expect(server.calls).toBe(before);
      expect(readFileSync(join(out2, "results.jsonl"), "utf8")).toBe(readFileSync(join(out, "results.jsonl"), "utf8"));
    }, 120_000);

  it("Anthropic-style messages: cache_read and cache_creation come on top of input_tokens, billed at 0.1x and 1.25x", async () => {
    const queues = await ablationQueues();
    queues.recoverer = recovererAnswers("anthropic", await restorativeAction());
    // Anthropic's convention: input_tokens 500 are the tokens after the cache breakpoint; 2,000 read from the cache,
    // 100 written to it
    const server = await startRoleServer(queues, {
      usage: { recoverer: { inputTokens: 500, outputTokens: 20, cachedInputTokens: 2000, cacheWriteInputTokens: 100 } },
    });
    servers.push(server);
    process.env.RETRACE_TEST_ANTHROPIC_KEY = "test-anthropic-key";
    const cfg = narrowedPreset(join(dir, "anthropic.json"), (c) => {
      c.pairs[0].recovery = {
        kind: "model",
        format: "anthropic",
        baseUrl: server.origin,
        apiKeyEnv: "RETRACE_TEST_ANTHROPIC_KEY",
        prices: { "scripted-vlm": { inputPerMillion: 3, outputPerMillion: 15 } },
      };
    });
    const out = join(dir, "run-anthropic");
    const r = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "scripted-vlm",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    server.verify();
    expect(server.requests.filter((q) => q.endpoint === "messages")).toHaveLength(2);
    const [, recovery] = lines(out);
    // per call: inputTokens 500 + 2,000 + 100 = 2,600; billed 500 + 0.1 x 2,000 + 1.25 x 100 + 20 = 845
    expect(recovery.models!.recoverer).toMatchObject({
      calls: 2,
      inputTokens: 5200,
      uncachedInputTokens: 1000,
      cachedInputTokens: 4000,
      cacheWriteInputTokens: 200,
      outputTokens: 40,
      billedTokens: 1690,
    });
    // cost at Anthropic's cache prices: (500 + 0.1 x 2,000 + 1.25 x 100) x $3/M + 20 x $15/M per call
    expect(recovery.models!.recoverer!.costUsd).toBeCloseTo((2 * (825 * 3 + 20 * 15)) / 1e6, 9);
    const rec = summaryOf(out).conditions.find((c) => c.condition === "model.max-rec-1")!;
    expect(rec.tokens!.roles.recoverer).toMatchObject({
      cachedInputTokens: 4000,
      cacheWriteInputTokens: 200,
      uncachedInputTokens: 1000,
      billedTokens: 1690,
    });
    // the console shows the cache writes column when a server reported writes
    expect(r.stdout).toMatch(/cached in\s+cache writes\s+out tokens/);
    expect(
      r.stdout
        .split("\n")
        .find((l) => /^recoverer\s/.test(l))!
        .trim()
        .split(/\s+/)
        .slice(1, 9),
    ).toEqual(["2", "0", "5200", "1000", "4000", "200", "40", "1690"]);
  }, 120_000);

  it("says so when no server reported a prompt cache: cached 0, billed = tokens", async () => {
    const server = await startRoleServer(await ablationQueues());
    servers.push(server);
    const out = join(dir, "run-none");
    const r = await cli(
      "run",
      narrowedPreset(join(dir, "none.json")),
      "--base-url",
      server.url,
      "--model",
      "scripted-vlm",
      "--out",
      out,
      "--workers",
      "1",
      "--quiet",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("no server reported prompt-cache tokens: cached 0, billed = in + out tokens");
    const [, recovery] = lines(out);
    expect(recovery).not.toHaveProperty("billedTokens");
    const rec = summaryOf(out).conditions.find((c) => c.condition === "model.max-rec-1")!;
    expect(rec.tokens!.promptCache).toBe(false);
    expect(rec.tokens!.total).toMatchObject({ cachedInputTokens: 0, billedTokens: recovery.tokens });
    expect(rec.billedTokensPerEpisode).toBe(recovery.tokens);
    await cli("report", out, "--quiet", "--episodes", "1");
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain(
      "No server reported prompt-cache tokens in this run: cached is 0 and billed = tokens",
    );
  }, 120_000);
});
