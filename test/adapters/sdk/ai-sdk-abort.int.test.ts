/**
 * Issue 31: "In `retrace/ai-sdk`, a restore routine or recoverer that never resolves ignores
 * `signal`." Through the public `retrace-cua/ai-sdk` API in the AI SDK's own `generateText` loop
 * (the model @ai-sdk/anthropic against a scripted server on 127.0.0.1, the LLM detector over a
 * scripted server flagging the wrong item): the user's restore routine, and separately the user's
 * recoverer, never resolve; the run's `signal` is aborted while it waits; the call rejects within
 * a second or two with the signal's reason, and nothing is left waiting.
 */
import { afterEach, describe, expect, it } from "vitest";
import { generateText, stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createRecovery, retraceComputerTool } from "retrace-cua/ai-sdk";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import type { RecoveryPolicy } from "../../../packages/core/src/recovery.ts";
import { toAnthropicInput, wrongItemScenario } from "./fixtures.ts";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function episode() {
  const s = await wrongItemScenario(servers);
  const forward = s.forward.map((a, i) => ({
    endpoint: "messages" as const,
    content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
  }));
  const server = await startScriptedOpenAIServer({ script: [...forward, { endpoint: "messages", text: "done" }] });
  servers.push(server);
  const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
  return {
    ...s,
    server,
    model: anthropic("claude-sonnet-4-5"),
    computer: retraceComputerTool({ env: s.env, blobs: s.blobs }),
  };
}

const REASON = "the operator stopped the run";

/** Run generateText with the recovery; abort `controller` 300 ms after `started` fires; how the call ended and when. */
async function runUntilAborted(
  e: Awaited<ReturnType<typeof episode>>,
  recovery: ReturnType<typeof createRecovery>,
  controller: AbortController,
  started: Promise<void>,
) {
  let abortedAt = 0;
  void started.then(() => setTimeout(() => ((abortedAt = Date.now()), controller.abort(new Error(REASON))), 300));
  const call = generateText({
    model: e.model,
    tools: { computer: e.computer },
    prompt: e.task.instruction,
    stopWhen: stepCountIs(30),
    maxRetries: 0,
    prepareStep: recovery.prepareStep,
  });
  // A call still waiting 20 s after the abort fails the test here instead of hanging it.
  const outcome = await Promise.race([
    call.then(
      () => ({ ok: true as const, error: undefined }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
    new Promise<{ ok: "hung"; error: undefined }>((r) =>
      setTimeout(() => r({ ok: "hung", error: undefined }), 25_000).unref(),
    ),
  ]);
  return { outcome, afterAbortMs: Date.now() - abortedAt, abortedAt };
}

describe("createRecovery (retrace-cua/ai-sdk) with user functions that never resolve", () => {
  it("a restore routine that never resolves: aborting the signal ends the generateText call promptly with the abort reason", async () => {
    const e = await episode();
    const controller = new AbortController();
    let calledWith: AbortSignal | undefined;
    let began!: () => void;
    const started = new Promise<void>((r) => (began = r));
    const recovery = createRecovery({
      detection: "sequential",
      env: e.env,
      blobs: e.blobs,
      detector: e.detector,
      task: e.task,
      signal: controller.signal,
      // ignores its signal and never answers
      restore: (req) => {
        calledWith = req.signal;
        began();
        return new Promise(() => undefined);
      },
    });
    const { outcome, afterAbortMs, abortedAt } = await runUntilAborted(e, recovery, controller, started);
    expect(outcome.ok).toBe(false);
    expect(abortedAt).toBeGreaterThan(0);
    expect(afterAbortMs).toBeLessThan(3_000);
    expect(String((outcome.error as Error)?.message)).toMatch(
      new RegExp(`the restore routine did not finish before the episode was stopped \\(${REASON}\\)`),
    );
    // the routine was handed the run's signal, and the forward agent made no call after the restore began
    expect(calledWith?.aborted).toBe(true);
    expect(e.server.requests).toHaveLength(e.E + 1);
  }, 60_000);

  it("a recoverer that never resolves: aborting the signal ends the generateText call promptly with the abort reason", async () => {
    const e = await episode();
    const controller = new AbortController();
    let began!: () => void;
    const started = new Promise<void>((r) => (began = r));
    let proposals = 0;
    // A user's recovery sub-agent that ignores the signal and never answers.
    const recoverer: RecoveryPolicy = {
      name: "never-answers",
      propose: () => {
        proposals++;
        began();
        return new Promise(() => undefined);
      },
    };
    const recovery = createRecovery({
      detection: "sequential",
      env: e.env,
      blobs: e.blobs,
      detector: e.detector,
      recoverer,
      recoveryBudget: 4,
      task: e.task,
      signal: controller.signal,
    });
    const { outcome, afterAbortMs, abortedAt } = await runUntilAborted(e, recovery, controller, started);
    expect(outcome.ok).toBe(false);
    expect(abortedAt).toBeGreaterThan(0);
    expect(afterAbortMs).toBeLessThan(3_000);
    expect(String((outcome.error as Error)?.message)).toMatch(
      new RegExp(`did not finish before the episode was stopped \\(${REASON}\\)`),
    );
    expect(proposals).toBe(1);
    expect(e.server.requests).toHaveLength(e.E + 1);
  }, 60_000);
});
