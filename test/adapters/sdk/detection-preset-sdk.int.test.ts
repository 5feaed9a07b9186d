/**
 * The production detection preset inside the SDKs' own loops: the Vercel AI SDK's generateText
 * (Anthropic computer tool) and the OpenAI Agents SDK's run (Responses computer use), each with a
 * scripted forward model on SimDesk and the judge played by the
 * stand-in (retrace's sampling model server) behind a recording proxy. The judge is asked on
 * fewer steps than the agent takes, and every screenshot it gets is downscaled to 768 px.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import {
  generateTextWithRecovery,
  retraceComputerTool,
} from "../../../packages/ai-sdk/src/generate-text-with-recovery.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { startStandInServer, type StandInServer } from "../../../packages/testing/src/stand-in/server.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import { startRecordingProxy, type RecordingProxy } from "../../helpers/recording-proxy.ts";
import { tempBlobs } from "../llm/fixtures.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import { retraceComputer, runWithRecovery } from "../../../packages/openai-agents/src/index.ts";

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

const pngSize = (dataUrl: string) => {
  const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
};

describe("the production preset in the AI SDK's generateText loop", () => {
  it("asks the judge on fewer steps than the agent takes, with downscaled screenshots of the last-k window", async () => {
    const blobs = tempBlobs();
    const task = getSimDeskTask("files-rename-draft");
    const env = createSimDesk({ blobs });
    await env.reset(task);
    const { recoverer } = await wrongItemScenario(servers, blobs);
    const forward = task.plan.map((a, i) => ({
      endpoint: "messages" as const,
      content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
    }));
    const server = await startScriptedOpenAIServer({
      script: [...forward, { endpoint: "messages", text: "Renamed." }],
    });
    servers.push(server);
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const computer = retraceComputerTool({ env, blobs });
    const judge = createOpenAIChatModel({
      model: "retrace-stand-in",
      blobs,
      baseURL: proxy.url,
      apiKey: "test-key",
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    const from = proxy.bodies.length;

    const result = await generateTextWithRecovery(
      {
        model: anthropic("claude-sonnet-4-5"),
        tools: { computer },
        prompt: task.instruction,
        stopWhen: stepCountIs(40),
        maxRetries: 0,
      },
      {
        env,
        blobs,
        detector: { preset: "production", model: judge },
        recoverer,
        recoveryBudget: 4,
        task,
        instanceKey: `${task.id}/0`,
      },
    );
    const asked = proxy.bodies.slice(from).filter((b) => JSON.stringify(b.messages[0]).includes("off_track"));
    expect(computer.log.length).toBeGreaterThanOrEqual(task.plan.length);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(computer.log.length);
    expect(result.accounting.models.detector?.calls).toBe(asked.length);
    for (const b of asked) {
      const images = (b.messages[1].content as any[]).filter((p) => p.type === "image_url");
      expect(images.length).toBeGreaterThan(0);
      expect(images.length).toBeLessThanOrEqual(5);
      for (const p of images)
        expect(Math.max(pngSize(p.image_url.url).width, pngSize(p.image_url.url).height)).toBeLessThanOrEqual(768);
    }
  });

  it("and in the OpenAI Agents SDK's run: fewer judge calls than steps, downscaled screenshots", async () => {
    const blobs = tempBlobs();
    const task = getSimDeskTask("files-rename-draft");
    const env = createSimDesk({ blobs });
    await env.reset(task);
    const { recoverer } = await wrongItemScenario(servers, blobs);
    const forward = task.plan.map((a, i) => ({
      endpoint: "responses" as const,
      output: [
        {
          type: "computer_call",
          id: `cu_${i}`,
          call_id: `call_${i}`,
          action: toOpenAIAction(a),
          pending_safety_checks: [],
          status: "completed",
        },
      ],
    }));
    const server = await startScriptedOpenAIServer({
      script: [...forward, { endpoint: "responses", text: "Renamed." }],
    });
    servers.push(server);
    const computer = retraceComputer({ env, blobs });
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
    const judge = createOpenAIChatModel({
      model: "retrace-stand-in",
      blobs,
      baseURL: proxy.url,
      apiKey: "test-key",
      maxRetries: 0,
      timeoutMs: 10_000,
    });
    const from = proxy.bodies.length;
    const result = await runWithRecovery(agent, task.instruction, {
      env,
      blobs,
      detector: { preset: "production", model: judge, imageMaxSide: 512 },
      recoverer,
      recoveryBudget: 4,
      task,
      instanceKey: `${task.id}/0`,
      runOptions: { maxTurns: 40 },
    });
    const asked = proxy.bodies.slice(from).filter((b) => JSON.stringify(b.messages[0]).includes("off_track"));
    expect(result.accounting.forwardSteps).toBeGreaterThanOrEqual(task.plan.length);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.length).toBeLessThan(result.accounting.forwardSteps);
    const images = asked.flatMap((b) => (b.messages[1].content as any[]).filter((q) => q.type === "image_url"));
    expect(images.length).toBeGreaterThanOrEqual(asked.length);
    for (const p of images) expect(pngSize(p.image_url.url)).toEqual({ width: 512, height: 320 }); // imageMaxSide 512 of 1280x800
  });
});
