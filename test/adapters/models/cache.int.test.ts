import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withCache, parseCacheMode } from "../../../packages/models/src/models/cache.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import type { ChatRequest } from "../../../packages/core/src/model.ts";
import { storePng, tempBlobs } from "../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
}

describe("record/replay cache", () => {
  it("replays a recorded run with zero server calls and identical answers", async () => {
    const blobs = tempBlobs();
    const shot = await storePng(blobs);
    const dir = mkdtempSync(join(tmpdir(), "retrace-cache-"));
    const requests: ChatRequest[] = [
      {
        role: "policy",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "step 0" },
              { type: "image", blob: shot.ref },
            ],
          },
        ],
      },
      { role: "detector", json: true, messages: [{ role: "user", content: "was step 0 wrong?" }] },
    ];
    server = await startScriptedOpenAIServer({
      script: [
        { text: "pyautogui.click(1, 2)", usage: { inputTokens: 50, outputTokens: 7 } },
        { text: '{"isError":false}', usage: { inputTokens: 20, outputTokens: 5 } },
      ],
    });
    const record = withCache(
      createOpenAIChatModel({
        model: "m",
        baseURL: server.url,
        apiKey: "sk-test-SECRET-123",
        blobs,
        seed: 7,
        settings: noEnv,
      }),
      { dir, mode: "readwrite" },
    );
    const first = [];
    for (const r of requests) first.push(await record.complete(r));
    expect(server.calls).toBe(2);
    expect(record.stats).toEqual({ hits: 0, misses: 2, writes: 2 });
    server.verify();
    await server.close();

    server = await startScriptedOpenAIServer({ script: [] });
    const replay = withCache(
      createOpenAIChatModel({ model: "m", baseURL: server.url, apiKey: "sk-other", blobs, seed: 7, settings: noEnv }),
      { dir, mode: "read", onMiss: "throw" },
    );
    const second = [];
    for (const r of requests) second.push(await replay.complete(r));
    expect(server.calls).toBe(0);
    expect(second.map((r) => r.text)).toEqual(first.map((r) => r.text));
    expect(second.map((r) => [r.usage.inputTokens, r.usage.outputTokens, r.usage.cached, r.usage.costUsd])).toEqual([
      [50, 7, true, 0],
      [20, 5, true, 0],
    ]);
    expect(second[1].usage.role).toBe("detector");
    const stored = files(dir);
    expect(stored).toHaveLength(2);
    for (const f of stored) {
      const text = readFileSync(f, "utf8");
      expect(text).not.toContain("SECRET-123");
      expect(text).not.toContain("base64"); // images are stored as their hashes, not bytes
    }
    expect(stored.some((f) => readFileSync(f, "utf8").includes(shot.ref))).toBe(true);
  });

  it("records each call's latency, role and prompt, and its cost when the spec is priced; entries without them still replay", async () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-cache-"));
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        { text: "a", usage: { inputTokens: 1000, outputTokens: 200 }, delayMs: 30 },
        { text: "b", usage: { inputTokens: 10, outputTokens: 2 } },
      ],
    });
    const prices = { m: { inputPerMillion: 3, outputPerMillion: 15 } };
    const priced = withCache(
      createOpenAIChatModel({ model: "m", baseURL: server.url, apiKey: "k", blobs, prices, settings: noEnv }),
      { dir, mode: "readwrite" },
    );
    await priced.complete({
      role: "policy",
      prompt: "forward.pyautogui@3",
      messages: [{ role: "user", content: "priced" }],
    });
    const unpriced = withCache(
      createOpenAIChatModel({ model: "m", baseURL: server.url, apiKey: "k", blobs, settings: noEnv }),
      { dir, mode: "readwrite" },
    );
    await unpriced.complete({ role: "detector", messages: [{ role: "user", content: "unpriced" }] });
    const entries = files(dir).map((f) => ({ f, e: JSON.parse(readFileSync(f, "utf8")) }));
    const byText = (t: string) => entries.find(({ e }) => e.response.text === t)!;
    const a = byText("a").e.response;
    expect(a).toMatchObject({
      text: "a",
      inputTokens: 1000,
      outputTokens: 200,
      role: "policy",
      prompt: "forward.pyautogui@3",
    });
    expect(a.latencyMs).toBeGreaterThanOrEqual(30);
    expect(a.costUsd).toBeCloseTo((1000 * 3 + 200 * 15) / 1e6, 12);
    const b = byText("b").e.response;
    expect(typeof b.latencyMs).toBe("number");
    expect("costUsd" in b).toBe(false); // unknown, not $0

    // An entry written before latency and cost were recorded (text and tokens only) replays as before.
    const old = byText("a");
    writeFileSync(
      old.f,
      JSON.stringify({ ...old.e, response: { text: "a", inputTokens: 1000, outputTokens: 200 } }) + "\n",
    );
    const replay = withCache(
      createOpenAIChatModel({ model: "m", baseURL: server.url, apiKey: "k", blobs, prices, settings: noEnv }),
      { dir, mode: "read", onMiss: "throw" },
    );
    const before = server.calls;
    const r = await replay.complete({
      role: "policy",
      prompt: "forward.pyautogui@3",
      messages: [{ role: "user", content: "priced" }],
    });
    expect(server.calls).toBe(before);
    expect([r.text, r.usage.inputTokens, r.usage.outputTokens, r.usage.cached]).toEqual(["a", 1000, 200, true]);
  });

  it("keys on everything that changes the answer: model, params, messages, images, sampling", async () => {
    const blobs = tempBlobs();
    const a = await storePng(blobs, { r: 1, g: 2, b: 3 });
    const b = await storePng(blobs, { r: 4, g: 5, b: 6 });
    const dir = mkdtempSync(join(tmpdir(), "retrace-cache-"));
    const mk = (model: string, seed?: number) =>
      withCache(createOpenAIChatModel({ model, baseURL: "http://127.0.0.1:9/v1", blobs, seed, settings: noEnv }), {
        dir,
      });
    const base: ChatRequest = {
      role: "policy",
      temperature: 0,
      messages: [{ role: "user", content: [{ type: "image", blob: a.ref }] }],
    };
    const k = mk("m").keyOf(base);
    expect(mk("m").keyOf({ ...base, role: "recoverer", prompt: "x@2" })).toBe(k); // accounting fields do not change the request
    expect(mk("m2").keyOf(base)).not.toBe(k);
    expect(mk("m", 1).keyOf(base)).not.toBe(k);
    expect(mk("m").keyOf({ ...base, temperature: 0.7 })).not.toBe(k);
    expect(mk("m").keyOf({ ...base, maxTokens: 10 })).not.toBe(k);
    expect(
      mk("m").keyOf({ ...base, messages: [{ role: "user", content: [{ type: "image", blob: b.ref }] }] }),
    ).not.toBe(k);
  });

  it("in write mode always calls and refreshes; off passes through", async () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-cache-"));
    server = await startScriptedOpenAIServer({ script: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    const inner = createOpenAIChatModel({ model: "m", baseURL: server.url, blobs: tempBlobs(), settings: noEnv });
    const req: ChatRequest = { role: "policy", messages: [{ role: "user", content: "same" }] };
    const w = withCache(inner, { dir, mode: "write" });
    expect((await w.complete(req)).text).toBe("one");
    expect((await w.complete(req)).text).toBe("two");
    expect((await withCache(inner, { dir, mode: "read" }).complete(req)).text).toBe("two");
    expect((await withCache(inner, { dir, mode: "off" }).complete(req)).text).toBe("three");
    server.verify();
  });

  it("a read-only miss can be made an error that says how to record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-cache-"));
    const m = withCache(
      createOpenAIChatModel({ model: "m", baseURL: "http://127.0.0.1:9/v1", blobs: tempBlobs(), settings: noEnv }),
      { dir, mode: "read", onMiss: "throw" },
    );
    await expect(m.complete({ role: "policy", messages: [{ role: "user", content: "x" }] })).rejects.toThrow(
      /--cache readwrite/,
    );
    expect(() => parseCacheMode("sometimes")).toThrow(ConfigError);
  });
});
