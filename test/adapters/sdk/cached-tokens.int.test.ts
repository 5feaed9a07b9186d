/**
 * `finish()` results of an SDK integration (the OpenAI Agents SDK's real run() loop) show the
 * uncached, cached and billed-equivalent tokens per role of retrace's own model calls: the judge's
 * server (vLLM-style, on 127.0.0.1) reports `prompt_tokens_details.cached_tokens`, the recovery
 * sub-agent's server reports none.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { Agent, OpenAIResponsesModel, computerTool, setTracingDisabled } from "@openai/agents";
import type { Action } from "../../../src/action.ts";
import { retraceComputer, runWithRecovery } from "retrace-cua/openai-agents";
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from "../../../adapters/testing/scripted-openai-server.ts";
import { toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

const responsesCall = (a: Action, i: number) => ({
  endpoint: "responses" as const,
  output: [{ type: "computer_call", id: `cu_${i}`, call_id: `call_${i}`, action: toOpenAIAction(a), pending_safety_checks: [], status: "completed" }],
});

describe("finish() results (OpenAI Agents SDK)", () => {
  it("split the judge's tokens into uncached, cached and billed; a role whose server reports no cache has cached 0 and billed = tokens", async () => {
    const s = await wrongItemScenario(servers, undefined, { detector: { inputTokens: 4000, outputTokens: 30, cachedInputTokens: 3072, style: "vllm" }, recoverer: { inputTokens: 800, outputTokens: 12 } });
    const agentServer = await startScriptedOpenAIServer({ script: [...s.forward.map(responsesCall), { endpoint: "responses", text: "Renamed draft.txt to final.txt." }] });
    servers.push(agentServer);
    const agent = new Agent({
      name: "desk agent",
      instructions: "Operate the computer to complete the task.",
      model: new OpenAIResponsesModel(new OpenAI({ baseURL: agentServer.url, apiKey: "test-key", maxRetries: 0 }), "computer-use-preview"),
      tools: [computerTool({ computer: retraceComputer({ env: s.env, blobs: s.blobs }) })],
      modelSettings: { truncation: "auto" },
    });
    const result = await runWithRecovery(agent, s.task.instruction, { env: s.env, blobs: s.blobs, detector: s.detector, recoverer: s.recoverer, recoveryBudget: 4, task: s.task, instanceKey: `${s.task.id}/0`, runOptions: { maxTurns: 30 } });
    expect(result.success).toBe(true);
    const n = result.accounting.models.detector!.calls;
    expect(n).toBe(s.det.server.calls);
    expect(n).toBeGreaterThanOrEqual(3);
    // per judge call: 4,000 prompt tokens, 3,072 cached, billed 928 + 0.5 x 3,072 + 30 = 2,494
    expect(result.accounting.models.detector).toMatchObject({ inputTokens: 4000 * n, cachedInputTokens: 3072 * n, billedTokens: 2494 * n });
    expect(result.tokens.promptCache).toBe(true);
    expect(result.tokens.roles.detector).toEqual({ inputTokens: 4000 * n, uncachedInputTokens: 928 * n, cachedInputTokens: 3072 * n, cacheWriteInputTokens: 0, outputTokens: 30 * n, billedTokens: 2494 * n });
    expect(result.tokens.roles.recoverer).toEqual({ inputTokens: 1600, uncachedInputTokens: 1600, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 24, billedTokens: 1624 });
    expect(result.tokens.total.billedTokens).toBe(2494 * n + 1624 + (result.tokens.roles.selector?.billedTokens ?? 0) + (result.tokens.roles.summarizer?.billedTokens ?? 0));
  }, 60_000);
});
