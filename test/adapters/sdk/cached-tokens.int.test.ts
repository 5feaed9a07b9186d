/**
 * `finish()` results of an SDK integration (the OpenAI Agents SDK's real run() loop) show the
 * uncached, cached and billed-equivalent tokens per role of retrace's own model calls: the judge's
 * server (vLLM-style, on 127.0.0.1) reports `prompt_tokens_details.cached_tokens`, the recovery
 * sub-agent's server reports none.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import type { Action } from "../../../packages/core/src/action.ts";
import { retraceComputer, runWithRecovery } from "retrace-cua/openai-agents";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";
import { stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import {
  generateTextWithRecovery,
  retraceComputerTool,
} from "../../../packages/ai-sdk/src/generate-text-with-recovery.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

const responsesCall = (a: Action, i: number) => ({
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
});

describe("finish() results (OpenAI Agents SDK)", () => {
  it("split the judge's and the agent's own tokens into uncached, cached and billed; a role whose server reports no cache has cached 0 and billed = tokens", async () => {
    const s = await wrongItemScenario(servers, undefined, {
      detector: { inputTokens: 4000, outputTokens: 30, cachedInputTokens: 3072, style: "vllm" },
      recoverer: { inputTokens: 800, outputTokens: 12 },
    });
    // the agent's own Responses calls: 2,000 input tokens, 1,280 of them cached (input_tokens_details.cached_tokens)
    const usage = { inputTokens: 2000, outputTokens: 15, cachedInputTokens: 1280 };
    const agentServer = await startScriptedOpenAIServer({
      script: [
        ...s.forward.map(responsesCall),
        { endpoint: "responses" as const, text: "Renamed draft.txt to final.txt." },
      ].map((step) => ({ ...step, usage })),
    });
    servers.push(agentServer);
    const agent = new Agent({
      name: "desk agent",
      instructions: "Operate the computer to complete the task.",
      model: new OpenAIResponsesModel(
        new OpenAI({ baseURL: agentServer.url, apiKey: "test-key", maxRetries: 0 }),
        "computer-use-preview",
      ),
      tools: [computerTool({ computer: retraceComputer({ env: s.env, blobs: s.blobs }) })],
      modelSettings: { truncation: "auto" },
    });
    const result = await runWithRecovery(agent, s.task.instruction, {
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      recoveryBudget: 4,
      task: s.task,
      instanceKey: `${s.task.id}/0`,
      detection: "sequential",
      runOptions: { maxTurns: 30 },
    });
    expect(result.success).toBe(true);
    const n = result.accounting.models.detector!.calls;
    expect(n).toBe(s.det.server.calls);
    expect(n).toBeGreaterThanOrEqual(3);
    // per judge call: 4,000 prompt tokens, 3,072 cached, billed 928 + 0.5 x 3,072 + 30 = 2,494
    expect(result.accounting.models.detector).toMatchObject({
      inputTokens: 4000 * n,
      cachedInputTokens: 3072 * n,
      billedTokens: 2494 * n,
    });
    expect(result.tokens.promptCache).toBe(true);
    expect(result.tokens.roles.detector).toEqual({
      inputTokens: 4000 * n,
      uncachedInputTokens: 928 * n,
      cachedInputTokens: 3072 * n,
      cacheWriteInputTokens: 0,
      outputTokens: 30 * n,
      billedTokens: 2494 * n,
    });
    expect(result.tokens.roles.recoverer).toEqual({
      inputTokens: 1600,
      uncachedInputTokens: 1600,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      outputTokens: 24,
      billedTokens: 1624,
    });
    // the SDK's own policy calls, as its run result reports them: billed 720 + 0.5 x 1,280 + 15 = 1,375 per call
    const m = agentServer.calls;
    expect(m).toBe(s.forward.length + 1);
    expect(result.tokens.roles.policy).toEqual({
      inputTokens: 2000 * m,
      uncachedInputTokens: 720 * m,
      cachedInputTokens: 1280 * m,
      cacheWriteInputTokens: 0,
      outputTokens: 15 * m,
      billedTokens: 1375 * m,
    });
    expect(result.accounting.models.policy).toBeUndefined(); // accounting stays retrace's own calls
    expect(result.tokens.total.billedTokens).toBe(
      2494 * n +
        1624 +
        1375 * m +
        (result.tokens.roles.selector?.billedTokens ?? 0) +
        (result.tokens.roles.summarizer?.billedTokens ?? 0),
    );
  }, 60_000);
});

describe("finish() results (Vercel AI SDK, Anthropic provider)", () => {
  it("count the agent's cache reads and writes (Anthropic: on top of input_tokens) at Anthropic's ratios", async () => {
    const s = await wrongItemScenario(servers);
    // Anthropic's convention: input_tokens 500 after the breakpoint, 2,000 read from the cache, 100 written
    const usage = { inputTokens: 500, outputTokens: 10, cachedInputTokens: 2000, cacheWriteInputTokens: 100 };
    const forward = s.forward.map((a, i) => ({
      endpoint: "messages" as const,
      content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
      usage,
    }));
    const server = await startScriptedOpenAIServer({
      script: [...forward, { endpoint: "messages", text: "Renamed draft.txt to final.txt.", usage }],
    });
    servers.push(server);
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const result = await generateTextWithRecovery(
      {
        model: anthropic("claude-sonnet-4-5"),
        tools: { computer: retraceComputerTool({ env: s.env, blobs: s.blobs }) },
        prompt: s.task.instruction,
        stopWhen: stepCountIs(30),
        maxRetries: 0,
      },
      {
        env: s.env,
        blobs: s.blobs,
        detector: s.detector,
        recoverer: s.recoverer,
        recoveryBudget: 4,
        task: s.task,
        instanceKey: `${s.task.id}/0`,
        detection: "sequential",
      },
    );
    expect(result.success).toBe(true);
    const m = server.calls;
    // per call: 500 + 2,000 + 100 = 2,600 input; billed 500 + 0.1 x 2,000 + 1.25 x 100 + 10 = 835
    expect(result.tokens.roles.policy).toEqual({
      inputTokens: 2600 * m,
      uncachedInputTokens: 500 * m,
      cachedInputTokens: 2000 * m,
      cacheWriteInputTokens: 100 * m,
      outputTokens: 10 * m,
      billedTokens: 835 * m,
    });
    expect(result.tokens.promptCache).toBe(true);
  }, 60_000);
});
