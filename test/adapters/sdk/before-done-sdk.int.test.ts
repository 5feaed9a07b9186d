/**
 * The production preset's `before-done` gate on the SDK paths (issue 40): an agent that gives its
 * final answer after one step of a longer task (a premature final answer) is judged on that last
 * step, with `ending: true`, as the graph judges a step before DONE. The forward model is scripted
 * (one computer call, then a final text); the judge is the stand-in (retrace's sampling model
 * server) behind a recording proxy. No other gate opens on the step, so without the second look
 * the judge is never asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import {
  generateTextWithRecovery,
  retraceComputerTool,
} from "../../../packages/ai-sdk/src/generate-text-with-recovery.ts";
import { retraceComputer, runWithRecovery } from "../../../packages/openai-agents/src/index.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { startStandInServer, type StandInServer } from "../../../packages/testing/src/stand-in/server.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { EpisodeEvents } from "../../../packages/core/src/runtime/events.ts";
import type { Detection } from "../../../packages/core/src/detector.ts";
import { startRecordingProxy, type RecordingProxy } from "../../helpers/recording-proxy.ts";
import { tempBlobs } from "../llm/fixtures.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);

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

/** Set up SimDesk on a multi-step task and record the detections the episode emits. */
async function premature() {
  const blobs = tempBlobs();
  const task = getSimDeskTask("files-rename-draft");
  expect(task.plan.length).toBeGreaterThan(1); // one step is premature
  const env = createSimDesk({ blobs });
  await env.reset(task);
  const { recoverer } = await wrongItemScenario(servers, blobs);
  const judge = createOpenAIChatModel({
    model: "retrace-stand-in",
    blobs,
    baseURL: proxy.url,
    apiKey: "test-key",
    maxRetries: 0,
    timeoutMs: 10_000,
  });
  const events = new EpisodeEvents();
  const detections: Array<{ step: number; detection: Detection }> = [];
  events.on("detection", (e) => void detections.push({ step: e.step, detection: e.detection }));
  const from = proxy.bodies.length;
  const judgeCalls = () =>
    proxy.bodies.slice(from).filter((b) => JSON.stringify(b.messages[0]).includes("off_track")).length;
  return {
    blobs,
    task,
    env,
    recoverer,
    judge,
    events,
    detections,
    judgeCalls,
    options: {
      env,
      blobs,
      detector: { preset: "production" as const, model: judge },
      recoverer,
      recoveryBudget: 4,
      task,
      instanceKey: `${task.id}/0`,
      events,
    },
  };
}

/**
 * The step's first detection let it pass unasked (no gate opened); the second opened `before-done` and asked the judge.
 */
function expectJudgedBeforeDone(
  detections: Array<{ step: number; detection: Detection }>,
  judgeCalls: number,
  detectorCalls: number | undefined,
) {
  expect(detections.map((d) => d.step)).toEqual([1, 1]);
  expect(detections[0].detection.cascade).toMatchObject({ asked: false, gates: [] });
  expect(detections[1].detection.cascade?.asked).toBe(true);
  expect(detections[1].detection.cascade?.gates).toContain("before-done");
  expect(judgeCalls).toBe(1);
  expect(detectorCalls).toBe(1);
}

describe("a premature final answer on the SDK paths, production preset", () => {
  it("AI SDK generateText: the final text after one step gets a judge call (before-done)", async () => {
    const p = await premature();
    const server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "messages",
          content: [{ type: "tool_use", id: "toolu_0", name: "computer", input: toAnthropicInput(p.task.plan[0]) }],
        },
        { endpoint: "messages", text: "Renamed." },
      ],
    });
    servers.push(server);
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const computer = retraceComputerTool({ env: p.env, blobs: p.blobs });
    const result = await generateTextWithRecovery(
      {
        model: anthropic("claude-sonnet-4-5"),
        tools: { computer },
        prompt: p.task.instruction,
        stopWhen: stepCountIs(10),
        maxRetries: 0,
      },
      p.options,
    );
    expect(result.accounting.forwardSteps).toBe(1);
    expectJudgedBeforeDone(p.detections, p.judgeCalls(), result.accounting.models.detector?.calls);
    expect(result.accounting.detectorCalls).toBe(2); // both looks are counted, as on the graph
  });

  it("OpenAI Agents SDK run: the final answer after one step gets a judge call (before-done)", async () => {
    const p = await premature();
    const server = await startScriptedOpenAIServer({
      script: [
        {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: "cu_0",
              call_id: "call_0",
              action: toOpenAIAction(p.task.plan[0]),
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        },
        { endpoint: "responses", text: "Renamed." },
      ],
    });
    servers.push(server);
    const computer = retraceComputer({ env: p.env, blobs: p.blobs });
    const agent = new Agent({
      name: "desk agent",
      instructions: "Operate the computer.",
      model: new OpenAIResponsesModel(
        new OpenAI({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }),
        "computer-use-preview",
      ),
      tools: [computerTool({ computer })],
      modelSettings: { truncation: "auto" },
    });
    const result = await runWithRecovery(agent, p.task.instruction, { ...p.options, runOptions: { maxTurns: 10 } });
    expect(result.accounting.forwardSteps).toBe(1);
    expectJudgedBeforeDone(p.detections, p.judgeCalls(), result.accounting.models.detector?.calls);
  });
});
