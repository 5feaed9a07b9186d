import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import { createPyautoguiPolicy } from "../../../../packages/models/src/policies/openai/pyautogui-policy.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../../packages/testing/src/scripted-openai-server.ts";
import { fakeHistory, policyInput, tempBlobs, waitFor } from "../../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };

const QWEN_ANSWER = `The document is open and unsaved. I'll press Ctrl+S to open the Save dialog, then type the name.
\`\`\`python
import pyautogui
import time
pyautogui.hotkey('ctrl', 's')
time.sleep(1)
pyautogui.typewrite('report.txt', interval=0.05)
pyautogui.press('enter')
\`\`\``;

describe("generic pyautogui policy over an OpenAI-compatible server", () => {
  it("sends the system prompt, task and screenshot, and returns the parsed actions with usage", async () => {
    const blobs = tempBlobs();
    const input = await policyInput(blobs);
    server = await startScriptedOpenAIServer({
      script: [{ endpoint: "chat", text: QWEN_ANSWER, usage: { inputTokens: 1800, outputTokens: 70 } }],
    });
    const model = createOpenAIChatModel({ model: "Qwen2.5-VL-72B", baseURL: server.url, blobs, settings: noEnv });
    const policy = createPyautoguiPolicy({ model, maxTokens: 700, temperature: 0.5 });
    const d = await policy.propose(input);
    expect(d.failure).toBeUndefined();
    expect(d.actions).toEqual([
      { type: "HOTKEY", keys: ["ctrl", "s"] },
      { type: "WAIT", seconds: 1 },
      { type: "TYPING", text: "report.txt" },
      { type: "PRESS", key: "enter" },
    ]);
    expect(d.response).toBe(QWEN_ANSWER);
    expect(d.usage?.[0]).toMatchObject({
      role: "policy",
      prompt: "forward.pyautogui.system@2+forward.pyautogui.step@2",
      inputTokens: 1800,
      outputTokens: 70,
    });
    const req = server.requests[0];
    expect(req.body.messages[0].role).toBe("system");
    expect(req.body.messages[0].content).toContain("1280x800");
    expect(JSON.stringify(req.body.messages.at(-1))).toContain("Save the document as report.txt");
    expect(req.body.max_tokens).toBe(700);
    expect(req.body.temperature).toBe(0.5);
    expect(req.images.map((i) => i.sha256)).toEqual([input.observation.screenshot]);
    expect(req.images[0].mediaType).toBe("image/png");
    server.verify();
  });

  it("shows the last N steps with screenshots and answers, older steps as text, and the notice before the current screenshot", async () => {
    const blobs = tempBlobs();
    const history = await fakeHistory(blobs, 5);
    const notice = "Note: the environment has been recovered to step 5.";
    const input = await policyInput(blobs, { history, notice });
    server = await startScriptedOpenAIServer({ script: [{ text: "```python\npyautogui.click(5, 5)\n```" }] });
    const policy = createPyautoguiPolicy({
      model: createOpenAIChatModel({ model: "m", baseURL: server.url, blobs, settings: noEnv }),
      historyImages: 2,
      detail: "low",
    });
    await policy.propose(input);
    const req = server.requests[0];
    expect(req.images.map((i) => i.sha256)).toEqual([
      history[3].observation.screenshot,
      history[4].observation.screenshot,
      input.observation.screenshot,
    ]);
    expect(req.images.every((i) => i.detail === "low")).toBe(true);
    const msgs = req.body.messages;
    expect(msgs[1].content).toMatch(/Step 0: CLICK\(10,20\)\nStep 1: CLICK\(11,20\)\nStep 2: CLICK\(12,20\)/);
    expect(
      msgs.filter((m: { role: string }) => m.role === "assistant").map((m: { content: string }) => m.content),
    ).toEqual(["Understood.", "step 3 answer", "step 4 answer"]);
    const last = msgs.at(-1).content;
    expect(last[0]).toEqual({ type: "text", text: notice });
    expect(last.at(-1).type).toBe("image_url");
    server.verify();
  });

  it("records unusable output as a counted failure of the step and never runs it", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [
        { text: 'I should click Save.\n```python\nimport os; os.system("rm -rf /")\n```' },
        { text: "```python\npyautogui.click(100, \n```" },
        { text: "Let me think about what to do next." },
        { status: 500 },
      ],
    });
    const model = createOpenAIChatModel({ model: "m", baseURL: server.url, blobs, maxRetries: 0, settings: noEnv });
    const policy = createPyautoguiPolicy({ model });
    const kinds = [];
    for (let i = 0; i < 4; i++) {
      const d = await policy.propose(await policyInput(blobs));
      expect(d.actions).toEqual([]);
      kinds.push(d.failure?.kind);
      if (i < 3) expect(d.response).toBeTruthy();
    }
    expect(kinds).toEqual(["unsafe", "unparseable", "empty", "model-error"]);
    expect(policy.stats).toEqual({ calls: 4, failures: { unsafe: 1, unparseable: 1, empty: 1, "model-error": 1 } });
    server.verify();
  });

  it("scales coordinates from the model's image space to the screen", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({ script: [{ text: "```python\npyautogui.click(500, 400)\n```" }] });
    const policy = createPyautoguiPolicy({
      model: createOpenAIChatModel({ model: "m", baseURL: server.url, blobs, settings: noEnv }),
      modelScreen: { width: 1000, height: 1000 },
    });
    const d = await policy.propose(await policyInput(blobs, { width: 1920, height: 1080 }));
    expect(d.actions).toEqual([{ type: "CLICK", x: 960, y: 432, button: "left", numClicks: 1 }]);
  });

  it("propagates cancellation instead of recording a failure", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({ script: [{ delayMs: Infinity }] });
    const policy = createPyautoguiPolicy({
      model: createOpenAIChatModel({ model: "m", baseURL: server.url, blobs, settings: noEnv }),
    });
    const controller = new AbortController();
    const input = { ...(await policyInput(blobs)), signal: controller.signal };
    const pending = policy.propose(input);
    await waitFor(() => server!.calls >= 1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });
});
