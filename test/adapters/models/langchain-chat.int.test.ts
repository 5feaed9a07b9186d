import { afterEach, describe, expect, it } from "vitest";
import { ChatOpenAICompletions } from "@langchain/openai";
import { createLangChainChatModel } from "../../../packages/models/src/models/langchain-chat.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { AdapterError } from "../../../packages/core/src/errors.ts";
import { storePng, tempBlobs, waitFor } from "../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function lcModel(url: string, maxRetries = 0) {
  return new ChatOpenAICompletions({
    model: "gpt-4o-mini",
    apiKey: "sk-test-lc-key",
    configuration: { baseURL: url },
    maxRetries,
    temperature: 0,
  });
}

describe("LangChain chat model backend", () => {
  it("sends the screenshot as an image part and reads usage_metadata", async () => {
    const blobs = tempBlobs();
    const shot = await storePng(blobs);
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "chat",
          text: "Thought: save.\nAction: hotkey(key='ctrl s')",
          usage: { inputTokens: 900, outputTokens: 12 },
        },
      ],
    });
    const model = createLangChainChatModel({
      chatModel: lcModel(server.url),
      blobs,
      prices: { "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 } },
    });
    expect(model.model).toBe("gpt-4o-mini");
    const res = await model.complete({
      role: "summarizer",
      messages: [
        { role: "system", content: "sys" },
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", blob: shot.ref },
          ],
        },
      ],
    });
    expect(res.text).toContain("hotkey");
    expect(res.usage).toMatchObject({ role: "summarizer", model: "gpt-4o-mini", inputTokens: 900, outputTokens: 12 });
    expect(res.usage.costUsd).toBeCloseTo((900 * 0.15 + 12 * 0.6) / 1e6, 12);
    expect(server.requests[0].images.map((i) => i.sha256)).toEqual([shot.ref]);
    expect(server.requests[0].body.messages[0]).toEqual({ role: "system", content: "sys" });
    server.verify();
  });

  it("uses the LangChain model's own retries for a 429", async () => {
    server = await startScriptedOpenAIServer({ script: [{ status: 429, retryAfterMs: 5 }, { text: "ok" }] });
    const model = createLangChainChatModel({ chatModel: lcModel(server.url, 2), blobs: tempBlobs() });
    expect((await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] })).text).toBe("ok");
    expect(server.calls).toBe(2);
    server.verify();
  });

  it("times out and cancels", async () => {
    server = await startScriptedOpenAIServer({ script: [{ delayMs: Infinity }, { delayMs: Infinity }] });
    const model = createLangChainChatModel({
      chatModel: lcModel(server.url),
      blobs: tempBlobs(),
      timeoutMs: 150,
      secrets: ["sk-test-lc-key"],
    });
    const err = await model.complete({ role: "policy", messages: [{ role: "user", content: "hi" }] }).catch((e) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(err.message).not.toContain("sk-test-lc-key");
    const controller = new AbortController();
    const slow = createLangChainChatModel({ chatModel: lcModel(server.url), blobs: tempBlobs(), timeoutMs: 10_000 });
    const pending = slow.complete({
      role: "policy",
      signal: controller.signal,
      messages: [{ role: "user", content: "hi" }],
    });
    await waitFor(() => server!.calls >= 2);
    controller.abort();
    expect((await pending.catch((e) => e)).name).toBe("AbortError");
  });
});
