/**
 * Typed checks on user functions' results (issue 41): a 0-byte screenshot from an environment's
 * screenshot/observe is refused with one line naming it, never sent to a model as an image (it was,
 * and the run reported ok). Real HTTP: the scripted server on 127.0.0.1 must receive no request.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createAnthropicPolicy } from "../../../packages/models/src/policies/anthropic/anthropic-policy.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { AdapterError } from "../../../packages/core/src/errors.ts";
import { policyInput, tempBlobs } from "../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };

describe("a 0-byte screenshot is refused, not sent", () => {
  it("chat models refuse it with one line; the server gets nothing", async () => {
    server = await startScriptedOpenAIServer({ script: [] });
    const blobs = tempBlobs();
    const empty = await blobs.put(new Uint8Array(0));
    const model = createOpenAIChatModel({ model: "m", baseURL: server.url, blobs, maxRetries: 0, settings: noEnv });
    const err = await model
      .complete({ role: "policy", messages: [{ role: "user", content: [{ type: "image", blob: empty }] }] })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(err).toBeInstanceOf(AdapterError);
    expect(err?.message).toBe(
      `screenshot ${empty.slice(0, 12)} is 0 bytes: the environment's screenshot/observe returned an empty image, not sent to the model`,
    );
    expect(server.calls).toBe(0);
  });

  it("a computer-use policy records a failed step, the server gets nothing", async () => {
    server = await startScriptedOpenAIServer({ script: [] });
    const blobs = tempBlobs();
    const input = await policyInput(blobs);
    const empty = await blobs.put(new Uint8Array(0));
    const policy = createAnthropicPolicy({
      baseURL: server.origin,
      apiKey: "sk-ant-test-1234",
      settings: noEnv,
      maxRetries: 0,
    });
    const d = await policy.propose({ ...input, observation: { ...input.observation, screenshot: empty } });
    expect(d.failure?.kind).toBe("model-error");
    expect(d.failure?.message).toMatch(/is 0 bytes: the environment's screenshot\/observe returned an empty image/);
    expect(server.calls).toBe(0);
  });
});
