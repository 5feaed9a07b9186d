/**
 * The LangChain middleware (entry `retrace-cua/adapters`) reports each recovery to LangChain's
 * callbacks: a real callback handler given to `agent.invoke(input, { callbacks })` receives one
 * `retrace.recovery` custom event with E, R, the attempt, restored, confidence and tokens. And
 * after a restoration that was not confirmed, `unconfirmedRestoration` decides the messages: the
 * default keeps the history and tells the truth, the paper's setting cuts and says "recovered".
 * The agent's model is LangChain's fakeModel; the detector is the LLM detector over a scripted
 * server on 127.0.0.1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent, fakeModel, tool } from "langchain";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import sharp from "sharp";
import { createLlmErrorDetector, type RecoveryReport } from "retrace-cua/models";
import { recoveryMiddleware, RECOVERY_EVENT, type RecoveryMiddlewareOptions } from "retrace-cua/langchain";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";

/** A text field as the desktop: `type_text` appends; the screenshot's colour follows the text. */
function textDesk(blobs: BlobStore) {
  let text = "";
  const stateOf = new Map<string, string>();
  const observe = async (): Promise<Observation> => {
    const h = [...text].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 16_777_216, 7);
    const png = await sharp({
      create: { width: 16, height: 12, channels: 3, background: { r: h & 255, g: (h >> 8) & 255, b: (h >> 16) & 255 } },
    })
      .png()
      .toBuffer();
    const obs = { screenshot: await blobs.put(png), width: 16, height: 12, text };
    stateOf.set(obs.screenshot, text);
    return obs;
  };
  const typeText = tool(
    async ({ text: t }: { text: string }) => ((text += t), `the field reads ${JSON.stringify(text)}`),
    { name: "type_text", description: "Type text", schema: z.object({ text: z.string() }) },
  );
  return {
    observe,
    typeText,
    restoreTo: (o: Observation) => void (text = stateOf.get(o.screenshot)!),
    get text() {
      return text;
    },
  };
}

/** A real LangChain callback handler that collects custom events. */
class CustomEventCollector extends BaseCallbackHandler {
  name = "custom-event-collector";
  events: { name: string; data: unknown }[] = [];
  override handleCustomEvent(eventName: string, data: unknown): void {
    this.events.push({ name: eventName, data });
  }
}

const onTrack: ScriptStep = {
  text: JSON.stringify({ off_track: false, error_step: null, reason: "fine", confidence: 0.9 }),
};
const offTrack = (step: number): ScriptStep => ({
  text: JSON.stringify({
    off_track: true,
    error_step: step,
    reason: `step ${step} typed the wrong letter`,
    confidence: 0.95,
  }),
});
const typeCall = (text: string, id: string) => [{ name: "type_text", args: { text }, id }];
const kinds = (messages: BaseMessage[]) => messages.map((m) => m.getType());

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** a, b, X (wrong; the detector blames step 2 after it, R = 1), then the agent continues. */
async function run(restored: boolean, extra: Partial<RecoveryMiddlewareOptions> = {}) {
  const blobs = tempBlobs();
  const desk = textDesk(blobs);
  const s = await scriptedModel(blobs, [onTrack, onTrack, offTrack(2)]);
  server = s.server;
  const mw = recoveryMiddleware({
    detector: createLlmErrorDetector({ model: s.model, historyImages: 1 }),
    observe: desk.observe,
    blobs,
    toActions: (c) => [{ type: "TYPING", text: String(c.args.text) }],
    freezeWindow: 5,
    restoration: "snapshot",
    restore: async (req) => {
      if (restored) desk.restoreTo(req.target.observation);
      return {
        restored,
        steps: 1,
        detail: restored ? "field reset" : "could not reset the field",
        usage: [{ role: "recoverer", model: "m", inputTokens: 40, outputTokens: 4, latencyMs: 1 }],
      };
    },
    ...extra,
  });
  const model = fakeModel()
    .respondWithTools(typeCall("a", "c0"))
    .respondWithTools(typeCall("b", "c1"))
    .respondWithTools(typeCall("X", "c2"))
    .respondWithTools(typeCall("b", "c3"))
    .respond(new AIMessage("done"));
  const collector = new CustomEventCollector();
  const agent = createAgent({ model, tools: [desk.typeText], middleware: [mw] });
  await agent.invoke({ messages: [new HumanMessage("Type ab into the field.")] }, { callbacks: [collector] });
  server.verify();
  return { model, collector, after: model.calls[3].messages as BaseMessage[] };
}

describe("recoveryMiddleware and LangChain callbacks", () => {
  it("dispatches one retrace.recovery custom event per recovery to the run's callback handlers", async () => {
    const { collector, after } = await run(true);
    const events = collector.events.filter((e) => e.name === RECOVERY_EVENT);
    expect(events).toHaveLength(1);
    const r = events[0].data as RecoveryReport;
    expect(r).toMatchObject({
      attempt: 1,
      errorStep: 2,
      recoveryStep: 1,
      detectedAtStep: 3,
      restored: true,
      confidence: 0.95,
      steps: 1,
      contextCut: true,
      notice: "post-restoration.transition@2",
      unconfirmedRestoration: "disclose-and-keep",
      reason: "step 2 typed the wrong letter",
    });
    // The triggering detector call's tokens (reported by the scripted server) plus the restore routine's 40/4.
    expect(r.inputTokens).toBeGreaterThan(40);
    expect(r.outputTokens).toBeGreaterThan(4);
    expect(r.endedAt).toBeGreaterThanOrEqual(r.startedAt);
    expect(kinds(after)).toEqual(["human", "ai", "tool", "human"]);
    expect(after.at(-1)!.content).toBe("Note: the environment has been recovered to the state it had at step 1.");
  });

  it("after an unconfirmed restoration keeps the history and tells the truth by default", async () => {
    const { collector, after } = await run(false);
    expect(kinds(after)).toEqual(["human", "ai", "tool", "ai", "tool", "ai", "tool", "human"]);
    expect(after.at(-1)!.content).toMatch(
      /^Note: a check found that step 2 went off track\. An attempt to return the environment to the state it had at step 1 could not be confirmed, so your history was kept as it is\./,
    );
    expect(collector.events.find((e) => e.name === RECOVERY_EVENT)!.data).toMatchObject({
      restored: false,
      contextCut: false,
      notice: "post-restoration.unconfirmed-kept@1",
    });
  });

  it("after an unconfirmed restoration cuts and says 'recovered' with the paper's claim-recovered", async () => {
    const { after } = await run(false, { unconfirmedRestoration: "claim-recovered" });
    expect(kinds(after)).toEqual(["human", "ai", "tool", "human"]);
    expect(after.at(-1)!.content).toBe("Note: the environment has been recovered to the state it had at step 1.");
  });
});
