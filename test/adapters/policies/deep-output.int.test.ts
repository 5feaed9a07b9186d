/**
 * Rule "recursion bounds on every parsed input", model output side (issue 41): an answer whose
 * tool call input is nested thousands of levels deep used to end the run with "RangeError: Maximum
 * call stack size exceeded" and no run.json. Now it is an unusable answer: a counted `unparseable`
 * failure of the step, nothing cached. Real HTTP against the scripted server on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicPolicy } from "../../../packages/models/src/policies/anthropic/anthropic-policy.ts";
import { createOpenAICuaPolicy } from "../../../packages/models/src/policies/openai-cua/openai-cua-policy.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { policyInput, tempBlobs } from "../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };
/** An object nested `n` levels deep (built without recursion). */
function nested(n: number): Record<string, unknown> {
  let v: Record<string, unknown> = { action: "screenshot" };
  for (let i = 0; i < n; i++) v = { action: "left_click", coordinate: [1, 2], more: v };
  return v;
}

describe("a model answer nested too deep is a counted unusable answer", () => {
  it("Anthropic: a tool_use input 2000 levels deep", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "messages",
          content: [{ type: "tool_use", id: "toolu_1", name: "computer", input: nested(2_000) }],
        },
      ],
    });
    const policy = createAnthropicPolicy({
      baseURL: server.origin,
      apiKey: "sk-ant-test-1234",
      settings: noEnv,
      maxRetries: 0,
    });
    const d = await policy.propose(await policyInput(tempBlobs()));
    expect(d.actions).toEqual([]);
    expect(d.failure).toEqual({
      kind: "unparseable",
      message: "the answer's content is nested more than 64 levels deep",
    });
    expect(policy.stats?.failures).toEqual({ unparseable: 1 });
    server.verify();
  });

  it("OpenAI computer use: a computer_call action 2000 levels deep", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: "cu_1",
              call_id: "call_1",
              action: nested(2_000),
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        },
      ],
    });
    const policy = createOpenAICuaPolicy({
      baseURL: server.url,
      apiKey: "sk-test-cua-1234",
      settings: noEnv,
      maxRetries: 0,
    });
    const d = await policy.propose(await policyInput(tempBlobs()));
    expect(d.failure).toEqual({
      kind: "unparseable",
      message: "the answer's output is nested more than 64 levels deep",
    });
    expect(policy.stats?.failures).toEqual({ unparseable: 1 });
    server.verify();
  });
});
