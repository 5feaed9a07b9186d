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
 * line per episode; throws on any difference.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { BlobStore, withRecovery, type Action, type EpisodeResult } from "retrace-cua";
import { actionToPyautogui, createLlmErrorDetector, createLlmRecoveryPolicy, createOpenAIChatModel, createPyautoguiPolicy, createSimDesk, getSimDeskTask } from "retrace-cua/adapters";
import { startScriptedOpenAIServer, type ScriptStep, type ScriptedOpenAIServer } from "retrace-cua/testing";
import { retraceComputer, runWithRecovery } from "retrace-cua/openai-agents";
import { generateTextWithRecovery, retraceComputerTool } from "retrace-cua/ai-sdk";

setTracingDisabled(true);

const servers: ScriptedOpenAIServer[] = [];

async function chatModel(blobs: BlobStore, script: ScriptStep[]) {
  const server = await startScriptedOpenAIServer({ script });
  servers.push(server);
  return createOpenAIChatModel({ model: "scripted-vlm", blobs, baseURL: server.url, apiKey: "test-key", maxRetries: 0, timeoutMs: 20_000 });
}

/** The wrong-item scenario: desk, forward actions, LLM detector and recoverer over scripted servers. */
async function scenario() {
  const blobs = new BlobStore({ dir: mkdtempSync(join(tmpdir(), "retrace-consumer-")) });
  const task = getSimDeskTask("files-rename-draft");
  const mistake = task.mistakes.find((m) => m.kind === "wrong-item");
  if (!mistake) throw new Error("files-rename-draft has no wrong-item mistake");
  const E = mistake.atStep;
  const R = E - 1;
  const env = createSimDesk({ blobs });
  await env.reset(task);
  const twin = createSimDesk({ blobs });
  await twin.reset(task);
  const ids = [twin.currentStateId()];
  for (let i = 0; i < E; i++) ids.push((await twin.step(task.plan[i])).observation.stateId!);
  for (const a of mistake.actions) await twin.step(a);
  const fix = twin.nextRestorativeAction(ids[R]);
  if (!fix || fix === "unreachable" || fix.action.type !== "CLICK") throw new Error(`unexpected restorative step ${JSON.stringify(fix)}`);
  const detector = createLlmErrorDetector({
    historyImages: 1,
    model: await chatModel(blobs, [
      { text: '{"off_track": false, "error_step": null, "reason": "opened the file manager", "confidence": 0.9}' },
      { text: '{"off_track": false, "error_step": null, "reason": "in Documents", "confidence": 0.8}' },
      { text: `{"off_track": true, "error_step": ${E}, "reason": "selected notes.txt, the task is about draft.txt", "confidence": 0.92}` },
    ]),
  });
  const recoverer = createLlmRecoveryPolicy({
    historyImages: 1,
    model: await chatModel(blobs, [
      { text: `Back to Home.\n\`\`\`python\npyautogui.click(${fix.action.x}, ${fix.action.y})\n\`\`\`` },
      { text: "The screen now matches the target.\nRESTORED" },
    ]),
  });
  const forward: Action[] = [task.plan[0], task.plan[1], ...mistake.actions, ...task.plan.slice(R)].filter((a) => a.type !== "DONE");
  return { blobs, task, env, E, R, forward, detector, recoverer };
}

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

function toAnthropicInput(a: Action): Record<string, unknown> {
  switch (a.type) {
    case "CLICK":
      return { action: "left_click", coordinate: [a.x, a.y] };
    case "TYPING":
      return { action: "type", text: a.text };
    case "PRESS":
      return { action: "key", text: a.key === "f2" ? "F2" : a.key === "enter" ? "Return" : a.key };
    default:
      throw new Error(`no Anthropic action for ${a.type}`);
  }
}

