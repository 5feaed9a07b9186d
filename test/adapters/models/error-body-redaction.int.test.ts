/**
 * Redaction covers error bodies (issue 41): a model server whose error body echoes the request's
 * key (in clear and base64) must not put it into the error the client throws (what reaches
 * stderr, run.json and traj.jsonl). Real HTTP against the scripted server on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { tempBlobs } from "../testing/fixtures.ts";
import { base64Forms } from "../../../packages/core/src/secrets.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const KEY = "echo-me-Key-4471-abcdefgh";

describe("an error body that echoes the key", () => {
  it("the thrown message holds neither the key nor its base64", async () => {
    const echo = (r: { headers: Record<string, unknown> }) => {
      const auth = String(r.headers.authorization ?? "");
      const key = auth.replace(/^Bearer /, "");
      // the key alone, base64-encoded at each byte offset: no "Bearer" beside it for the token pattern to catch
      return `bad key ${auth} (base64 ${[0, 1, 2].map((k) => Buffer.from("x".repeat(k) + key).toString("base64")).join(" ")})`;
    };
    server = await startScriptedOpenAIServer({ script: [{ status: 401, errorMessage: echo }] });
    const model = createOpenAIChatModel({
      model: "m",
      baseURL: server.url,
      apiKey: KEY,
      blobs: tempBlobs(),
      maxRetries: 0,
      settings: { logLevel: "warn", ci: false },
    });
    const err = await model.complete({ role: "detector", messages: [{ role: "user", content: "hi" }] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/HTTP 401/);
    expect(err?.message).toContain("[redacted]");
    expect(err?.message).not.toContain(KEY);
    for (const form of base64Forms(KEY)) expect(err?.message).not.toContain(form);
    expect(base64Forms(KEY).length).toBeGreaterThanOrEqual(3);
    server.verify();
  });
});
