import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel } from "../../../../packages/models/src/models/openai-chat.ts";
import { createUiTarsPolicy } from "../../../../packages/models/src/policies/uitars/uitars-policy.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../../packages/testing/src/scripted-openai-server.ts";
import { fakeHistory, policyInput, tempBlobs } from "../../testing/fixtures.ts";

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
const noEnv = { logLevel: "warn", ci: false };

describe("UI-TARS policy", () => {
  it("prompts with the UI-TARS action space and converts 0-1000 coordinates to pixels", async () => {
    const blobs = tempBlobs();
    const history = await fakeHistory(blobs, 6, (i) => ({
      response: `Thought: t${i}\nAction: click(start_box='(1,1)')`,
    }));
    const input = await policyInput(blobs, { history, notice: "Note: recovered to step 6." });
    server = await startScriptedOpenAIServer({
      script: [
        {
          text: "Thought: The File menu is at the top left; I'll open it.\nAction: click(start_box='<|box_start|>(25,15)<|box_end|>')",
          usage: { inputTokens: 5000, outputTokens: 25 },
        },
      ],
    });
    const policy = createUiTarsPolicy({
      model: createOpenAIChatModel({ model: "ui-tars-7b", baseURL: server.url, blobs, settings: noEnv }),
    });
    const d = await policy.propose(input);
    expect(d.actions).toEqual([{ type: "CLICK", x: 32, y: 12, button: "left", numClicks: 1 }]);
    expect(d.usage?.[0].prompt).toBe("forward.uitars.computer@1");
    const req = server.requests[0];
    expect(req.images).toHaveLength(6); // 5 past screenshots (UI-TARS keeps 5) + current
    expect(req.images.at(-1)!.sha256).toBe(input.observation.screenshot);
    expect(JSON.stringify(req.body.messages)).toContain("left_double(start_box=");
    expect(req.body.messages.at(-1).content[0].text).toBe("Note: recovered to step 6.");
    expect(req.body.temperature).toBe(0);
    server.verify();
  });

  it("records a malformed UI-TARS answer as an unparseable step", async () => {
    const blobs = tempBlobs();
    server = await startScriptedOpenAIServer({
      script: [{ text: "Thought: hmm\nAction: click(start_box='(2000,5)')" }],
    });
    const policy = createUiTarsPolicy({
      model: createOpenAIChatModel({ model: "ui-tars", baseURL: server.url, blobs, settings: noEnv }),
    });
    const d = await policy.propose(await policyInput(blobs));
    expect(d.actions).toEqual([]);
    expect(d.failure).toMatchObject({ kind: "unparseable" });
    expect(d.failure!.message).toMatch(/outside 0..1000/);
    expect(policy.stats.failures.unparseable).toBe(1);
  });
});
