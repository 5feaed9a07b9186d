import { afterEach, describe, expect, it } from "vitest";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("scripted OpenAI-compatible server", () => {
  it("listens on 127.0.0.1 and answers chat, responses and messages in script order", async () => {
    server = await startScriptedOpenAIServer({
      script: [
        { endpoint: "chat", text: "hello", usage: { inputTokens: 5, outputTokens: 1 } },
        {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: "cu_1",
              call_id: "call_1",
              action: { type: "click", x: 1, y: 2, button: "left" },
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        },
        {
          endpoint: "messages",
          content: [{ type: "tool_use", id: "toolu_1", name: "computer", input: { action: "screenshot" } }],
        },
      ],
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const chat = await (await post(`${server.url}/chat/completions`, { model: "x", messages: [] })).json();
    expect(chat.choices[0].message.content).toBe("hello");
    expect(chat.usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 1,
      total_tokens: 6,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    });
    const resp = await (await post(`${server.url}/responses`, { model: "computer-use-preview", input: [] })).json();
    expect(resp.output[0].type).toBe("computer_call");
    const msg = await (await post(`${server.url}/messages`, { model: "claude", messages: [] })).json();
    expect(msg.stop_reason).toBe("tool_use");
    expect(server.calls).toBe(3);
    server.verify();
  });

  it("fails loudly on an unexpected request, a wrong endpoint, a failed expectation and unconsumed steps", async () => {
    server = await startScriptedOpenAIServer({ script: [{ endpoint: "responses", text: "x" }] });
    const r1 = await post(`${server.url}/chat/completions`, {});
    expect(r1.status).toBe(400);
    expect(() => server!.verify()).toThrow(/went to chat but the next step expects responses/);

    await server.close();
    server = await startScriptedOpenAIServer({ script: [] });
    expect((await post(`${server.url}/chat/completions`, {})).status).toBe(400);
    expect(() => server!.verify()).toThrow(/script has no steps left/);

    await server.close();
    server = await startScriptedOpenAIServer({
      script: [{ text: "a", expect: (r) => expect(r.body.model).toBe("wanted") }, { text: "never" }],
    });
    expect((await post(`${server.url}/chat/completions`, { model: "other" })).status).toBe(400);
    expect(() => server!.verify()).toThrow(/failed its expectation/);
    expect(() => server!.verify({ allowUnconsumed: false })).toThrow(/1 scripted step\(s\) were never requested/);
  });

  it("decodes images from chat, Responses and Anthropic request shapes", async () => {
    server = await startScriptedOpenAIServer({ script: [{ text: "a" }, { text: "b" }, { text: "c" }] });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const url = `data:image/png;base64,${png.toString("base64")}`;
    await post(`${server.url}/chat/completions`, {
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url, detail: "low" } }] }],
    });
    await post(`${server.url}/responses`, {
      input: [{ type: "computer_call_output", call_id: "c", output: { type: "computer_screenshot", image_url: url } }],
    });
    await post(`${server.url}/messages`, {
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } },
          ],
        },
      ],
    });
    for (const r of server.requests) expect(r.images.map((i) => i.bytes.equals(png))).toEqual([true]);
    expect(server.requests[0].images[0].detail).toBe("low");
    server.verify();
  });
});