/** The checks every episode passes: success, one recovery, the history cut from E+1 back to R. */
function check(name: string, result: Pick<EpisodeResult, "success" | "accounting" | "trajectory">, E: number, R: number): void {
  const cuts = result.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]);
  const line = { episode: name, success: result.success, stopReason: (result as { stopReason?: unknown }).stopReason, recoveryAttempts: result.accounting.recoveryAttempts, cuts, node: process.version };
  if (!result.success || result.accounting.recoveryAttempts !== 1 || JSON.stringify(cuts) !== JSON.stringify([[E + 1, R]]))
    throw new Error(`${name}: expected a successful episode with one recovery and the cut [[${E + 1}, ${R}]], got ${JSON.stringify(line)}`);
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Plain runtime: a pyautogui chat agent wrapped with withRecovery. */
async function plainRuntime(): Promise<void> {
  const s = await scenario();
  // The graph asks the detector on step E and the policy for step E+1 at once ("overlapped", docs/runtime.md); the recovery discards that proposal.
  const proposals = [...s.forward.slice(0, s.E + 1), s.forward[s.E + 1], ...s.forward.slice(s.E + 1)];
  const steps: ScriptStep[] = proposals.map((a) => ({ endpoint: "chat", text: `\`\`\`python\n${actionToPyautogui(a)}\n\`\`\`` }));
  const policy = createPyautoguiPolicy({ model: await chatModel(s.blobs, [...steps, { endpoint: "chat", text: "DONE" }]), historyImages: 1 });
  const agent = withRecovery(policy, { detector: s.detector, recoverer: s.recoverer, freezeWindow: 5, maxRecoveryIterations: 4 });
  check("withRecovery", await agent.run({ task: s.task, env: s.env, blobs: s.blobs }), s.E, s.R);
}

/** The OpenAI Agents SDK's own run() loop through runWithRecovery. */
async function openAIAgents(): Promise<void> {
  const s = await scenario();
  const server = await startScriptedOpenAIServer({
    script: [
      ...s.forward.map((a, i): ScriptStep => ({ endpoint: "responses", output: [{ type: "computer_call", id: `cu_${i}`, call_id: `call_${i}`, action: toOpenAIAction(a), pending_safety_checks: [], status: "completed" }] })),
      { endpoint: "responses", text: "Renamed draft.txt to final.txt." },
    ],
  });
  servers.push(server);
  const computer = retraceComputer({ env: s.env, blobs: s.blobs });
  const agent = new Agent({
    name: "desk agent",
    instructions: "Operate the computer to complete the task.",
    model: new OpenAIResponsesModel(new OpenAI({ baseURL: server.url, apiKey: "test-key", maxRetries: 0 }), "computer-use-preview"),
    tools: [computerTool({ computer })],
    modelSettings: { truncation: "auto" },
  });
  const result = await runWithRecovery(agent, s.task.instruction, { env: s.env, blobs: s.blobs, task: s.task, detector: s.detector, recoverer: s.recoverer, budget: 4, runOptions: { maxTurns: 30 } });
  check("openai-agents", result, s.E, s.R);
}

/** The AI SDK's generateText loop with Anthropic's computer tool through generateTextWithRecovery. */
async function aiSdk(): Promise<void> {
  const s = await scenario();
  const server = await startScriptedOpenAIServer({
    script: [
      ...s.forward.map((a, i): ScriptStep => ({ endpoint: "messages", content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }] })),
      { endpoint: "messages", text: "Renamed draft.txt to final.txt." },
    ],
  });
  servers.push(server);
  const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
  const computer = retraceComputerTool({ env: s.env, blobs: s.blobs });
  const result = await generateTextWithRecovery(
    { model: anthropic("claude-sonnet-4-5"), tools: { computer }, prompt: s.task.instruction, stopWhen: stepCountIs(30), maxRetries: 0 },
    { env: s.env, blobs: s.blobs, task: s.task, detector: s.detector, recoverer: s.recoverer, budget: 4 },
  );
  check("ai-sdk", result, s.E, s.R);
}

try {
  for (const episode of [plainRuntime, openAIAgents, aiSdk]) await episode();
  for (const server of servers) server.verify();
} finally {
  await Promise.all(servers.map((s) => s.close()));
}
