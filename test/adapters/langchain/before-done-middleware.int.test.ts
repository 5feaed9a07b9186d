/**
 * The production preset's `before-done` gate on the LangChain middleware (issue 40): a `createAgent`
 * CUA that gives its final answer after one step of a longer task (a premature final answer) is
 * judged on that last step again, with `ending: true`, as the graph judges a step before DONE and
 * the SDK paths do (test/adapters/sdk/before-done-sdk.int.test.ts). No other gate opens on the step,
 * so without the second look the judge is never asked.
 * - with the stand-in (retrace's sampling model server) as judge behind a recording proxy: the final
 *   answer gets one judge call;
 * - with a scripted judge that flags the step: the answer is discarded, step R is restored, the
 *   history is cut to R with the notice, and the agent goes back to its model instead of ending.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, fakeModel, tool } from "langchain";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { recoveryMiddleware, type RecoveryTrack } from "../../../packages/langchain/src/recovery-middleware.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { startStandInServer, type StandInServer } from "../../../packages/testing/src/stand-in/server.ts";
import type { ScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { ActionSchema, type Action } from "../../../packages/core/src/action.ts";
import type { Detection } from "../../../packages/core/src/detector.ts";
import { startRecordingProxy, type RecordingProxy } from "../../helpers/recording-proxy.ts";
import { scriptedModel, tempBlobs } from "../llm/fixtures.ts";

let standIn: StandInServer;
let proxy: RecordingProxy;
const servers: ScriptedOpenAIServer[] = [];
beforeAll(async () => {
  standIn = await startStandInServer({ seed: 0 });
  proxy = await startRecordingProxy(standIn.origin);
});
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await proxy?.close();
  await standIn?.close();
});

/**
 * SimDesk on a multi-step task, a `computer` tool over it, and a restore routine that counts its calls (SimDesk
 * restores a recorded state exactly).
 */
async function premature() {
  const blobs = tempBlobs();
  const task = getSimDeskTask("files-rename-draft");
  expect(task.plan.length).toBeGreaterThan(1); // one step is premature
  const env = createSimDesk({ blobs });
  await env.reset(task);
  const start = await env.snapshot();
  const restores: number[] = [];
  const computer = tool(
    async ({ action }: { action: Action }) => {
      await env.step(action);
      return `executed ${action.type}`;
    },
    { name: "computer", description: "Execute one desktop action", schema: z.object({ action: ActionSchema }) },
  );
  const detections: Array<{ step: number; detection: Detection }> = [];
  const base = {
    observe: () => env.observe(),
    blobs,
    task,
    toActions: (c: { args: Record<string, unknown> }) => [ActionSchema.parse(c.args.action)],
    restore: async (r: { step: number }) => {
      restores.push(r.step);
      await env.restore(start);
      return { restored: true, steps: 1 };
    },
    instanceKey: `${task.id}/0`,
  };
  const call = (a: Action, id: string) => [{ name: "computer", args: { action: a }, id }];
  return { blobs, task, env, computer, detections, restores, base, call };
}

describe("a premature final answer on the LangChain middleware, production preset", () => {
  it("the final answer after one step gets a judge call (before-done), the stand-in judging", async () => {
    const p = await premature();
    const judge = createOpenAIChatModel({
      model: "retrace-stand-in",
      blobs: p.blobs,
      baseURL: proxy.url,
      apiKey: "test-key",
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    const mw = recoveryMiddleware({ ...p.base, detector: { preset: "production", model: judge } });
    mw.events.on("detection", (e) => void p.detections.push({ step: e.step, detection: e.detection }));
    const from = proxy.bodies.length;
    // a third answer in case the stand-in's verdict flags the step (the agent is then asked again)
    const model = fakeModel()
      .respondWithTools(p.call(p.task.plan[0], "call-0"))
      .respond(new AIMessage("Renamed."))
      .respond(new AIMessage("Renamed."));
    const agent = createAgent({ model, tools: [p.computer], middleware: [mw] });
    const result = await agent.invoke({ messages: [new HumanMessage(p.task.instruction)] }, { recursionLimit: 20 });

    const judgeCalls = proxy.bodies
      .slice(from)
      .filter((b) => JSON.stringify(b.messages[0]).includes("off_track")).length;
    expect(p.detections.map((d) => d.step)).toEqual([1, 1]);
    expect(p.detections[0].detection.cascade).toMatchObject({ asked: false, gates: [] });
    expect(p.detections[1].detection.cascade?.asked).toBe(true);
    expect(p.detections[1].detection.cascade?.gates).toContain("before-done");
    expect(judgeCalls).toBe(1);
    const track = (result as unknown as { retrace: RecoveryTrack }).retrace;
    expect(track.accounting.detectorCalls).toBe(2); // both looks are counted, as on the graph
    expect(track.accounting.models.detector?.calls).toBe(1);
    expect(track.letPass).toBeUndefined();
  });

  it("a detection at the final answer discards it, cuts the history to R and asks the model again", async () => {
    const p = await premature();
    const det = await scriptedModel(p.blobs, [
      {
        text: '{"off_track": true, "error_step": 0, "reason": "the task is not done: nothing was renamed", "confidence": 0.9}',
      },
    ]);
    servers.push(det.server);
    const mw = recoveryMiddleware({ ...p.base, detector: { preset: "production", model: det.model } });
    mw.events.on("detection", (e) => void p.detections.push({ step: e.step, detection: e.detection }));
    const truncations: Array<[number, number]> = [];
    mw.events.on("truncate", (e) => void truncations.push([e.from, e.to]));
    const model = fakeModel()
      .respondWithTools(p.call(p.task.plan[0], "call-0"))
      .respond(new AIMessage("Renamed."))
      .respond(new AIMessage("I could not rename it."));
    const agent = createAgent({ model, tools: [p.computer], middleware: [mw] });
    const result = await agent.invoke({ messages: [new HumanMessage(p.task.instruction)] }, { recursionLimit: 20 });

    expect(p.detections.at(-1)?.detection.cascade?.gates).toContain("before-done");
    expect(p.restores).toEqual([0]); // E = 0, R = 0
    expect(truncations).toEqual([[1, 0]]);
    // the premature answer was dropped; the model was asked again on the cut history (task + notice)
    expect(model.calls).toHaveLength(3);
    const again = model.calls[2].messages as BaseMessage[];
    expect(again.map((m) => m.getType())).toEqual(["human", "human"]);
    expect(again.some((m) => m.content === "Renamed.")).toBe(false);
    const messages = result.messages as BaseMessage[];
    expect(messages.at(-1)?.content).toBe("I could not rename it.");
    expect(messages.some((m) => m.content === "Renamed.")).toBe(false);
    const track = (result as unknown as { retrace: RecoveryTrack }).retrace;
    expect(track.accounting).toMatchObject({ recoveryAttempts: 1, discardedProposals: 1 });
    det.server.verify();
  });
});
