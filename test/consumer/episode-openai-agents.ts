/**
 * A consumer episode (consumer-episodes.ts runs it): the OpenAI Agents SDK's own run() loop through
 * runWithRecovery, its model a scripted Responses server, on the scenario of consumer-scenario.ts.
 */
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import type { Action } from "retrace-cua";
import { startScriptedOpenAIServer, type ScriptStep } from "retrace-cua/testing";
import { retraceComputer, runWithRecovery } from "retrace-cua/openai-agents";
import { check, scenario, servers } from "./consumer-scenario.js";

setTracingDisabled(true);

function toOpenAIAction(a: Action): Record<string, unknown> {
  switch (a.type) {
    case "CLICK":
      return { type: "click", x: a.x, y: a.y, button: a.button ?? "left" };
    case "TYPING":
      return { type: "type", text: a.text };
    case "PRESS":
      return { type: "keypress", keys: [a.key] };
    case "HOTKEY":
      return { type: "keypress", keys: a.keys };
    default:
      throw new Error(`no OpenAI action for ${a.type}`);
  }
}

/** The OpenAI Agents SDK's own run() loop through runWithRecovery. */
export async function run(): Promise<void> {
  const s = await scenario();
  const server = await startScriptedOpenAIServer({
    script: [
      ...s.sdkForward.map((a, i): ScriptStep => ({
        endpoint: "responses",
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
      })),
      { endpoint: "responses", text: "Renamed draft.txt to final.txt." },
    ],
  });
  servers.push(server);
  const computer = retraceComputer({ env: s.env, blobs: s.blobs });
  const agent = new Agent({
    name: "desk agent",
    instructions: "Operate the computer to complete the task.",
    model: new OpenAIResponsesModel(
      new OpenAI({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }),
      "computer-use-preview",
    ),
    tools: [computerTool({ computer })],
    modelSettings: { truncation: "auto" },
  });
  const result = await runWithRecovery(agent, s.task.instruction, {
    env: s.env,
    blobs: s.blobs,
    task: s.task,
    detector: s.detector,
    recoverer: s.recoverer,
    recoveryBudget: 4,
    runOptions: { maxTurns: 30 },
  });
  check("openai-agents", result, s.E, s.R);
}
