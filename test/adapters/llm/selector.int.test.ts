import { afterEach, describe, expect, it } from "vitest";
import { createLlmStepSelector } from "../../../packages/models/src/llm/selector.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import { makeHistory, requestText, scriptedModel, tempBlobs } from "./fixtures.ts";

const task = { id: "t1", instruction: "Bold the title" };
const detection = { isError: true, errorStep: 3, reason: "clicked Italic instead of Bold", confidence: 0.9 };
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(script: ScriptStep[], errorStep = 3, opts: { timeoutMs?: number } = {}) {
  const blobs = tempBlobs();
  const s = await scriptedModel(blobs, script);
  server = s.server;
  const history = await makeHistory(blobs, 5);
  const selector = createLlmStepSelector({ model: s.model, historyImages: 2, ...opts });
  const selection = await selector.select({
    task,
    history,
    errorStep,
    detection: { ...detection, errorStep },
    instanceKey: "t1/0",
    seed: 0,
    blobs,
  });
  return { selection, history };
}

describe("createLlmStepSelector over HTTP", () => {
  it("returns the chosen step with the prompt id@version in usage, showing steps 0..E only", async () => {
    const { selection, history } = await run([
      { text: '{"recovery_step": 1, "reason": "the file was opened wrongly at step 1"}' },
    ]);
    expect(selection).toMatchObject({
      step: 1,
      reason: "the file was opened wrongly at step 1",
      prompt: "recovery-step-selector@1",
    });
    expect(selection.failure).toBeUndefined();
    expect(selection.usage).toEqual([
      expect.objectContaining({ role: "selector", prompt: "recovery-step-selector@1" }),
    ]);
    const req = server!.requests[0];
    // historyImages 2 of the entries 0..3: steps 2 and 3; step 4 (after E) is never shown.
    expect(req.images.map((i) => i.sha256)).toEqual([
      history[2].observation.screenshot,
      history[3].observation.screenshot,
    ]);
    expect(requestText(req.body)).toContain("clicked Italic instead of Bold");
    expect(requestText(req.body)).not.toContain("Step 4 action");
    server!.verify();
  });

  it("re-asks after an out-of-range step and accepts the corrected answer", async () => {
    const { selection } = await run([
      { text: '{"recovery_step": 7, "reason": "r"}' },
      { text: '{"recovery_step": 3, "reason": "undo only the error"}' },
    ]);
    expect(selection.step).toBe(3);
    expect(selection.failure).toBeUndefined();
    expect(server!.requests[1].body.messages.at(-1).content).toMatch(/recovery_step must be between 0 and 3/);
    server!.verify();
  });

  it("falls back to E-1 after two invalid replies and says so in failure", async () => {
    const { selection } = await run([{ text: "step two" }, { text: '{"recovery_step": 1.5, "reason": "r"}' }]);
    expect(selection.step).toBe(2);
    expect(selection.failure).toMatch(/fell back to E-1 = 2/);
    expect(selection.usage).toHaveLength(2);
    server!.verify();
  });

  it("falls back to E-1 on a timeout", async () => {
    const { selection } = await run([{ text: "{}", delayMs: Infinity }], 3, { timeoutMs: 250 });
    expect(selection.step).toBe(2);
    expect(selection.failure).toMatch(/timed out/);
  });

  it("answers R = 0 without a model call when the error is at step 0", async () => {
    const { selection } = await run([], 0);
    expect(selection.step).toBe(0);
    expect(server!.calls).toBe(0);
  });
});
