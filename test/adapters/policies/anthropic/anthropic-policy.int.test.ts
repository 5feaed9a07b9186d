import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import sharp from "sharp";
import { createAnthropicPolicy } from "../../../../packages/models/src/policies/anthropic/anthropic-policy.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../../packages/testing/src/scripted-openai-server.ts";
import type { HistoryEntry } from "../../../../packages/core/src/policy.ts";
import { AdapterError } from "../../../../packages/core/src/errors.ts";
import { ModelMeter } from "../../../../experiments/agents/meter.ts";
import { atCallSite } from "../../../../packages/core/src/runtime/call-site.ts";
import { policyInput, tempBlobs, waitFor } from "../../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };
const toolUse = (id: string, input: Record<string, unknown>) => ({ type: "tool_use", id, name: "computer", input });

describe("Anthropic computer-use policy", () => {
  it("sends the computer tool and screenshot, maps tool_use to actions, and rebuilds the conversation with tool results", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "messages",
          text: "I'll open the File menu.",
          content: [toolUse("toolu_1", { action: "left_click", coordinate: [30, 12] })],
          usage: { inputTokens: 2000, outputTokens: 50 },
        },
        { endpoint: "messages", content: [toolUse("toolu_2", { action: "key", text: "ctrl+s" })] },
        { endpoint: "messages", text: "The file is saved; the task is complete." },
      ],
    });
    const policy = createAnthropicPolicy({
      baseURL: server.origin,
      apiKey: "sk-ant-test-KEY-42",
      settings: noEnv,
      historyImages: 0,
    });
    const in0 = await policyInput(blobs, { color: { r: 1, g: 1, b: 1 } });
    const d0 = await policy.propose(in0);
    expect(d0.actions).toEqual([{ type: "CLICK", x: 30, y: 12, button: "left", numClicks: 1 }]);
    expect(d0.usage?.[0]).toMatchObject({ inputTokens: 2000, outputTokens: 50, model: "claude-sonnet-4-6" });
    const r0 = server.requests[0];
    expect(r0.path).toBe("/v1/messages");
    expect(r0.headers.authorization).toBe("Bearer sk-ant-test-KEY-42");
    expect(String(r0.headers["anthropic-beta"])).toContain("computer-use-2025-01-24");
    expect(r0.body.tools[0]).toMatchObject({
      type: "computer_20250124",
      name: "computer",
      display_width_px: 1280,
      display_height_px: 800,
    });
    expect(r0.images.map((i) => i.sha256)).toEqual([in0.observation.screenshot]);

    const h0: HistoryEntry = { step: 0, observation: in0.observation, actions: d0.actions, memo: d0.memo };
    const in1 = await policyInput(blobs, { history: [h0], color: { r: 2, g: 2, b: 2 }, notice: "Note: recovered." });
    const d1 = await policy.propose(in1);
    expect(d1.actions).toEqual([{ type: "HOTKEY", keys: ["ctrl", "s"] }]);
    const msgs = server.requests[1].body.messages;
    expect(msgs.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(msgs[1].content[1]).toMatchObject({ type: "tool_use", id: "toolu_1" });
    expect(msgs[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
    expect(msgs[2].content[1]).toEqual({ type: "text", text: "Note: recovered." });
    // historyImages 0: past screenshots become text, only the current o_1 is sent
    expect(msgs[0].content[1]).toEqual({ type: "text", text: "(screenshot omitted)" });
    expect(server.requests[1].images.map((i) => i.sha256)).toEqual([in1.observation.screenshot]);

    const h1: HistoryEntry = { step: 1, observation: in1.observation, actions: d1.actions, memo: d1.memo };
    const d2 = await policy.propose(await policyInput(blobs, { history: [h0, h1] }));
    expect(d2.actions).toEqual([{ type: "DONE" }]);
    expect(d2.response).toContain("task is complete");
    server.verify();
  });

  it("logs each call on its step with messages, reply, latency, priced cost; a cache replay logs the same call as cached; a failure is logged too", async () => {
    const blobs = tempBlobs();
    const dir = mkdtempSync(join(tmpdir(), "retrace-anthropic-cache-"));
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "messages",
          text: "Clicking File.",
          content: [toolUse("toolu_1", { action: "left_click", coordinate: [30, 12] })],
          usage: { inputTokens: 2000, outputTokens: 50 },
          delayMs: 25,
        },
        { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "bad" } } },
      ],
    });
    const prices = { "claude-sonnet-4-6": { inputPerMillion: 3, outputPerMillion: 15 } };
    const meter = new ModelMeter();
    const policy = createAnthropicPolicy({
      baseURL: server.origin,
      apiKey: "k",
      settings: noEnv,
      maxRetries: 0,
      cache: { dir, mode: "readwrite" },
      prices,
      observe: meter.observer("recoverer", prices),
    });
    const in0 = await policyInput(blobs);
    await atCallSite({ seq: 4, phase: "recoverer", attempt: 1 }, () => policy.propose(in0));
    const [shown] = meter.callLog();
    expect(shown).toMatchObject({
      seq: 4,
      phase: "recoverer",
      attempt: 1,
      role: "recoverer",
      model: "claude-sonnet-4-6",
      inputTokens: 2000,
      outputTokens: 50,
    });
    expect(shown.reply).toContain('tool_use {"action":"left_click"');
    expect(shown.latencyMs).toBeGreaterThanOrEqual(25);
    expect(shown.costUsd).toBeCloseTo((2000 * 3 + 50 * 15) / 1e6, 12);
    expect(shown.messages[0]).toMatchObject({ role: "system" });
    expect(shown.messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: in0.task.instruction },
        { type: "image", blob: in0.observation.screenshot },
      ],
    });
    expect(meter.snapshot().recoverer).toMatchObject({ calls: 1, errors: 0, inputTokens: 2000 });

    const replay = new ModelMeter();
    const again = createAnthropicPolicy({
      baseURL: server.origin,
      apiKey: "k",
      settings: noEnv,
      maxRetries: 0,
      cache: { dir, mode: "read", onMiss: "throw" },
      prices,
      observe: replay.observer("recoverer", prices),
    });
    await atCallSite({ seq: 4, phase: "recoverer", attempt: 1 }, () => again.propose(in0));
    const [cached] = replay.callLog();
    expect(cached).toMatchObject({
      seq: 4,
      cached: true,
      reply: shown.reply,
      inputTokens: 2000,
      costUsd: shown.costUsd,
      messages: shown.messages,
    });

    // a call that fails is logged on its step with its error
    const failed = await atCallSite({ seq: 5, phase: "recoverer", attempt: 1 }, () =>
      policy.propose({ ...in0, task: { ...in0.task, instruction: "other" } }),
    );
    expect(failed.failure?.kind).toBe("model-error");
    expect(meter.callLog()[1]).toMatchObject({ seq: 5, error: expect.stringContaining("400"), inputTokens: 0 });
    expect(meter.snapshot().recoverer).toMatchObject({ calls: 2, errors: 1 });
    server.verify();
  });

  it("records a malformed tool call as unparseable and an HTTP failure as model-error without the key", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        { content: [toolUse("t", { action: "zoom", region: [0, 0, 1, 1] })] },
        {
          status: 401,
          body: {
            type: "error",
            error: { type: "authentication_error", message: "invalid x-api-key sk-ant-test-KEY-42" },
          },
        },
      ],
    });
    const policy = createAnthropicPolicy({
      baseURL: server.origin,
      apiKey: "sk-ant-test-KEY-42",
      settings: noEnv,
      maxRetries: 0,
    });
    const bad = await policy.propose(await policyInput(blobs));
    expect(bad.failure?.kind).toBe("unparseable");
    expect(bad.memo).toBeUndefined();
    const err = await policy.propose(await policyInput(blobs));
    expect(err.failure?.kind).toBe("model-error");
    expect(err.failure?.message).toMatch(/HTTP 401/);
    expect(err.failure?.message).not.toContain("KEY-42");
    expect(policy.stats.failures).toEqual({ unparseable: 1, "model-error": 1 });
    expect(AdapterError).toBeDefined();
    server.verify();
  });

  it("retries a 500 with the SDK's backoff and propagates cancellation", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        { status: 500, retryAfterMs: 5 },
        { content: [toolUse("t1", { action: "type", text: "hi" })] },
        { delayMs: Infinity },
      ],
    });
    const policy = createAnthropicPolicy({ baseURL: server.origin, apiKey: "k", settings: noEnv, maxRetries: 1 });
    expect((await policy.propose(await policyInput(blobs))).actions).toEqual([{ type: "TYPING", text: "hi" }]);
    expect(server.calls).toBe(2);
    const controller = new AbortController();
    const pending = policy.propose({ ...(await policyInput(blobs)), signal: controller.signal });
    await waitFor(() => server!.calls >= 3);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    server.verify();
  });

  it("records the SDK's retries in the call's usage: a server that fails twice then answers gives retries 2; giving up names the attempts made", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        { status: 500, retryAfterMs: 5 },
        { status: 529, retryAfterMs: 5 },
        { content: [toolUse("t1", { action: "type", text: "hi" })] },
        { content: [toolUse("t2", { action: "type", text: "again" })] },
        { status: 500, retryAfterMs: 5 },
        { status: 500, retryAfterMs: 5 },
      ],
    });
    const policy = createAnthropicPolicy({ baseURL: server.origin, apiKey: "k", settings: noEnv, maxRetries: 2 });
    const first = await policy.propose(await policyInput(blobs));
    expect(first.actions).toEqual([{ type: "TYPING", text: "hi" }]);
    expect(first.usage?.[0].retries).toBe(2);
    expect(server.calls).toBe(3);
    expect((await policy.propose(await policyInput(blobs))).usage?.[0].retries).toBe(0);
    const strict = createAnthropicPolicy({ baseURL: server.origin, apiKey: "k", settings: noEnv, maxRetries: 1 });
    const failed = await strict.propose(await policyInput(blobs));
    expect(failed.failure?.kind).toBe("model-error");
    expect(failed.failure?.message).toMatch(/HTTP 500 after 2 attempt/);
    expect(server.calls).toBe(6);
    server.verify();
  });

  it("shrinks a 1920x1080 screen to the API's image limits and scales the model's coordinates back", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [{ content: [toolUse("t1", { action: "left_click", coordinate: [714, 402] })] }],
    });
    const policy = createAnthropicPolicy({ baseURL: server.origin, apiKey: "k", settings: noEnv });
    const d = await policy.propose(await policyInput(blobs, { width: 1920, height: 1080 }));
    const req = server.requests[0];
    const { display_width_px: w, display_height_px: h } = req.body.tools[0];
    expect(w).toBeLessThanOrEqual(1568);
    expect(w * h).toBeLessThanOrEqual(1_150_000);
    expect(w / h).toBeCloseTo(1920 / 1080, 2);
    const meta = await sharp(req.images[0].bytes).metadata();
    expect([meta.width, meta.height]).toEqual([w, h]);
    const click = d.actions[0] as { x: number; y: number };
    expect(Math.abs(click.x - Math.round((714 * 1920) / w))).toBeLessThanOrEqual(1);
    expect(Math.abs(click.y - Math.round((402 * 1080) / h))).toBeLessThanOrEqual(1);
    expect(click.x).toBeGreaterThan(950);
  });
});
