/**
 * A consumer episode (consumer-episodes.ts runs it): the AI SDK's generateText loop with
 * Anthropic's computer tool through generateTextWithRecovery, its model a scripted Messages
 * server, on the scenario of consumer-scenario.ts.
 */
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { startScriptedOpenAIServer, type ScriptStep } from "retrace-cua/testing";
import { generateTextWithRecovery, retraceComputerTool } from "retrace-cua/ai-sdk";
import { check, scenario, servers, toAnthropicInput } from "./consumer-scenario.js";

/** The AI SDK's generateText loop with Anthropic's computer tool through generateTextWithRecovery. */
export async function run(): Promise<void> {
  const s = await scenario();
  const server = await startScriptedOpenAIServer({
    script: [
      ...s.sdkForward.map((a, i): ScriptStep => ({
        endpoint: "messages",
        content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
      })),
      { endpoint: "messages", text: "Renamed draft.txt to final.txt." },
    ],
  });
  servers.push(server);
  const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
  const computer = retraceComputerTool({ env: s.env, blobs: s.blobs });
  const result = await generateTextWithRecovery(
    {
      model: anthropic("claude-sonnet-4-5"),
      tools: { computer },
      prompt: s.task.instruction,
      stopWhen: stepCountIs(30),
      maxRetries: 0,
    },
    { env: s.env, blobs: s.blobs, task: s.task, detector: s.detector, recoverer: s.recoverer, recoveryBudget: 4 },
  );
  check("ai-sdk", result, s.E, s.R);
  // The tool result carried the screenshot, in whichever shape this ai major reads.
  if (!server.requests[1]?.images.length)
    throw new Error("ai-sdk: the computer tool's result reached the model without its screenshot");
}
