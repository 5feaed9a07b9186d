import { afterEach, describe, expect, it } from "vitest";
import { createAgent, fakeModel, tool } from "langchain";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import sharp from "sharp";
import { recoveryMiddleware, type RecoveryTrack } from "../../../packages/langchain/src/recovery-middleware.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createLlmStepSelector } from "../../../packages/models/src/llm/selector.ts";
import type { ScriptedOpenAIServer, ScriptStep } from "../../../packages/testing/src/scripted-openai-server.ts";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";

/**
 * A tiny tool-level desktop: a text field. `type_text` appends, the screenshot is a PNG whose
 * colour is derived from the text, and every observed state is remembered so `restore` can put
 * the field back exactly as it was at step R.
 */
function textDesk(blobs: BlobStore) {
  let text = "";
  const typed: string[] = [];
  const stateOf = new Map<string, string>();
  const observe = async (): Promise<Observation> => {
    const h = [...text].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 16_777_216, 7);
    const png = await sharp({
      create: { width: 32, height: 24, channels: 3, background: { r: h & 255, g: (h >> 8) & 255, b: (h >> 16) & 255 } },
    })
      .png()
      .toBuffer();
    const obs = { screenshot: await blobs.put(png), width: 32, height: 24, text };
    stateOf.set(obs.screenshot, text);
    return obs;
  };
  const typeText = tool(
    async ({ text: t }: { text: string }) => {
      text += t;
      typed.push(t);
      return `typed ${JSON.stringify(t)}; the field now reads ${JSON.stringify(text)}`;
    },
    { name: "type_text", description: "Type text into the field", schema: z.object({ text: z.string() }) },
  );
  return {
    observe,
    typeText,
    typed,
    get text() {
      return text;
    },
    restoreTo(obs: Observation) {
      text = stateOf.get(obs.screenshot)!;
    },
  };
}

const onTrack = (confidence = 0.9): ScriptStep => ({
  text: JSON.stringify({ off_track: false, error_step: null, reason: "fine", confidence }),
});
const offTrack = (step: number): ScriptStep => ({
  text: JSON.stringify({
    off_track: true,
    error_step: step,
    reason: `step ${step} typed the wrong letter`,
    confidence: 0.95,
  }),
});
const typeCall = (text: string, id: string) => [{ name: "type_text", args: { text }, id }];

let server: ScriptedOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function kinds(messages: BaseMessage[]): string[] {
  return messages.map((m) => m.getType());
}

