import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChatOpenAICompletions } from "@langchain/openai";
import { createLangChainPolicy } from "../../../../packages/langchain/src/policies/langchain-policy.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../../packages/testing/src/scripted-openai-server.ts";
import { policyInput, tempBlobs } from "../../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("LangChain chat model as a policy", () => {
  it("drives the pyautogui agent through a LangChain model and replays from the cache", async () => {
    const blobs = tempBlobs();
    const input = await policyInput(blobs);
    const dir = mkdtempSync(join(tmpdir(), "retrace-lc-cache-"));
    server = await startScriptedOpenAIServer({
      script: [
        { text: "```python\npyautogui.doubleClick(200, 300)\n```", usage: { inputTokens: 400, outputTokens: 9 } },
      ],
    });
    const chatModel = new ChatOpenAICompletions({
      model: "gpt-4o-mini",
      apiKey: "sk-test-lc",
      configuration: { baseURL: server.url },
      maxRetries: 0,
    });
    const policy = createLangChainPolicy({ chatModel, blobs, cache: { dir, mode: "readwrite" } });
    const d = await policy.propose(input);
    expect(d.actions).toEqual([{ type: "DOUBLE_CLICK", x: 200, y: 300 }]);
    expect(d.usage?.[0]).toMatchObject({ model: "gpt-4o-mini", inputTokens: 400, outputTokens: 9 });
    expect(server.requests[0].images.map((i) => i.sha256)).toEqual([input.observation.screenshot]);
    const again = await createLangChainPolicy({ chatModel, blobs, cache: { dir, mode: "read" } }).propose(input);
    expect(again.actions).toEqual(d.actions);
    expect(again.usage?.[0].cached).toBe(true);
    expect(server.calls).toBe(1);
    server.verify();
  });

  it("can prompt for the UI-TARS format instead", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({ script: [{ text: "Thought: done.\nAction: finished(content='ok')" }] });
    const chatModel = new ChatOpenAICompletions({
      model: "ui-tars",
      apiKey: "k",
      configuration: { baseURL: server.url },
      maxRetries: 0,
    });
    const d = await createLangChainPolicy({ chatModel, blobs, format: "uitars" }).propose(await policyInput(blobs));
    expect(d.actions).toEqual([{ type: "DONE" }]);
    expect(JSON.stringify(server.requests[0].body)).toContain("call_user()");
  });
});
