import { afterEach, describe, expect, it } from "vitest";
import { createLlmSummarizer } from "../../../packages/models/src/llm/summarizer.ts";
import { createLlmStateVerifier } from "../../../packages/models/src/llm/verifier.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import { makeHistory, requestText, screenshot, scriptedModel, tempBlobs } from "./fixtures.ts";

const task = { id: "t1", instruction: "Save the document as notes.odt" };
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptStep[], opts: { timeoutMs?: number } = {}) {
  const blobs = tempBlobs();
  const s = await scriptedModel(blobs, script, opts);
  server = s.server;
  return { blobs, model: s.model };
}

describe("createLlmSummarizer over HTTP", () => {
  it("returns the model's briefing and records the contextualizer prompt; the target screenshot is sent last", async () => {
    const { blobs, model } = await setup([
      { text: "TARGET STATE: Writer open with notes.\nHOW IT GOT THERE:\n- opened Writer" },
    ]);
    const history = await makeHistory(blobs, 3);
    const target = await screenshot(blobs, 77);
    const out = await createLlmSummarizer({ model }).summarize({
      task,
      history,
      target: { step: 3, observation: target },
      blobs,
    });
    expect(out.summary).toBe("TARGET STATE: Writer open with notes.\nHOW IT GOT THERE:\n- opened Writer");
    expect(out.prompt).toBe("recovery-target-contextualizer@2");
    expect(out.usage).toEqual([
      expect.objectContaining({ role: "summarizer", prompt: "recovery-target-contextualizer@2" }),
    ]);
    const req = server!.requests[0];
    expect(req.images.at(-1)!.sha256).toBe(target.screenshot);
    expect(req.body.temperature).toBe(0);
    expect(req.body.max_tokens).toBe(1024);
    expect(requestText(req.body)).toContain("Step 2 action: CLICK(12,20)");
    server!.verify();
  });

  it("falls back to the action list when the model fails", async () => {
    const { blobs, model } = await setup([{ status: 503 }]);
    const history = await makeHistory(blobs, 2);
    const out = await createLlmSummarizer({ model }).summarize({
      task,
      history,
      target: { step: 2, observation: history[1].observation },
      blobs,
    });
    expect(out.summary).toContain("- step 0: CLICK(10,20)");
    expect(out.summary).toContain("- step 1: CLICK(11,20)");
  });
});

describe("createLlmStateVerifier over HTTP", () => {
  it("abstains when the model says the evidence is insufficient, keeping its evidence", async () => {
    const { blobs, model } = await setup([
      {
        text: '{"verdict": "abstain", "evidence": ["status bar text too small to read in both"], "reason": "cannot tell whether the file was saved"}',
      },
    ]);
    const target = await screenshot(blobs, 1);
    const current = await screenshot(blobs, 2);
    const v = await createLlmStateVerifier({ model }).verify({ target, current, blobs });
    expect(v).toMatchObject({
      verdict: "abstain",
      evidence: ["status bar text too small to read in both"],
      prompt: "state-verifier@1",
    });
    expect(v.usage).toEqual([expect.objectContaining({ role: "verifier", prompt: "state-verifier@1" })]);
    const req = server!.requests[0];
    expect(req.images.map((i) => [i.sha256, i.detail])).toEqual([
      [target.screenshot, "high"],
      [current.screenshot, "high"],
    ]);
    server!.verify();
  });

  it("reports a mismatch backed by visible evidence", async () => {
    const { blobs, model } = await setup([
      {
        text: '{"verdict": "mismatch", "evidence": ["title bar: TARGET notes.odt, CURRENT Untitled 1"], "reason": "different document"}',
      },
    ]);
    const v = await createLlmStateVerifier({ model }).verify({
      target: await screenshot(blobs, 1),
      current: await screenshot(blobs, 2),
      blobs,
    });
    expect(v.verdict).toBe("mismatch");
    expect(v.evidence).toHaveLength(1);
  });

  it("downgrades a verdict that cites no evidence to abstain", async () => {
    const { blobs, model } = await setup([
      { text: '{"verdict": "match", "evidence": [], "reason": "looks the same"}' },
    ]);
    const v = await createLlmStateVerifier({ model }).verify({
      target: await screenshot(blobs, 1),
      current: await screenshot(blobs, 1),
      blobs,
    });
    expect(v.verdict).toBe("abstain");
    expect(v.reason).toMatch(/without citing visible evidence/);
  });

  it("abstains with a failure after invalid replies and on timeouts", async () => {
    const { blobs, model } = await setup([{ text: '{"verdict": "same"}' }, { text: "match" }]);
    const obs = await screenshot(blobs, 1);
    const v = await createLlmStateVerifier({ model, maxReasks: 1 }).verify({ target: obs, current: obs, blobs });
    expect(v.verdict).toBe("abstain");
    expect(v.failure).toMatch(/invalid reply/);
    expect(server!.calls).toBe(2);
    server!.push({ text: "{}", delayMs: Infinity });
    const t = await createLlmStateVerifier({ model, timeoutMs: 200 }).verify({ target: obs, current: obs, blobs });
    expect(t).toMatchObject({ verdict: "abstain", failure: expect.stringMatching(/timed out/) });
  });
});