describe("recoveryMiddleware with a real createAgent", () => {
  it("detects after each step, restores to R, truncates history + transition string, and respects the freeze window", async () => {
    const blobs = tempBlobs();
    const desk = textDesk(blobs);
    // Detector calls: after step 0, after step 1, after step 2 (error at 2), then steps 1' and 2' are frozen (F=2),
    // then after step 3'.
    const s = await scriptedModel(blobs, [onTrack(), onTrack(), offTrack(2), onTrack()]);
    server = s.server;
    const restores: number[] = [];
    const mw = recoveryMiddleware({
      detector: createLlmErrorDetector({ model: s.model, historyImages: 1 }),
      observe: desk.observe,
      blobs,
      toActions: (c) => [{ type: "TYPING", text: String(c.args.text) }],
      freezeWindow: 2,
      maxRecoveryIterations: 2,
      recoveryStep: "error-minus-1",
      restoration: "snapshot",
      restore: async (req) => {
        restores.push(req.step);
        desk.restoreTo(req.target.observation);
        return { restored: true, steps: 1, detail: "field text reset" };
      },
    });
    const seen: string[] = [];
    for (const name of ["detection", "freeze", "selection", "recovery-start", "recovery-end", "truncate"] as const) {
      mw.events.on(name, (e: unknown) => {
        const { step, to, gate } = e as { step?: number; to?: number; gate?: string };
        seen.push(`${gate ?? name}@${step ?? to ?? ""}`);
      });
    }
    const model = fakeModel()
      .respondWithTools(typeCall("a", "c0"))
      .respondWithTools(typeCall("b", "c1"))
      .respondWithTools(typeCall("X", "c2"))
      .respondWithTools(typeCall("b", "c3")) // after recovery: step 1 again
      .respondWithTools(typeCall("c", "c4"))
      .respondWithTools(typeCall("d", "c5"))
      .respond(new AIMessage("The field reads abcd."));
    const agent = createAgent({ model, tools: [desk.typeText], middleware: [mw], systemPrompt: "You type letters." });
    const result = await agent.invoke({ messages: [new HumanMessage("Type abcd into the field.")] });

    expect(desk.text).toBe("abcd");
    expect(restores).toEqual([1]); // E = 2, R = E-1
    expect(model.callCount).toBe(7);
    // The call right after the recovery sees exactly: system, task, step 0 (AI + tool result), transition string.
    const after = model.calls[3].messages as BaseMessage[];
    expect(kinds(after)).toEqual(["system", "human", "ai", "tool", "human"]);
    expect(SystemMessage.isInstance(after[0])).toBe(true);
    expect(after[1].content).toBe("Type abcd into the field.");
    expect((after[2] as AIMessage).tool_calls?.[0].args).toEqual({ text: "a" });
    expect(ToolMessage.isInstance(after[3]) && after[3].content).toBe('typed "a"; the field now reads "a"');
    expect(after[4].content).toBe("Note: the environment has been recovered to the state it had at step 1.");
    // The call before the recovery saw the full history.
    expect(kinds(model.calls[2].messages as BaseMessage[])).toEqual(["system", "human", "ai", "tool", "ai", "tool"]);

    // Detector: exactly 4 HTTP calls; none for the two frozen steps.
    expect(server.calls).toBe(4);
    server.verify();
    expect(seen).toEqual([
      "detection@1",
      "detection@2",
      "detection@3",
      "selection@",
      "recovery-start@",
      "recovery-end@",
      "truncate@1",
      "frozen@2",
      "frozen@3",
      "detection@4",
    ]);
    // The detector blamed step 2 from a history of 3 entries; its request carried that history.
    expect(server.requests[2].body.messages[1].content[0].text).toContain("numbered 0 to 2");

    const track = (result as unknown as { retrace: RecoveryTrack }).retrace;
    expect(track.history.map((e) => (e.actions[0] as { text: string }).text)).toEqual(["a", "b", "c", "d"]);
    expect(track.recoveryAttempts).toBe(1);
    expect(track.accounting).toMatchObject({
      forwardSteps: 6,
      recoveryAttempts: 1,
      detectorCalls: 4,
      detectorFailures: 0,
      frozenSkipped: 2,
      recoverySteps: 1,
    });
    expect(track.accounting.models.detector).toMatchObject({ calls: 4 });
    expect(track.accounting.models.detector!.inputTokens).toBeGreaterThan(0);
    expect(track.prompts).toEqual(["error-detector.system@2+error-detector.user@1", "post-restoration.transition@2"]);
    const final = result.messages as BaseMessage[];
    expect(kinds(final)).toEqual(["human", "ai", "tool", "human", "ai", "tool", "ai", "tool", "ai", "tool", "ai"]);
  });

  it.each([0, 1, 3])("with freezeWindow %i the detector skips exactly that many steps after a recovery", async (F) => {
    const blobs = tempBlobs();
    const desk = textDesk(blobs);
    const s = await scriptedModel(blobs, [offTrack(0), ...Array.from({ length: 3 - F }, () => onTrack())]);
    server = s.server;
    const mw = recoveryMiddleware({
      detector: createLlmErrorDetector({ model: s.model }),
      observe: desk.observe,
      blobs,
      freezeWindow: F,
      maxRecoveryIterations: 3,
      restore: async (req) => {
        desk.restoreTo(req.target.observation);
        return { restored: true };
      },
    });
    const model = fakeModel()
      .respondWithTools(typeCall("X", "c0"))
      .respondWithTools(typeCall("a", "c1"))
      .respondWithTools(typeCall("b", "c2"))
      .respondWithTools(typeCall("c", "c3"))
      .respond(new AIMessage("done"));
    const result = await createAgent({ model, tools: [desk.typeText], middleware: [mw] }).invoke({
      messages: [new HumanMessage("Type abc.")],
    });
    expect(desk.text).toBe("abc");
    expect(server.calls).toBe(1 + 3 - F);
    expect((result as unknown as { retrace: RecoveryTrack }).retrace.accounting.frozenSkipped).toBe(F);
    server.verify();
  });

  it("stops consulting the detector once maxRecoveryIterations recoveries are spent", async () => {
    const blobs = tempBlobs();
    const desk = textDesk(blobs);
    const s = await scriptedModel(blobs, [offTrack(0)]);
    server = s.server;
    const mw = recoveryMiddleware({
      detector: createLlmErrorDetector({ model: s.model }),
      observe: desk.observe,
      blobs,
      freezeWindow: 0,
      maxRecoveryIterations: 1,
      recoveryStep: "zero",
      restore: async (req) => {
        desk.restoreTo(req.target.observation);
        return { restored: true };
      },
    });
    const gates: string[] = [];
    mw.events.on("freeze", (e) => void gates.push(e.gate));
    const model = fakeModel()
      .respondWithTools(typeCall("X", "c0"))
      .respondWithTools(typeCall("Y", "c1"))
      .respondWithTools(typeCall("Z", "c2"))
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [desk.typeText], middleware: [mw] });
    await agent.invoke({ messages: [new HumanMessage("Type abc.")] });
    // R = 0: the call after the recovery sees only the task and the transition string.
    expect(kinds(model.calls[1].messages as BaseMessage[])).toEqual(["human", "human"]);
    expect(desk.text).toBe("YZ");
    expect(server.calls).toBe(1);
    expect(gates).toEqual(["exhausted", "exhausted"]);
    server.verify();
  });

  it("uses the LLM selector over HTTP for recoveryStep 'llm' and keeps the history when restore throws", async () => {
    const blobs = tempBlobs();
    const desk = textDesk(blobs);
    const s = await scriptedModel(blobs, [
      onTrack(),
      offTrack(1),
      { text: '{"recovery_step": 0, "reason": "start over"}' },
    ]);
    server = s.server;
    const mw = recoveryMiddleware({
      detector: createLlmErrorDetector({ model: s.model }),
      selector: createLlmStepSelector({ model: s.model }),
      recoveryStep: "llm",
      observe: desk.observe,
      blobs,
      restore: async () => {
        throw new Error("snapshot store unavailable");
      },
    });
    const ends: { restored: boolean; reason: string }[] = [];
    mw.events.on("recovery-end", (e) => void ends.push({ restored: e.restored, reason: e.reason }));
    const selections: number[] = [];
    mw.events.on("selection", (e) => void selections.push(e.recoveryStep));
    const model = fakeModel()
      .respondWithTools(typeCall("a", "c0"))
      .respondWithTools(typeCall("X", "c1"))
      .respondWithTools(typeCall("b", "c2"))
      .respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [desk.typeText], middleware: [mw] });
    await agent.invoke({ messages: [new HumanMessage("Type ab.")] });
    expect(selections).toEqual([0]);
    // The one attempt function names the routine that threw (packages/core/src/runtime/attempt.ts).
    expect(ends).toEqual([
      {
        restored: false,
        reason: 'the restore routine (recoveryMiddleware option "restore") threw: Error: snapshot store unavailable',
      },
    ]);
    // Nothing was truncated: the next call saw the whole history.
    expect(kinds(model.calls[2].messages as BaseMessage[])).toEqual(["human", "ai", "tool", "ai", "tool"]);
    expect(server.requests[2].body.messages[0].content).toContain("first wrong action was judged to be at step 1");
    server.verify();
  });

  it("rejects invalid options with a ConfigError naming the field", () => {
    const blobs = tempBlobs();
    const desk = textDesk(blobs);
    const base = {
      detector: { name: "d", detect: async () => ({ isError: false, errorStep: null, reason: "", confidence: 0 }) },
      observe: desk.observe,
      blobs,
      restore: async () => ({ restored: true }),
    };
    expect(() => recoveryMiddleware({ ...base, freezeWindow: -1 })).toThrow(ConfigError);
    expect(() => recoveryMiddleware({ ...base, freezeWindow: -1 })).toThrow(/"freezeWindow"/);
    expect(() => recoveryMiddleware({ ...base, recoveryStep: "llm" })).toThrow(/"selector"/);
    expect(() => recoveryMiddleware({ ...base, restore: undefined as never })).toThrow(/"restore"/);
    expect(() => recoveryMiddleware({ ...base, maxRecoveryIteration: 2 } as never)).toThrow(/maxRecoveryIteration/);
  });
});
