/**
 * The endpoint preflight is no stricter than the calls it protects: 429/5xx on `GET /v1/models`
 * (a scripted OpenAI-compatible server on 127.0.0.1) are retried with the calls' own backoff,
 * honouring the server's Retry-After, and what remains is said in one line: "rate limited",
 * "quota exhausted", or the HTTP status.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { preflightEndpoints, retryDelayMs } from "../../../experiments/agents/preflight.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { ablationQueues, cli, narrowedPreset, startRoleServer } from "../helpers/model-roles.ts";

const dir = mkdtempSync(join(tmpdir(), "retrace-preflight-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

async function server(options: Parameters<typeof startScriptedOpenAIServer>[0]): Promise<ScriptedOpenAIServer> {
  const s = await startScriptedOpenAIServer(options);
  servers.push(s);
  return s;
}
const endpoint = (url: string, maxRetries?: number) => ({
  baseUrl: url,
  backend: "openai" as const,
  apiKey: "sk-test-secret",
  users: ["pairs.0.forward"],
  ...(maxRetries !== undefined ? { maxRetries } : {}),
});

describe("endpoint preflight", () => {
  it("retries a 429 twice then 200 with the server's Retry-After and lets the run go on", async () => {
    const s = await server({ modelsStatus: [429, 429, 200], modelsRetryAfterMs: 40 });
    const waits: number[] = [];
    await expect(
      preflightEndpoints([endpoint(s.url)], { sleep: async (ms) => void waits.push(ms) }),
    ).resolves.toBeUndefined();
    expect(s.modelListCalls).toBe(3);
    expect(waits).toEqual([40, 40]); // retry-after-ms honoured
  });

  it("retries 5xx with the SDK's own backoff when the server names no wait", async () => {
    const s = await server({ modelsStatus: [503, 502, 200] });
    const waits: number[] = [];
    await preflightEndpoints([endpoint(s.url)], { sleep: async (ms) => void waits.push(ms) });
    expect(s.modelListCalls).toBe(3);
    expect(waits[0]).toBeGreaterThanOrEqual(375); // 0.5 s minus up to 25 % jitter
    expect(waits[0]).toBeLessThanOrEqual(500);
    expect(waits[1]).toBeGreaterThanOrEqual(750); // doubled
    expect(waits[1]).toBeLessThanOrEqual(1000);
  });

  it("says rate limited, after the calls' number of attempts, when every answer is 429", async () => {
    const s = await server({ modelsStatus: 429, modelsRetryAfterMs: 5 });
    const err = await preflightEndpoints([endpoint(s.url, 3)]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /^endpoint preflight: pairs\.0\.forward: http:\/\/127\.0\.0\.1:\d+\/v1 rate limited the run \(HTTP 429 on every one of 4 attempt\(s\)/,
    );
    expect((err as Error).message).not.toContain("sk-test-secret");
    expect(s.modelListCalls).toBe(4);
  });

  it("says quota exhausted at once for OpenAI's insufficient_quota (no retry helps)", async () => {
    const s = await server({ modelsStatus: 429, modelsErrorCode: "insufficient_quota", modelsRetryAfterMs: 5 });
    await expect(preflightEndpoints([endpoint(s.url)])).rejects.toThrow(
      /quota is exhausted \(HTTP 429 insufficient_quota\)/,
    );
    expect(s.modelListCalls).toBe(1);
  });

  it("does not retry a rejected key", async () => {
    const s = await server({ modelsStatus: 401 });
    await expect(preflightEndpoints([endpoint(s.url)])).rejects.toThrow(/rejected the API key \(HTTP 401\)/);
    expect(s.modelListCalls).toBe(1);
  });

  it("reads Retry-After in seconds and as an HTTP date; ignores waits of a minute or more", () => {
    expect(retryDelayMs(new Headers({ "retry-after": "2" }), 0)).toBe(2000);
    const date = retryDelayMs(new Headers({ "retry-after": new Date(Date.now() + 3000).toUTCString() }), 0);
    expect(date).toBeGreaterThan(1000);
    expect(date).toBeLessThanOrEqual(3000);
    expect(retryDelayMs(new Headers({ "retry-after": "120" }), 3)).toBeLessThanOrEqual(4000); // SDK default: 0.5 s * 2^3
  });
});

describe("retrace run behind a rate-limited endpoint", () => {
  it("starts after two 429s on the preflight and completes the run", async () => {
    const s = await startRoleServer(await ablationQueues(), { modelsStatus: [429, 429, 200], modelsRetryAfterMs: 20 });
    servers.push(s);
    const out = join(dir, "limited");
    const r = await cli(
      "run",
      narrowedPreset(join(dir, "limited.json")),
      "--base-url",
      s.url,
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
    expect(s.modelListCalls).toBe(3);
    expect(readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n").length).toBeGreaterThan(0);
  });

  it("stops with one line saying rate limited when the endpoint always answers 429", async () => {
    const s = await server({ modelsStatus: 429, modelsRetryAfterMs: 10 });
    const out = join(dir, "always-429");
    const r = await cli(
      "run",
      narrowedPreset(join(dir, "always.json")),
      "--base-url",
      s.url,
      "--model",
      "m",
      "--out",
      out,
      "--quiet",
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/endpoint preflight: .*rate limited the run \(HTTP 429/);
    expect(existsSync(out)).toBe(false);
  });
});
