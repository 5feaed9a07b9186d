/**
 * The one call loop of the LLM components (packages/models/src/llm/json-reply.ts), over HTTP: a reply that
 * does not parse is re-asked with the parse error, and a role that never answers usably comes back
 * as a failure with the reason, never as an exception.
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { askForJson, askForText } from "../../../packages/models/src/llm/json-reply.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import { requestText, scriptedModel, tempBlobs } from "./fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelWith(script: ScriptStep[]) {
  const s = await scriptedModel(tempBlobs(), script);
  server = s.server;
  return s.model;
}

const base = {
  role: "judge" as const,
  prompt: "test-prompt@1",
  messages: [{ role: "user" as const, content: "Answer." }],
};

describe("the LLM call loop", () => {
  it("re-asks a JSON role with the schema's complaint and accepts the corrected reply", async () => {
    const model = await modelWith([{ text: '{"restored": "yes"}' }, { text: 'Sure: {"restored": true}' }]);
    const reply = await askForJson({ ...base, model, schema: z.object({ restored: z.boolean() }), maxReasks: 1 });
    expect(reply.value).toEqual({ restored: true });
    expect(reply.attempts).toBe(2);
    expect(reply.usage).toHaveLength(2);
    const second = requestText(server!.requests[1].body);
    expect(second).toContain("Your reply could not be used: restored:");
    expect(second).toContain("with only the JSON object");
    server!.verify();
  });

  it("fails a text role with the reason after an empty reply and its re-ask, without throwing", async () => {
    const model = await modelWith([{ text: "   " }, { text: "" }]);
    const reply = await askForText({ ...base, model, maxReasks: 1 });
    expect(reply.value).toBeUndefined();
    expect(reply.failure).toBe("invalid reply: the reply is empty (after 2 attempt(s))");
    expect(server!.requests[1].body.response_format).toBeUndefined();
    expect(requestText(server!.requests[1].body)).toContain("Answer again in the format asked for");
    server!.verify();
  });

  it("returns a transport failure as data after one call", async () => {
    const model = await modelWith([{ status: 503 }]);
    const reply = await askForText({ ...base, model, maxReasks: 3 });
    expect(reply.value).toBeUndefined();
    expect(reply.failure).toMatch(/^model call failed/);
    expect(reply.attempts).toBe(1);
  });
});
