/**
 * Rule "deadlines cover whole bodies and streams" (issue 41): a model server that sends its
 * headers and then trickles one byte every 50 ms forever must not hold any model client past its
 * timeout. Each client runs against the scripted server on 127.0.0.1 with timeoutMs 400 and no
 * retries; before the fix every one of these calls waited forever (the SDKs' timeout stopped at
 * the headers).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createOpenAIEmbeddings } from "../../../packages/models/src/models/openai-embeddings.ts";
import { deadlineFetch } from "../../../packages/models/src/models/deadline-fetch.ts";
import { createAnthropicPolicy } from "../../../packages/models/src/policies/anthropic/anthropic-policy.ts";
import { createOpenAICuaPolicy } from "../../../packages/models/src/policies/openai-cua/openai-cua-policy.ts";
import { createUiTarsPolicy } from "../../../packages/models/src/policies/uitars/uitars-policy.ts";
import { callModel } from "../../../packages/models/src/llm/call.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { AdapterError } from "../../../packages/core/src/errors.ts";
import { policyInput, tempBlobs } from "../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };
const TIMEOUT = 400;
const trickle = { trickleMs: 50 };

/** Milliseconds `work` took. */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await work();
  return { value, ms: performance.now() - t0 };
}

describe("a trickling answer ends at the client's deadline", () => {
  it("the fetch the clients use fails the body read at the deadline, after the headers arrived", async () => {
    server = await startScriptedOpenAIServer({ script: [trickle] });
    const res = await deadlineFetch(TIMEOUT)(`${server.url}/chat/completions`, { method: "POST", body: "{}" });
    expect(res.status).toBe(200); // headers came in time
    const t0 = performance.now();
    const err = await res.text().then(
      () => undefined,
      (e: unknown) => e as DOMException,
    );
    expect(err?.name).toBe("TimeoutError");
    expect(performance.now() - t0).toBeLessThan(TIMEOUT + 5_000);
  });

  it("the OpenAI-compatible chat model (and the chat policies over it, UI-TARS here)", async () => {
    server = await startScriptedOpenAIServer({ script: [trickle, trickle] });
    const blobs = tempBlobs();
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs,
      timeoutMs: TIMEOUT,
      maxRetries: 0,
      settings: noEnv,
    });
    const { value: err, ms } = await timed(() =>
      model.complete({ role: "detector", messages: [{ role: "user", content: "hi" }] }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(AdapterError);
    expect((err as Error).message).toMatch(/timed out after 400 ms/);
    expect(ms).toBeLessThan(TIMEOUT + 5_000);
    const policy = createUiTarsPolicy({ model });
    const { value: d, ms: ms2 } = await timed(async () => policy.propose(await policyInput(blobs)));
    expect(d.failure?.kind).toBe("model-error");
    expect(ms2).toBeLessThan(TIMEOUT + 5_000);
  });

  it("the LLM call helper returns a failure, not a hang, when the backend trickles", async () => {
    server = await startScriptedOpenAIServer({ script: [trickle] });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      blobs: tempBlobs(),
      timeoutMs: 60_000,
      maxRetries: 0,
      settings: noEnv,
    });
    const { value: r, ms } = await timed(() =>
      callModel(model, { role: "detector", messages: [{ role: "user", content: "hi" }] }, { timeoutMs: TIMEOUT }),
    );
    expect(r).toMatchObject({ ok: false, error: "model call timed out after 400 ms" });
    expect(ms).toBeLessThan(TIMEOUT + 5_000);
  });

  it("the embeddings client", async () => {
    server = await startScriptedOpenAIServer({ script: [trickle] });
    const emb = createOpenAIEmbeddings({
      model: "e",
      baseURL: server.url,
      apiKey: "sk-test-xyz",
      timeoutMs: TIMEOUT,
      maxRetries: 0,
      settings: noEnv,
    });
    const { value: err, ms } = await timed(() =>
      emb.embed(["a"]).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect((err as Error).message).toMatch(/timed out after 400 ms/);
    expect(ms).toBeLessThan(TIMEOUT + 5_000);
  });

  it("the Anthropic computer-use policy", async () => {
    server = await startScriptedOpenAIServer({ script: [trickle] });
    const policy = createAnthropicPolicy({
      baseURL: server.origin,
      apiKey: "sk-ant-test-1234",
      settings: noEnv,
      timeoutMs: TIMEOUT,
      maxRetries: 0,
    });
    const input = await policyInput(tempBlobs());
    const { value: d, ms } = await timed(() => policy.propose(input));
    expect(d.failure).toMatchObject({ kind: "model-error" });
    expect(d.failure?.message).toMatch(/timed out after 400 ms/);
    expect(ms).toBeLessThan(TIMEOUT + 5_000);
  });

  it("the OpenAI computer-use policy", async () => {
    server = await startScriptedOpenAIServer({ script: [trickle] });
    const policy = createOpenAICuaPolicy({
      baseURL: server.url,
      apiKey: "sk-test-cua-1234",
      settings: noEnv,
      timeoutMs: TIMEOUT,
      maxRetries: 0,
    });
    const input = await policyInput(tempBlobs());
    const { value: d, ms } = await timed(() => policy.propose(input));
    expect(d.failure).toMatchObject({ kind: "model-error" });
    expect(d.failure?.message).toMatch(/timed out after 400 ms/);
    expect(ms).toBeLessThan(TIMEOUT + 5_000);
  });
});
