import { afterEach, describe, expect, it } from "vitest";
import {
  linearizeAxTree,
  observationParts,
  unescapeCell,
  A11Y_HEADER,
} from "../../../packages/models/src/policies/observation.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createPyautoguiPolicy } from "../../../packages/models/src/policies/openai/pyautogui-policy.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { ModelAgentSpecSchema, modelRoleProblem } from "../../../experiments/agents/model-spec.ts";
import type { AxNode } from "../../../packages/core/src/observation.ts";
import { tempBlobs } from "../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const settings = { logLevel: "warn", ci: false };

const tree: AxNode = {
  role: "desktop frame",
  name: "Desktop",
  bounds: [0, 0, 1280, 800],
  children: [
    { role: "button", name: "Save\tnow", bounds: [10, 20, 80, 24], states: ["focused"] },
    { role: "text", name: "Document", value: "line 1\nline 2", bounds: [0, 50, 400, 300] },
    { role: "button", name: "Hidden", bounds: [0, 0, 0, 0] },
    { role: "filler", name: "", bounds: [0, 0, 5, 5] },
  ],
};

describe("observation types (screenshot, a11y_tree, screenshot_a11y_tree)", () => {
  it("linearizes a tree to one escaped, tab-separated line per named visible element, and cuts it to a budget", () => {
    const text = linearizeAxTree(tree);
    const lines = text.split("\n");
    expect(lines[0]).toBe(A11Y_HEADER);
    expect(lines.slice(1)).toEqual([
      "desktop frame\tDesktop\t\t\t(0, 0)\t(1280, 800)",
      "button\tSave\\tnow\t\tfocused\t(10, 20)\t(80, 24)",
      "text\tDocument\tline 1\\nline 2\t\t(0, 50)\t(400, 300)",
    ]);
    expect(unescapeCell("line 1\\nline 2")).toBe("line 1\nline 2");
    const cut = linearizeAxTree(tree, A11Y_HEADER.length + 50);
    expect(cut).toMatch(/\(2 more element\(s\) cut to fit/);
  });

  it("shows the screenshot, the tree, or both, and the screenshot when there is no tree", () => {
    const obs = { screenshot: "a".repeat(64), width: 1280, height: 800, axTree: tree };
    expect(observationParts(obs, "screenshot").map((p) => p.type)).toEqual(["image"]);
    expect(observationParts(obs, "a11y_tree").map((p) => p.type)).toEqual(["text"]);
    expect(observationParts(obs, "screenshot_a11y_tree").map((p) => p.type)).toEqual(["image", "text"]);
    const bare = observationParts({ ...obs, axTree: undefined }, "a11y_tree");
    expect(bare.map((p) => p.type)).toEqual(["text", "image"]);
  });

  it("sends a SimDesk tree instead of the screenshot to the pyautogui agent and the detector with a11y_tree", async () => {
    const blobs = tempBlobs();
    const env = createSimDesk({ blobs });
    const task = getSimDeskTask("editor-append-notes");
    const observation = await env.reset(task);
    await env.close();
    server = await startScriptedOpenAIServer({
      script: [
        { text: "```python\npyautogui.click(56, 18)\n```" },
        { text: "```python\npyautogui.click(56, 18)\n```" },
        { text: '{"off_track": false, "error_step": null, "reason": "fine", "confidence": 0.9}' },
      ],
    });
    const model = createOpenAIChatModel({ model: "m", baseURL: server.url, blobs, settings });
    const input = { task, history: [], observation, step: 0, tick: 0, blobs };
    await createPyautoguiPolicy({ model, observation: "a11y_tree" }).propose(input);
    await createPyautoguiPolicy({ model }).propose(input);
    const [tree, shot] = server.requests;
    expect(tree.images).toHaveLength(0);
    const treeText = JSON.stringify(tree.body.messages);
    expect(treeText).toContain("Here is the current accessibility tree.");
    expect(treeText).toContain("button\\tLaunch Files");
    expect(treeText).toContain("In this setup you do not get screenshots");
    expect(shot.images).toHaveLength(1);
    expect(JSON.stringify(shot.body.messages)).not.toContain("Accessibility tree");
    const d = await createLlmErrorDetector({ model, observation: "screenshot_a11y_tree" }).detect({
      ...input,
      history: [{ step: 0, observation, actions: [{ type: "CLICK", x: 56, y: 18, button: "left", numClicks: 1 }] }],
      step: 1,
    });
    expect(d.isError).toBe(false);
    expect(server.requests[2].images.length).toBeGreaterThan(0);
    expect(JSON.stringify(server.requests[2].body.messages)).toContain("Accessibility tree:");
    server.verify();
  });

  it("defaults model agents to screenshots and refuses trees for the computer-use formats", () => {
    expect(ModelAgentSpecSchema.parse({ kind: "model" }).observation).toBe("screenshot");
    const cua = ModelAgentSpecSchema.parse({ kind: "model", format: "openai-cua", observation: "a11y_tree" });
    expect(modelRoleProblem("forward", cua)).toMatchObject({ field: "observation" });
    expect(
      modelRoleProblem("forward", ModelAgentSpecSchema.parse({ kind: "model", observation: "a11y_tree" })),
    ).toBeUndefined();
  });
});
