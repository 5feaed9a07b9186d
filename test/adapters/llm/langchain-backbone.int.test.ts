/** A LangChain chat model (ChatOpenAICompletions) as the detector's and selector's backbone, over HTTP. */
import { afterEach, describe, expect, it } from "vitest";
import { ChatOpenAICompletions } from "@langchain/openai";
import { createLangChainChatModel } from "../../../packages/models/src/models/langchain-chat.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmStepSelector } from "../../../packages/models/src/llm/selector.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { makeHistory, screenshot, tempBlobs } from "./fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("LLM components on a LangChain chat model", () => {
  it("detect and select through ChatOpenAICompletions, with the screenshots arriving at the server", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { text: "not json" },
        { text: '{"off_track": true, "error_step": 1, "reason": "typed into the wrong field", "confidence": 0.7}' },
        { text: '{"recovery_step": 0, "reason": "the field was focused wrongly from the start"}' },
      ],
    });
    const blobs = tempBlobs();
    const chatModel = new ChatOpenAICompletions({
      model: "scripted-lc",
      apiKey: "lc-test-key",
      maxRetries: 0,
      configuration: { baseURL: server.url },
    });
    const model = createLangChainChatModel({ chatModel, blobs });
    const history = await makeHistory(blobs, 3);
    const observation = await screenshot(blobs, 123);
    const task = { id: "t", instruction: "Fill in the name field" };

    const d = await createLlmErrorDetector({ model, historyImages: 1 }).detect({
      task,
      history,
      observation,
      step: 3,
      tick: 3,
      blobs,
    });
    expect(d).toMatchObject({ isError: true, errorStep: 1, confidence: 0.7 });
    expect(d.usage).toHaveLength(2);
    expect(
      d.usage!.every(
        (u) =>
          u.role === "detector" &&
          u.prompt === "error-detector.system@2+error-detector.user@1" &&
          u.model === "scripted-lc",
      ),
    ).toBe(true);
    expect(server.requests[0].images.map((i) => i.sha256)).toEqual([
      history[2].observation.screenshot,
      observation.screenshot,
    ]);

    const s = await createLlmStepSelector({ model }).select({
      task,
      history,
      errorStep: 1,
      detection: d,
      instanceKey: "t/0",
      seed: 0,
      blobs,
    });
    expect(s).toMatchObject({ step: 0, prompt: "recovery-step-selector@1" });
    server.verify();
  });

  it("counts the LangChain model's own retries: a 500, then a 429, then an answer records retries 2; a first-try answer 0", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { status: 500 },
        { status: 429, retryAfterMs: 5 },
        { text: "ok", usage: { inputTokens: 3, outputTokens: 1 } },
        { text: "again", usage: { inputTokens: 3, outputTokens: 1 } },
      ],
    });
    const chatModel = new ChatOpenAICompletions({
      model: "scripted-lc",
      apiKey: "lc-test-key",
      maxRetries: 2,
      configuration: { baseURL: server.url },
    });
    const model = createLangChainChatModel({ chatModel, blobs: tempBlobs() });
    const first = await model.complete({ role: "detector", messages: [{ role: "user", content: "hi" }] });
    expect(first.text).toBe("ok");
    expect(server.calls).toBe(3); // LangChain's AsyncCaller retried twice (the openai client under it does not retry)
    expect((first.usage as { retries?: number }).retries).toBe(2);
    // a second wrapper of the same model counts once, not twice
    const again = await createLangChainChatModel({ chatModel, blobs: tempBlobs() }).complete({
      role: "detector",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(again.text).toBe("again");
    expect((again.usage as { retries?: number }).retries).toBe(0);
    server.verify();
  }, 30_000);
});
