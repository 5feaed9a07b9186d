import { afterEach, describe, expect, it } from "vitest";
import { createLlmPerturbationPolicy } from "../../../packages/models/src/llm/perturber.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { HistoryEntry } from "../../../packages/core/src/policy.ts";
import { makeHistory, requestText, screenshot, scriptedModel, tempBlobs } from "./fixtures.ts";

const task = { id: "t1", instruction: "Empty the trash" };
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function propose(script: ScriptStep[], history?: (h: HistoryEntry[]) => HistoryEntry[], budget = 1) {
  const blobs = tempBlobs();
  const s = await scriptedModel(blobs, script);
  server = s.server;
  const base = await makeHistory(blobs, 2);
  const observation = await screenshot(blobs, 99);
  const policy = createLlmPerturbationPolicy({ model: s.model, budget });
  return policy.propose({ task, history: history ? history(base) : base, observation, step: 2, tick: 2, blobs });
}

describe("createLlmPerturbationPolicy over HTTP", () => {
  it("returns the drifting action, tagged as a perturbation, with the perturbation prompt recorded", async () => {
    const d = await propose([{ text: "I will open the wrong folder.\n```python\npyautogui.doubleClick(30, 12)\n```" }]);
    expect(d.actions).toEqual([expect.objectContaining({ type: "DOUBLE_CLICK", x: 30, y: 12 })]);
    expect(d.memo).toEqual({ perturbation: true });
    expect(d.usage).toEqual([
      expect.objectContaining({
        role: "perturber",
        prompt: "perturbation.instruction@1+forward.pyautogui.system@2+forward.pyautogui.step@2",
      }),
    ]);
    const text = requestText(server!.requests[0].body);
    expect(text).toContain("Task that must NOT be completed correctly:\nEmpty the trash");
    expect(text).toContain("You have 1 action step(s) left");
    server!.verify();
  });

  it("records a WAIT-only answer as a refused step, not a perturbation", async () => {
    const d = await propose([{ text: "WAIT" }]);
    expect(d.actions).toEqual([]);
    expect(d.failure).toMatchObject({ kind: "refused" });
  });

  it("stops calling the model once its budget is spent", async () => {
    const d = await propose([], (h) => h.map((e) => ({ ...e, memo: { perturbation: true } })), 2);
    expect(d.failure?.message).toMatch(/budget of 2/);
    expect(server!.calls).toBe(0);
  });
});
