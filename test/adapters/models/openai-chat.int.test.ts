import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { AdapterError, ConfigError } from "../../../packages/core/src/errors.ts";
import { storePng, tempBlobs, waitFor } from "../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const noEnv = { logLevel: "warn", ci: false };

describe("OpenAI-compatible chat model", () => {
  it("sends a screenshot as a PNG data-URL image part and returns text with usage and cost", async () => {
    const blobs = tempBlobs();
    const shot = await storePng(blobs);
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "chat",
          text: "```python\npyautogui.click(10, 20)\n```",
          usage: { inputTokens: 1200, outputTokens: 30 },
        },
      ],
    });
    const model = createOpenAIChatModel({
      model: "qwen2.5-vl-7b",
      baseURL: server.url,
      apiKey: "sk-test-abc123",
      blobs,
      prices: { "qwen2.5-vl*": { inputPerMillion: 1, outputPerMillion: 10 } },
      settings: noEnv,
    });
    const res = await model.complete({
      role: "policy",
      prompt: "forward-pyautogui@1",
      maxTokens: 256,
      messages: [
        { role: "system", content: "You are a computer agent." },
        {
          role: "user",
          content: [
            { type: "text", text: "What next?" },
            { type: "image", blob: shot.ref, detail: "high" },
          ],
        },
      ],
    });
    expect(res.text).toContain("pyautogui.click(10, 20)");
    expect(res.usage).toMatchObject({
      role: "policy",
      model: "qwen2.5-vl-7b",
      prompt: "forward-pyautogui@1",
      inputTokens: 1200,
      outputTokens: 30,
    });
    expect(res.usage.costUsd).toBeCloseTo((1200 * 1 + 30 * 10) / 1e6, 12);
    expect(res.usage.latencyMs).toBeGreaterThanOrEqual(0);
    const req = server.requests[0];
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test-abc123");
    expect(req.body.model).toBe("qwen2.5-vl-7b");
    expect(req.body.max_tokens).toBe(256);
    expect(req.body.messages[1].content[1].image_url.url.startsWith("data:image/png;base64,")).toBe(true);
    expect(req.images).toHaveLength(1);
    expect(req.images[0]).toMatchObject({ mediaType: "image/png", sha256: shot.ref, detail: "high" });
    server.verify();
  });

  it("asks for a JSON object when the request says json", async () => {
    server = await startScriptedOpenAIServer({ script: [{ text: '{"isError": false}' }] });
    const model = createOpenAIChatModel({ model: "m", baseURL: server.url, blobs: tempBlobs(), settings: noEnv });
    await model.complete({ role: "detector", json: true, messages: [{ role: "user", content: "judge" }] });
    expect(server.requests[0].body.response_format).toEqual({ type: "json_object" });
    server.verify();
  });

  it("retries a 429 and a 500 with the SDK's backoff and then succeeds", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { status: 429, retryAfterMs: 5 },
        { status: 500, retryAfterMs: 5 },
        { text: "ok", usage: { inputTokens: 3, outputTokens: 1 } },
      ],
    });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      maxRetries: 2,
      settings: noEnv,
    });
    const res = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] });
    expect(res.text).toBe("ok");
    expect(server.calls).toBe(3);
    expect((res.usage as { retries?: number }).retries).toBe(2); // counted HTTP attempts - 1, in the call's usage record
    server.verify();
  });

  it("gives up after maxRetries with a retryable AdapterError naming the status", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { status: 429, retryAfterMs: 1 },
        { status: 429, retryAfterMs: 1 },
      ],
    });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      maxRetries: 1,
      settings: noEnv,
    });
    const err = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/HTTP 429 after 2 attempt/);
    expect(server.calls).toBe(2);
    server.verify();
  });

  it("a first-try answer records retries: 0; an error names the attempts actually made", async () => {
    server = await startScriptedOpenAIServer({ script: [{ text: "ok" }, { status: 400 }] });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      maxRetries: 3,
      settings: noEnv,
    });
    const res = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] });
    expect((res.usage as { retries?: number }).retries).toBe(0);
    const err = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(server.calls).toBe(2);
  });

  it("does not retry a 400 and says so", async () => {
    server = await startScriptedOpenAIServer({ script: [{ status: 400 }] });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      maxRetries: 3,
      settings: noEnv,
    });
    const err = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(err.retryable).toBe(false);
    expect(server.calls).toBe(1);
  });

  it("times out a slow answer per attempt, then succeeds on the retry", async () => {
    server = await startScriptedOpenAIServer({ script: [{ delayMs: Infinity }, { text: "fast" }] });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      timeoutMs: 150,
      maxRetries: 1,
      settings: noEnv,
    });
    const res = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] });
    expect(res.text).toBe("fast");
    expect(server.calls).toBe(2);
    expect((res.usage as { retries?: number }).retries).toBe(1);
    server.verify();
  });

  it("reports a timeout as a retryable AdapterError when retries are exhausted", async () => {
    server = await startScriptedOpenAIServer({ script: [{ delayMs: Infinity }] });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      timeoutMs: 100,
      maxRetries: 0,
      settings: noEnv,
    });
    const err = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(err.message).toMatch(/timed out after 100 ms/);
    expect(err.retryable).toBe(true);
  });

  it("cancels an in-flight call through the AbortSignal without retrying", async () => {
    server = await startScriptedOpenAIServer({ script: [{ delayMs: Infinity }] });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      timeoutMs: 10_000,
      maxRetries: 3,
      settings: noEnv,
    });
    const controller = new AbortController();
    const started = Date.now();
    const pending = model.complete({
      role: "policy",
      signal: controller.signal,
      messages: [{ role: "user", content: "hi" }],
    });
    await waitFor(() => server!.calls >= 1);
    controller.abort();
    const err = await pending.catch((e) => e);
    expect(err.name).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.calls).toBe(1);
    await expect(
      model.complete({ role: "policy", signal: controller.signal, messages: [{ role: "user", content: "again" }] }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(server.calls).toBe(1);
  });

  it("keeps the API key out of error messages", async () => {
    server = await startScriptedOpenAIServer({
      script: [{ status: 401, body: { error: { message: "Incorrect API key provided: sk-test-SECRET-123" } } }],
    });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      apiKey: "sk-test-SECRET-123",
      blobs: tempBlobs(),
      settings: noEnv,
    });
    const err = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(err.message).toMatch(/HTTP 401.*check the API key/);
    expect(String(err.message) + String(err.stack)).not.toContain("SECRET-123");
    expect(err.cause).toBeUndefined();
  });

  it("rejects a missing key for api.openai.com with a ConfigError naming the field", () => {
    expect(() => createOpenAIChatModel({ model: "gpt-4o", blobs: tempBlobs(), settings: noEnv })).toThrow(ConfigError);
  });
});
