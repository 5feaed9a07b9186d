/**
 * CONSUMER EPISODES: the one file of the consumer test (test/consumer/consumer.int.test.ts) that
 * uses the SDK wrappers' public API. It is copied into a fresh project that installed the packed
 * tarball, compiled there by the project's own `tsc` (strict, NodeNext) and run with plain `node`
 * on Node 20, 22 and 24. It imports retrace only by its package name. When a wrapper's API changes
 * (runWithRecovery, generateTextWithRecovery, withRecovery, ...), update the episodes here.
 *
 * Each episode is SimDesk's files-rename-draft with its wrong-item mistake at step E=2: the agent's
 * model is a scripted server (retrace/testing), the LLM detector blames step E, the LLM recovery
 * sub-agent clicks back to the state of step R=1 and says RESTORED, and the agent finishes. The
 * episode must succeed with one recovery and the history cut from E+1 back to R. Prints one JSON
 * line per episode; throws on any difference, and on any warning the AI SDK emits about how the
 * wrappers call it (ai 7's deprecations, e.g. AISDK_DEP_TOOL_RESULT_IMAGE_DATA for a tool result
 * image in ai 6's shape).
 */
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { withRecovery, type Action } from "retrace-cua";
import { createPyautoguiPolicy } from "retrace-cua/models";
import { actionToPyautogui } from "retrace-cua/adapters";
import { startScriptedOpenAIServer, type ScriptStep } from "retrace-cua/testing";
import { retraceComputer, runWithRecovery } from "retrace-cua/openai-agents";
import { generateTextWithRecovery, retraceComputerTool } from "retrace-cua/ai-sdk";
import { chatModel, check, scenario, servers, toAnthropicInput } from "./consumer-scenario.js";

setTracingDisabled(true);

/** The AI SDK's warnings (ai 7 emits them as process warnings with an AISDK_ code). */
const sdkWarnings: string[] = [];
process.on("warning", (w: Error & { code?: string }) => {
  if (w.code?.startsWith("AISDK_")) sdkWarnings.push(`${w.code}: ${w.message}`);
});

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

/** Plain runtime: a pyautogui chat agent wrapped with withRecovery. */
async function plainRuntime(): Promise<void> {
  const s = await scenario();
  // The graph asks the detector on step E and the policy for step E+1 at once ("overlapped", docs/runtime.md); the
  // recovery discards that proposal.
  const proposals = [...s.forward.slice(0, s.E + 1), s.forward[s.E + 1], ...s.forward.slice(s.E + 1)];
  const steps: ScriptStep[] = proposals.map((a) => ({
    endpoint: "chat",
    text: `\`\`\`python\n${actionToPyautogui(a)}\n\`\`\``,
  }));
  const policy = createPyautoguiPolicy({
    model: await chatModel(s.blobs, [...steps, { endpoint: "chat", text: "DONE" }]),
    historyImages: 1,
  });
  const agent = withRecovery(policy, {
    detector: s.detector,
    recoverer: s.recoverer,
    freezeWindow: 5,
    maxRecoveryIterations: 4,
  });
  check("withRecovery", await agent.run({ task: s.task, env: s.env, blobs: s.blobs }), s.E, s.R);
}

/** The OpenAI Agents SDK's own run() loop through runWithRecovery. */
async function openAIAgents(): Promise<void> {
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

/** The AI SDK's generateText loop with Anthropic's computer tool through generateTextWithRecovery. */
async function aiSdk(): Promise<void> {
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

try {
  for (const episode of [plainRuntime, openAIAgents, aiSdk]) await episode();
  for (const server of servers) server.verify();
  // Process warnings are emitted on the next tick: let them arrive before checking.
  await new Promise((r) => setImmediate(r));
  if (sdkWarnings.length) throw new Error(`the AI SDK warned: ${sdkWarnings.join(" | ")}`);
} finally {
  await Promise.all(servers.map((s) => s.close()));
}
