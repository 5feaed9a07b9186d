/**
 * The LLM recovery judge (the oracle study's model baseline) over HTTP against a scripted server:
 * what it sends (the rendered recovery-judge prompt, then TARGET, ERROR and RECOVERED screenshots
 * in that order), how it reads the verdict, the re-ask after an invalid reply, and the abstention
 * (restored: null with the failure) when the judge never gives a usable answer.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createLlmRecoveryJudge } from "../../../packages/models/src/llm/judge.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { requestText, screenshot, scriptedModel, tempBlobs } from "./fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(script: ScriptStep[]) {
  const blobs = tempBlobs();
  const s = await scriptedModel(blobs, script);
  server = s.server;
  const [target, error, recovered] = [
    await screenshot(blobs, 1),
    await screenshot(blobs, 2),
    await screenshot(blobs, 3),
  ];
  const input = {
    instruction: "Move readme.txt to the Trash",
    history: ["0. CLICK(10,20)", "1. CLICK(5,5)  <- after the TARGET state (erroneous)"],
    recovery: ["1. PRESS(esc)"],
    target,
    error,
    recovered,
  };
  return { model: s.model, input };
}

describe("createLlmRecoveryJudge over HTTP", () => {
  it("sends the task, the history, the recovery and three labelled screenshots, and returns the verdict with its reason", async () => {
    const { model, input } = await setup([
      { text: 'Looking at it.\n```json\n{"restored": false, "reason": "keep.txt is still selected"}\n```' },
    ]);
    const j = await createLlmRecoveryJudge({ model }).judge(input);
    expect(j).toEqual({
      restored: false,
      reason: "keep.txt is still selected",
      prompt: "recovery-judge@1",
      usage: [expect.objectContaining({ role: "judge", prompt: "recovery-judge@1" })],
    });
    const req = server!.requests[0];
    expect(req.images.map((i) => [i.sha256, i.detail])).toEqual([
      [input.target.screenshot, "high"],
      [input.error.screenshot, "high"],
      [input.recovered.screenshot, "high"],
    ]);
    const text = requestText(req.body);
    expect(text).toContain("Move readme.txt to the Trash");
    expect(text).toContain("1. CLICK(5,5)  <- after the TARGET state (erroneous)");
    expect(text).toContain("1. PRESS(esc)");
    expect(text).toMatch(/TARGET:[\s\S]*ERROR:[\s\S]*RECOVERED:/);
    expect(req.body.temperature).toBe(0);
    server!.verify();
  });

  it("re-asks once with the validation error, then abstains with the failure", async () => {
    const { model, input } = await setup([
      { text: '{"restored": "probably"}' },
      { text: '{"restored": true, "reason": "same file selected"}' },
    ]);
    expect(await createLlmRecoveryJudge({ model }).judge(input)).toMatchObject({
      restored: true,
      reason: "same file selected",
    });
    expect(requestText(server!.requests[1].body)).toMatch(/could not be used: restored: .*reason: /);
    server!.verify();
    await server!.close();

    const again = await setup([{ text: "yes" }, { text: '{"restored": 1}' }]);
    const j = await createLlmRecoveryJudge({ model: again.model }).judge(again.input);
    expect(j).toMatchObject({
      restored: null,
      reason: "the judge gave no usable answer",
      failure: expect.stringMatching(/^invalid reply: .*\(after 2 attempt\(s\)\)$/),
    });
    expect(j.usage).toHaveLength(2);
    server!.verify();
  });

  it("abstains on a server error instead of answering no", async () => {
    const { model, input } = await setup([{ status: 503 }]);
    const j = await createLlmRecoveryJudge({ model }).judge(input);
    expect(j.restored).toBeNull();
    expect(j.failure).toMatch(/model call failed/);
  });

  it("refuses bad options with a ConfigError naming the field", () => {
    expect(() => createLlmRecoveryJudge({ model: undefined as never })).toThrow(ConfigError);
    expect(() => createLlmRecoveryJudge({ model: { complete: async () => ({}) } as never, maxReasks: 9 })).toThrow(
      /option "maxReasks"/,
    );
  });
});
