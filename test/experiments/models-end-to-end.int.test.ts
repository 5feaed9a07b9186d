/**
 * `retrace run experiments/configs/models/end-to-end.yaml --base-url URL --model NAME`: the paper's
 * no-recovery vs recovery ablation with the forward agent, detector, selector, recovery sub-agent
 * and summarizer all model-backed, against one scripted OpenAI-compatible server on 127.0.0.1.
 * Then a cached re-run: zero server calls, byte-identical results.jsonl.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ResultLine } from "../../experiments/runner/results-log.ts";
import type { CallRecord } from "../../experiments/agents/call-log.ts";
import type { ScriptedOpenAIServer } from "../../packages/testing/src/scripted-openai-server.ts";
import {
  ablationQueues,
  cli,
  narrowedPreset,
  recovererAnswers,
  restorativeAction,
  startRoleServer,
} from "./helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-models-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

/** A port nothing listens on (a server bound it, then closed). */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

const lines = (out: string): ResultLine[] =>
  readFileSync(join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultLine);

describe("the model-backed end-to-end preset on SimDesk", () => {
  it("runs no recovery vs recovery with every role model-backed, then replays from the cache with 0 requests and the same bytes", async () => {
    const queues = await ablationQueues();
    // every forward answer comes after 40 ms, so each recorded latency is a real measurement
    // (whichever episode's request takes a given answer: the workers run episodes concurrently)
    queues.forward = queues.forward.map((a) => ({ ...a, delayMs: 40 }));
    const server = await startRoleServer(queues);
    servers.push(server);
    // the forward agent is priced, the detector is not (its calls' cost is unknown, not $0)
    const price = { inputPerMillion: 2.5, outputPerMillion: 10 };
    const cfg = narrowedPreset(
      join(dir, "e2e.json"),
      (c) => void (c.pairs[0].forward.prices = { "scripted-vlm": price }),
    );
    const out1 = join(dir, "run1");
    const cache = join(dir, "cache");
    const r1 = await cli(
      "run",
      cfg,
      "--base-url",
      server.url,
      "--model",
      "scripted-vlm",
      "--out",
      out1,
      "--workers",
      "1",
      "--quiet",
      "--cache",
      "write",
      "--cache-dir",
      cache,
    );
    expect(r1.stderr).toBe("");
    expect(r1.code).toBe(0);
    server.verify();
    expect(server.modelListCalls).toBe(1); // one preflight: every role shares the endpoint
    expect(server.byRole).toMatchObject({ selector: 1, summarizer: 1, recoverer: 2 });
    expect(server.byRole.detector).toBeGreaterThanOrEqual(3);

    const [baseline, recovery] = lines(out1);
    expect(baseline.condition).toBe("model.no-recovery");
    expect(baseline).toMatchObject({ simulated: false, success: false, recoveryAttempts: 0 });
    expect(Object.keys(baseline.models!)).toEqual(["policy"]);
    expect(recovery.condition).toBe("model.max-rec-1");
    expect(recovery).toMatchObject({ simulated: false, success: true, recoveryAttempts: 1, recoverySteps: 1 });
    expect(Object.keys(recovery.models!).sort()).toEqual(["detector", "policy", "recoverer", "selector", "summarizer"]);
    expect(recovery.models!.recoverer).toMatchObject({ calls: 2, errors: 0 });
    expect(recovery.models!.selector).toMatchObject({ calls: 1, errors: 0 });
    expect(recovery.models!.policy!.inputTokens).toBeGreaterThan(0);
    expect(recovery.tokens).toBe(
      Object.values(recovery.models!).reduce((s, m) => s + m!.inputTokens + m!.outputTokens, 0),
    );
    expect(r1.stdout).toContain("model role");
    expect(r1.stdout).not.toContain("SIMULATED");
    const summary = JSON.parse(readFileSync(join(out1, "summary.json"), "utf8"));
    expect(summary.simulated).toBe(false);
    expect(summary.models.recoverer.calls).toBe(2);
    expect(summary.allModelCallsFailed).toBe(false);

    // The report reads the model-backed run: calls, tokens and cost per role.
    const rep = await cli("report", out1, "--quiet", "--episodes", "1");
    expect(rep.code).toBe(0);
    const html = readFileSync(join(out1, "report.html"), "utf8");
    expect(html).toContain("Model calls per role");
    // Every model call is logged on its step when it is made (trajectory.json `calls`), and the
    // viewer ships them in per-episode call files: prompt, reply, tokens, latency, cost.
    expect(readdirSync(join(out1, "report-files")).some((f) => /^calls-\d+-\d+\.js$/.test(f))).toBe(true);
    type Call = CallRecord;
    const records = (function walk(d: string): string[] {
      return readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(join(d, e.name)) : e.name === "trajectory.json" ? [join(d, e.name)] : [],
      );
    })(out1);
    expect(records.length).toBe(2);
    // Each call's measured latency is in timings.jsonl (records leave measured times out: same seed, same bytes).
    const callMs = new Map(
      readFileSync(join(out1, "timings.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((t) => JSON.parse(t) as { key: string; callMs?: number[] })
        .map((t) => [t.key, t.callMs ?? []]),
    );
    for (const f of records) expect(readFileSync(f, "utf8")).not.toContain("latencyMs");
    const all: Call[] = records.flatMap((f) => {
      const rec = JSON.parse(readFileSync(f, "utf8")) as { key: string; calls?: Call[] };
      return (rec.calls ?? []).map((c, i) => ({ ...c, latencyMs: callMs.get(rec.key)?.[i] ?? undefined }) as Call);
    });
    const call = all.find((c) => c.role === "policy")!;
    expect(call).toMatchObject({ model: "scripted-vlm", reply: expect.any(String), seq: 0 });
    expect(JSON.stringify(call.messages)).toMatch(/"image"|"ref"/);
    expect(call.inputTokens).toBeGreaterThan(0);
    expect(call.prompt).toMatch(/@\d/);
    // latency and cost per call: cost from the spec's price
    expect(call.costUsd).toBeCloseTo(
      (call.inputTokens * price.inputPerMillion + call.outputTokens * price.outputPerMillion) / 1e6,
      12,
    );
    expect(all.filter((c) => c.role === "policy").every((c) => typeof c.latencyMs === "number" && c.costUsd! > 0)).toBe(
      true,
    );
    // the answers the server held back 40 ms were measured as such (slack: Node's timers may fire a
    // little early and latencies are whole milliseconds)
    const policyLatencies = all.filter((c) => c.role === "policy").map((c) => c.latencyMs ?? 0);
    expect(Math.min(...policyLatencies)).toBeGreaterThanOrEqual(38);
    const detector = all.find((c) => c.role === "detector")!;
    expect(typeof detector.latencyMs).toBe("number");
    expect(detector.costUsd).toBeUndefined();
    expect(html).toMatch(/<td>model, max recovery iterations 1<\/td><td>recoverer<\/td><td>2<\/td><td>0<\/td>/);
    // the paper's end-to-end findings judged on the model-backed run (one episode per condition: one discordant pair,
    // too few to tell)
    expect(html).toMatch(
      /<b>cannot tell \(n too small: 1 discordant pair, fewer than 6\)<\/b>: Recovery improves task success over no recovery at every setting of max recovery iterations \(recoverer &quot;model&quot;\) \(Finding 5\)\. <span class="meta">model: no recovery 0\.0%, max-rec-1 100\.0%; mean gain 100\.0 points/,
    );
    expect(html).toMatch(
      /Finding 6\)\. <span class="meta">cannot be judged: pair &quot;model&quot; has one setting of max recovery iterations \(1\)/,
    );
    expect(html).toMatch(/Finding 3\)\. <span class="meta">cannot be judged: no recovery evaluation/);

    // Cached re-run: no request reaches the server (not even the preflight), same bytes.
    const before = server.calls;
    const out2 = join(dir, "run2");
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
    expect(server.calls - before).toBe(0);
    expect(server.modelListCalls).toBe(1);
    expect(r2.stdout).toContain("0 call(s) reached a server");
    expect(readFileSync(join(out2, "results.jsonl"), "utf8")).toBe(readFileSync(join(out1, "results.jsonl"), "utf8"));
  }, 120_000);

  for (const format of ["uitars", "anthropic"] as const)
    it(`runs the preset with a ${format}-format recovery sub-agent (the recoverer speaks the format through its own adapter)`, async () => {
      const queues = await ablationQueues();
      queues.recoverer = recovererAnswers(format, await restorativeAction());
      const server = await startRoleServer(queues);
      servers.push(server);
      process.env.RETRACE_TEST_ANTHROPIC_KEY = "test-anthropic-key";
      const cfg = narrowedPreset(join(dir, `${format}.json`), (c) => {
        c.pairs[0].recovery =
          format === "uitars"
            ? { kind: "model", format }
            : { kind: "model", format, baseUrl: server.origin, apiKeyEnv: "RETRACE_TEST_ANTHROPIC_KEY" };
      });
      const out = join(dir, `run-${format}`);
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
      const recoverer = server.requests.filter((q) => q.body && JSON.stringify(q.body).includes("RECOVERY MODE."));
      expect(recoverer.map((q) => q.endpoint)).toEqual(
        format === "uitars" ? ["chat", "chat"] : ["messages", "messages"],
      );
      const [, recovery] = lines(out);
      expect(recovery).toMatchObject({
        condition: "model.max-rec-1",
        simulated: false,
        success: true,
        recoveryAttempts: 1,
        recoverySteps: 1,
      });
      expect(recovery.models!.recoverer).toMatchObject({ calls: 2, errors: 0 });
      expect(recovery.prompts.join(" ")).toContain(
        format === "uitars"
          ? "recovery.system-prefix@1+recovery.instruction-prefix@2+forward.uitars"
          : "recovery.system-prefix.tool@1",
      );
    }, 120_000);

  it("refuses a model agent without a model name, and a bad URL, before anything is written", async () => {
    const cfg = narrowedPreset(join(dir, "nomodel.json"));
    const out = join(dir, "never");
    const r = await cli("run", cfg, "--out", out, "--quiet", "--base-url", "http://127.0.0.1:9/v1");
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^retrace: config\.pairs\.0\.forward\.model: missing; give the model name in the config or pass --model NAME$/,
    );
    const bad = await cli("run", cfg, "--out", out, "--quiet", "--base-url", "not-a-url", "--model", "m");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/config\.pairs\.0\.forward\.baseUrl: expected an http:\/\/ or https:\/\/ URL/);
    const ftp = await cli("run", cfg, "--out", out, "--quiet", "--base-url", "ftp://example.org/v1", "--model", "m");
    expect(ftp.stderr).toMatch(/baseUrl: expected an http/);
    expect(existsSync(out)).toBe(false);
  });

  it("stops at the endpoint preflight with one line naming the roles and URL when the server is down", async () => {
    const cfg = narrowedPreset(join(dir, "dead.json"));
    const out = join(dir, "dead");
    const port = await deadPort();
    const r = await cli(
      "run",
      cfg,
      "--out",
      out,
      "--quiet",
      "--base-url",
      `http://127.0.0.1:${port}/v1`,
      "--model",
      "m",
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /endpoint preflight: pairs\.0\.forward, pairs\.0\.detector.*cannot reach http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\)/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
