import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAICuaPolicy } from "../../../../packages/models/src/policies/openai-cua/openai-cua-policy.ts";
import { ModelMeter } from "../../../../experiments/agents/meter.ts";
import { atCallSite } from "../../../../packages/core/src/runtime/call-site.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../../packages/testing/src/scripted-openai-server.ts";
import type { HistoryEntry } from "../../../../packages/core/src/policy.ts";
import { policyInput, tempBlobs, waitFor } from "../../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };

const call = (id: string, action: Record<string, unknown>, safety: unknown[] = []) => ({
  type: "computer_call",
  id: `cu_${id}`,
  call_id: `call_${id}`,
  action,
  pending_safety_checks: safety,
  status: "completed",
});
const reasoning = (text: string) => ({ type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text }] });

describe("OpenAI computer-use policy (Responses API)", () => {
  it("starts with the task and screenshot, then answers each computer_call with the next screenshot", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "responses",
          output: [reasoning("Open the File menu."), call("1", { type: "click", x: 30, y: 12, button: "left" })],
          usage: { inputTokens: 1500, outputTokens: 40 },
        },
        { endpoint: "responses", output: [call("2", { type: "keypress", keys: ["CTRL", "S"] })] },
        { endpoint: "responses", text: "The document is saved." },
      ],
    });
    const policy = createOpenAICuaPolicy({
      baseURL: server.url,
      apiKey: "sk-test-cua",
      settings: noEnv,
      prices: { "computer-use-preview": { inputPerMillion: 3, outputPerMillion: 12 } },
    });
    const in0 = await policyInput(blobs, { color: { r: 1, g: 1, b: 1 } });
    const d0 = await policy.propose(in0);
    expect(d0.actions).toEqual([{ type: "CLICK", x: 30, y: 12, button: "left", numClicks: 1 }]);
    expect(d0.response).toContain("Reasoning: Open the File menu.");
    expect(d0.usage?.[0]).toMatchObject({
      role: "policy",
      model: "computer-use-preview",
      inputTokens: 1500,
      outputTokens: 40,
    });
    expect(d0.usage?.[0].costUsd).toBeCloseTo((1500 * 3 + 40 * 12) / 1e6, 12);
    const r0 = server.requests[0];
    expect(r0.path).toBe("/v1/responses");
    expect(r0.body.tools).toEqual([
      { type: "computer_use_preview", display_width: 1280, display_height: 800, environment: "linux" },
    ]);
    expect(r0.body.previous_response_id).toBeUndefined();
    expect(r0.body.input[0].content[0]).toEqual({ type: "input_text", text: "Save the document as report.txt" });
    expect(r0.images.map((i) => i.sha256)).toEqual([in0.observation.screenshot]);

    const h0: HistoryEntry = {
      step: 0,
      observation: in0.observation,
      actions: d0.actions,
      response: d0.response,
      memo: d0.memo,
    };
    const in1 = await policyInput(blobs, { history: [h0], color: { r: 2, g: 2, b: 2 } });
    const d1 = await policy.propose(in1);
    expect(d1.actions).toEqual([{ type: "HOTKEY", keys: ["ctrl", "s"] }]);
    const r1 = server.requests[1];
    expect(r1.body.previous_response_id).toBe("resp_scripted_0");
    expect(r1.body.input).toHaveLength(1);
    expect(r1.body.input[0]).toMatchObject({
      type: "computer_call_output",
      call_id: "call_1",
      output: { type: "computer_screenshot" },
    });
    expect(r1.images.map((i) => i.sha256)).toEqual([in1.observation.screenshot]);

    const h1: HistoryEntry = { step: 1, observation: in1.observation, actions: d1.actions, memo: d1.memo };
    const d2 = await policy.propose(await policyInput(blobs, { history: [h0, h1] }));
    expect(d2.actions).toEqual([{ type: "DONE" }]);
    expect(d2.response).toBe("The document is saved.");
    server.verify();
  });

  it("after a truncation continues from the last kept step's response, with the notice", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [{ output: [call("9", { type: "double_click", x: 5, y: 6 })] }],
    });
    const policy = createOpenAICuaPolicy({ baseURL: server.url, apiKey: "k", settings: noEnv });
    const kept = await policyInput(blobs, { color: { r: 9, g: 9, b: 9 } });
    const history: HistoryEntry[] = [
      {
        step: 0,
        observation: kept.observation,
        actions: [],
        memo: { responseId: "resp_R-1", callIds: ["call_R-1"], safety: [] },
      },
    ];
    const d = await policy.propose(
      await policyInput(blobs, { history, notice: "Note: the environment has been recovered." }),
    );
    expect(d.actions).toEqual([{ type: "DOUBLE_CLICK", x: 5, y: 6 }]);
    const body = server.requests[0].body;
    expect(body.previous_response_id).toBe("resp_R-1");
    expect(body.input[0]).toEqual({
      role: "user",
      content: [{ type: "input_text", text: "Note: the environment has been recovered." }],
    });
    expect(body.input[1]).toMatchObject({ type: "computer_call_output", call_id: "call_R-1" });
    server.verify();
  });

  it("records safety checks as a refused step unless told to acknowledge them", async () => {
    const blobs = tempBlobs();
    const check = { id: "sc_1", code: "malicious_instructions", message: "Suspicious" };
    server = await startScriptedOpenAIServer({
      script: [
        { output: [call("1", { type: "click", x: 1, y: 1 }, [check])] },
        { output: [call("2", { type: "click", x: 1, y: 1 }, [check])] },
        { output: [call("3", { type: "type", text: "x" })] },
      ],
    });
    const strict = createOpenAICuaPolicy({ baseURL: server.url, apiKey: "k", settings: noEnv });
    const d = await strict.propose(await policyInput(blobs));
    expect(d.failure).toMatchObject({ kind: "refused" });
    expect(d.failure!.message).toContain("malicious_instructions");
    const lenient = createOpenAICuaPolicy({
      baseURL: server.url,
      apiKey: "k",
      settings: noEnv,
      onSafetyCheck: "acknowledge",
    });
    const first = await lenient.propose(await policyInput(blobs));
    expect(first.actions).toHaveLength(1);
    const h: HistoryEntry = {
      step: 0,
      observation: (await policyInput(blobs)).observation,
      actions: first.actions,
      memo: first.memo,
    };
    await lenient.propose(await policyInput(blobs, { history: [h] }));
    expect(server.requests[2].body.input[0].acknowledged_safety_checks).toEqual([check]);
    server.verify();
  });

  it("records an unknown action as unparseable, and replays from the cache with zero calls", async () => {
    const blobs = tempBlobs();
    const dir = mkdtempSync(join(tmpdir(), "retrace-cua-cache-"));
    server = await startScriptedOpenAIServer({
      script: [
        { output: [call("1", { type: "teleport" })] },
        { output: [call("2", { type: "scroll", x: 10, y: 10, scroll_x: 0, scroll_y: 200 })] },
      ],
    });
    const input = await policyInput(blobs);
    const prices = { "computer-use-preview": { inputPerMillion: 3, outputPerMillion: 12 } };
    const meter = new ModelMeter();
    const p1 = createOpenAICuaPolicy({
      baseURL: server.url,
      apiKey: "k",
      settings: noEnv,
      cache: { dir, mode: "readwrite" },
      prices,
      observe: meter.observer("policy", prices),
    });
    const bad = await atCallSite({ seq: 0, phase: "policy" }, () => p1.propose(input));
    expect(bad.failure?.kind).toBe("unparseable");
    expect(p1.stats.failures.unparseable).toBe(1);
    const input2 = await policyInput(blobs, { color: { r: 3, g: 4, b: 5 } });
    const good = await atCallSite({ seq: 1, phase: "policy" }, () => p1.propose(input2));
    expect(good.actions).toEqual([{ type: "SCROLL", dx: 0, dy: -2, x: 10, y: 10 }]);
    expect(server.calls).toBe(2);
    // the episode's call log (what the report's viewer shows per step): each call on its step, with
    // the request's text and screen (a blob reference), the reply, tokens, latency and the priced cost
    const log = meter.callLog();
    expect(log.map((c) => [c.seq, c.phase, c.role])).toEqual([
      [0, "policy", "policy"],
      [1, "policy", "policy"],
    ]);
    const shown = log[1];
    expect(shown).toMatchObject({ model: "computer-use-preview", reply: expect.stringContaining("computer_call") });
    expect(
      shown.messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content)).filter((p) => p.type === "image"),
    ).toEqual([{ type: "image", blob: input2.observation.screenshot }]);
    expect(JSON.stringify(shown.messages)).toContain(input2.task.instruction);
    expect(shown.inputTokens).toBeGreaterThan(0);
    expect(shown.latencyMs).toBeGreaterThanOrEqual(0);
    expect(shown.costUsd).toBeCloseTo((shown.inputTokens * 3 + shown.outputTokens * 12) / 1e6, 12);
    expect(shown.cached).toBeUndefined();
    const replayMeter = new ModelMeter();
    const p2 = createOpenAICuaPolicy({
      baseURL: server.url,
      apiKey: "other",
      settings: noEnv,
      cache: { dir, mode: "read", onMiss: "throw" },
      prices,
      observe: replayMeter.observer("policy", prices),
    });
    expect((await atCallSite({ seq: 1, phase: "policy" }, () => p2.propose(input2))).actions).toEqual(good.actions);
    expect((await p2.propose(input2)).usage?.[0].cached).toBe(true);
    expect(server.calls).toBe(2);
    // a cache replay keeps the attribution and the list-price cost, marked cached
    const replayed = replayMeter.callLog();
    expect(replayed.map((c) => [c.seq, c.cached])).toEqual([
      [null, true],
      [1, true],
    ]);
    expect(replayed[1]).toMatchObject({
      reply: shown.reply,
      inputTokens: shown.inputTokens,
      costUsd: shown.costUsd,
      messages: shown.messages,
    });
    server.verify();
  });

  it("retries a 429 with the SDK's backoff and propagates cancellation", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        { status: 429, retryAfterMs: 5 },
        { output: [call("1", { type: "move", x: 3, y: 4 })] },
        { delayMs: Infinity },
      ],
    });
    const policy = createOpenAICuaPolicy({ baseURL: server.url, apiKey: "k", settings: noEnv, maxRetries: 1 });
    expect((await policy.propose(await policyInput(blobs))).actions).toEqual([{ type: "MOVE_TO", x: 3, y: 4 }]);
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
        { status: 429, retryAfterMs: 5 },
        { status: 500, retryAfterMs: 5 },
        { output: [call("1", { type: "move", x: 3, y: 4 })] },
        { output: [call("2", { type: "move", x: 5, y: 6 })] },
        { status: 500, retryAfterMs: 5 },
        { status: 500, retryAfterMs: 5 },
      ],
    });
    const policy = createOpenAICuaPolicy({ baseURL: server.url, apiKey: "k", settings: noEnv, maxRetries: 2 });
    const first = await policy.propose(await policyInput(blobs));
    expect(first.actions).toEqual([{ type: "MOVE_TO", x: 3, y: 4 }]);
    expect(first.usage?.[0].retries).toBe(2);
    expect(server.calls).toBe(3);
    expect((await policy.propose(await policyInput(blobs))).usage?.[0].retries).toBe(0);
    const strict = createOpenAICuaPolicy({ baseURL: server.url, apiKey: "k", settings: noEnv, maxRetries: 1 });
    const failed = await strict.propose(await policyInput(blobs));
    expect(failed.failure?.kind).toBe("model-error");
    expect(failed.failure?.message).toMatch(/HTTP 500 after 2 attempt/);
    expect(server.calls).toBe(6);
    server.verify();
  });
});
