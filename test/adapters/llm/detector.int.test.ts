import { afterEach, describe, expect, it } from "vitest";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import type { ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { makeHistory, requestText, screenshot, scriptedModel, tempBlobs } from "./fixtures.ts";

const task = { id: "t1", instruction: "Rename report.txt to final.txt" };
let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: Parameters<typeof scriptedModel>[1], opts: { timeoutMs?: number } = {}) {
  const blobs = tempBlobs();
  const s = await scriptedModel(blobs, script, opts);
  server = s.server;
  const history = await makeHistory(blobs, 4);
  const observation = await screenshot(blobs, 200);
  return {
    blobs,
    model: s.model,
    history,
    observation,
    input: { task, history, observation, step: 4, tick: 4, blobs },
  };
}

describe("createLlmErrorDetector over HTTP", () => {
  it.each([
    [undefined, "error-detector.system@2", false],
    ["neutral", "error-detector.system@2", false],
    ["cautious", "error-detector.system-cautious@1", true],
  ] as const)("stance %s sends %s (the 'when unsure, say on track' line: %s)", async (stance, system, cautious) => {
    const { model, input } = await setup([
      { text: '{"off_track": false, "error_step": null, "reason": "fine", "confidence": 0.4}' },
    ]);
    const d = await createLlmErrorDetector({ model, ...(stance ? { stance } : {}) }).detect(input);
    expect(d.prompt).toBe(`${system}+error-detector.user@1`);
    const text = requestText(server!.requests[0].body);
    expect(text.includes("When you are unsure, say the agent is on track")).toBe(cautious);
    expect(text).toContain("name the FIRST step whose action started the trouble");
    server!.verify();
  });

  it("reports the erroneous step from a valid JSON reply and records usage with the prompt id@version", async () => {
    const { model, input, observation, history } = await setup([
      {
        text: '```json\n{"off_track": true, "error_step": 2, "reason": "opened the wrong file", "confidence": 0.8}\n```',
        usage: { inputTokens: 900, outputTokens: 30 },
      },
    ]);
    const detector = createLlmErrorDetector({ model, historyImages: 2 });
    const d = await detector.detect(input);
    expect(d).toMatchObject({ isError: true, errorStep: 2, reason: "opened the wrong file", confidence: 0.8 });
    expect(d.failure).toBeUndefined();
    expect(d.prompt).toBe("error-detector.system@2+error-detector.user@1");
    expect(d.usage).toEqual([
      expect.objectContaining({
        role: "detector",
        prompt: d.prompt,
        inputTokens: 900,
        outputTokens: 30,
        model: "scripted-vlm",
      }),
    ]);
    // Server side: 2 history screenshots + the current one, current last; JSON mode asked for.
    const req = server!.requests[0];
    expect(req.images.map((i) => i.sha256)).toEqual([
      history[2].observation.screenshot,
      history[3].observation.screenshot,
      observation.screenshot,
    ]);
    expect(req.body.response_format).toEqual({ type: "json_object" });
    expect(requestText(req.body)).toContain("numbered 0 to 3");
    expect(requestText(req.body)).toContain("Rename report.txt to final.txt");
    server!.verify();
  });

  it("re-asks once with the validation error and then accepts a valid reply", async () => {
    const { model, input } = await setup([
      { text: "The agent seems fine I think." },
      {
        text: '{"off_track": false, "error_step": null, "reason": "on track", "confidence": 0.9}',
        expect: (r) => {
          const text = requestText(r.body);
          if (!text.includes("could not be used: the reply contains no JSON object"))
            throw new Error("re-ask does not carry the validation error");
          if (!r.body.messages.some((m: any) => m.role === "assistant" && m.content.includes("seems fine")))
            throw new Error("re-ask does not echo the invalid reply");
        },
      },
    ]);
    const d = await createLlmErrorDetector({ model }).detect(input);
    expect(d).toMatchObject({ isError: false, errorStep: null, confidence: 0.9 });
    expect(d.failure).toBeUndefined();
    expect(d.usage).toHaveLength(2);
    server!.verify();
  });

  it("fails safe after two invalid replies: no detection, failure recorded, exactly two calls", async () => {
    const { model, input } = await setup([
      { text: '{"off_track": "yes"}' },
      { text: '{"off_track": true, "reason": "x", "confidence": 2}' },
    ]);
    const d = await createLlmErrorDetector({ model, maxReasks: 1 }).detect(input);
    expect(d.isError).toBe(false);
    expect(d.errorStep).toBeNull();
    expect(d.failure).toMatch(/invalid reply: .*after 2 attempt/);
    expect(d.usage).toHaveLength(2);
    expect(server!.calls).toBe(2);
    server!.verify();
  });

  it("treats an error step outside the history as invalid", async () => {
    const { model, input } = await setup([
      { text: '{"off_track": true, "error_step": 4, "reason": "r", "confidence": 0.9}' },
      { text: '{"off_track": true, "error_step": -1, "reason": "r", "confidence": 0.9}' },
    ]);
    const d = await createLlmErrorDetector({ model }).detect(input);
    expect(d.isError).toBe(false);
    expect(d.failure).toMatch(/error_step must be between 0 and 3/);
    expect(server!.requests[1].body.messages.at(-1).content).toMatch(/between 0 and 3/);
    server!.verify();
  });

  it("fails safe on a timeout instead of throwing", async () => {
    const { model, input } = await setup([{ text: "{}", delayMs: Infinity }]);
    const started = Date.now();
    const d = await createLlmErrorDetector({ model, timeoutMs: 300 }).detect(input);
    expect(d.isError).toBe(false);
    expect(d.failure).toMatch(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server!.calls).toBe(1);
  });

  it("fails safe on an HTTP error from the server", async () => {
    const { model, input } = await setup([{ status: 500 }]);
    const d = await createLlmErrorDetector({ model }).detect(input);
    expect(d.isError).toBe(false);
    expect(d.failure).toMatch(/model call failed/);
    expect(d.failure).not.toContain("test-key");
  });

  it("does not call the model before any step was taken", async () => {
    const { model, observation, blobs } = await setup([]);
    const d = await createLlmErrorDetector({ model }).detect({
      task,
      history: [],
      observation,
      step: 0,
      tick: 0,
      blobs,
    });
    expect(d.isError).toBe(false);
    expect(server!.calls).toBe(0);
  });

  it("rejects a bad option with a ConfigError naming it", async () => {
    const { model } = await setup([]);
    expect(() => createLlmErrorDetector({ model, maxReasks: -1 })).toThrow(ConfigError);
    expect(() => createLlmErrorDetector({ model, historyImages: 1.5 })).toThrow(/historyImages/);
    expect(() => createLlmErrorDetector({ model: {} as never })).toThrow(/"model"/);
  });
});
