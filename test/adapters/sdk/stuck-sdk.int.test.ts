/**
 * Option `onStuck: "stop"` on the SDK paths (packages/core/src/runtime/step-recovery.ts sets `stuck`,
 * each wrapper ends its run): with the recovery attempts spent (here: none allowed), an agent that
 * sends the same no-effect key 3 times is stopped, stop reason "stuck". AI SDK: the model is asked
 * once more without tools and its answer ends the call; Agents SDK: the input filter ends the run.
 * "continue" (the paper's, the default) lets it go on.
 */
import { afterAll, describe, expect, it } from "vitest";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import { generateTextWithRecovery, retraceComputerTool } from "../../../packages/ai-sdk/src/index.ts";
import { retraceComputer, runWithRecovery } from "../../../packages/openai-agents/src/index.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { createSimDesk, getSimDeskTask } from "../../../packages/simdesk/src/simdesk.ts";
import type { ErrorDetector } from "../../../packages/core/src/detector.ts";
import { tempBlobs } from "../llm/fixtures.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const quiet: ErrorDetector = {
  name: "quiet",
  simulated: true,
  async detect() {
    return { isError: false, errorStep: null, reason: "fine", confidence: 0.9 };
  },
};

async function desk(detection: "sequential" | "overlapped") {
  const blobs = tempBlobs();
  const task = getSimDeskTask("files-rename-draft");
  const env = createSimDesk({ blobs });
  await env.reset(task);
  const options = {
    env,
    blobs,
    detector: quiet,
    restore: async () => ({ restored: true }) as never,
    maxRecoveryIterations: 0,
    task,
    detection,
  };
  return { blobs, task, env, options };
}

const REPEATS = 6;

describe("onStuck on the SDK paths", () => {
  // overlapped: the verdict on a step is computed while the model produces the next one, whose action is held; once
  // the agent is stuck that action is dropped, so the run stops after the same 3 steps
  for (const [onStuck, detection] of [
    ["stop", "sequential"],
    ["stop", "overlapped"],
    ["continue", "sequential"],
  ] as const) {
    it(`AI SDK generateText: the same no-effect key ${REPEATS} times, onStuck ${onStuck}, ${detection}`, async () => {
      const d = await desk(detection);
      const key = { type: "tool_use", name: "computer", input: { action: "key", text: "F13" } };
      const server = await startScriptedOpenAIServer({
        script: [
          // stopped: the model's next answer is text (it is offered no tool); overlapped, one more key comes first
          ...Array.from({ length: onStuck === "stop" ? (detection === "overlapped" ? 4 : 3) : REPEATS }, (_, i) => ({
            endpoint: "messages" as const,
            content: [{ ...key, id: `toolu_${i}` }],
          })),
          { endpoint: "messages", text: "I cannot get further." },
        ],
      });
      servers.push(server);
      const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
      const result = await generateTextWithRecovery(
        {
          model: anthropic("claude-sonnet-4-5"),
          tools: { computer: retraceComputerTool({ env: d.env, blobs: d.blobs }) },
          prompt: d.task.instruction,
          stopWhen: stepCountIs(20),
          maxRetries: 0,
        },
        { ...d.options, onStuck },
      );
      expect(result.stopReason).toBe(onStuck === "stop" ? "stuck" : "done");
      expect(result.accounting.forwardSteps).toBe(onStuck === "stop" ? 3 : REPEATS);
      expect(result.accounting.discardedProposals).toBe(detection === "overlapped" ? 1 : 0);
      // stopped: the last request offered the model no tool, so a real model can only answer
      const last = server.requests.at(-1)!.body;
      if (onStuck === "stop") expect(last.tools ?? []).toEqual([]);
      else expect(last.tools?.length).toBeGreaterThan(0);
    });

    it(`OpenAI Agents SDK run: the same no-effect key ${REPEATS} times, onStuck ${onStuck}, ${detection}`, async () => {
      const d = await desk(detection);
      const server = await startScriptedOpenAIServer({
        script: [
          ...Array.from({ length: REPEATS }, (_, i) => ({
            endpoint: "responses" as const,
            output: [
              {
                type: "computer_call",
                id: `cu_${i}`,
                call_id: `call_${i}`,
                action: { type: "keypress", keys: ["F13"] },
                pending_safety_checks: [],
                status: "completed",
              },
            ],
          })),
          { endpoint: "responses", text: "I cannot get further." },
        ],
      });
      servers.push(server);
      const agent = new Agent({
        name: "desk agent",
        instructions: "Operate the computer.",
        model: new OpenAIResponsesModel(
          new OpenAI({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }),
          "computer-use-preview",
        ),
        tools: [computerTool({ computer: retraceComputer({ env: d.env, blobs: d.blobs }) })],
        modelSettings: { truncation: "auto" },
      });
      const result = await runWithRecovery(agent, d.task.instruction, {
        ...d.options,
        onStuck,
        runOptions: { maxTurns: 20 },
      });
      expect(result.stopReason).toBe(onStuck === "stop" ? "stuck" : "done");
      expect(result.accounting.forwardSteps).toBe(onStuck === "stop" ? 3 : REPEATS);
      expect(result.accounting.discardedProposals).toBe(detection === "overlapped" ? 1 : 0);
    });
  }
});
