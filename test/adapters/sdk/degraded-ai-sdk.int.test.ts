/**
 * Loud degradation on the AI SDK's generateText. A judge endpoint that answers 500, answers an HTML page, has a wrong URL, or never answers ends in
 * the documented, visible behaviour (issue 40, item 4): after `degradedAfter` failed calls in a row one
 * `degraded` event, `accounting.degraded` in the result, one plain warning line on stderr, an OTel
 * span with the ERROR status; with `onDetectorFailure: "fail"` generateText rejects with a
 * DetectorUnavailableError and a hung judge gets no request after its deadline. A generateText call
 * without retrace's prepareStep: the computer tool refuses to act.
 */
import { describe, expect, it } from "vitest";
import { generateText, stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createRecovery, retraceComputerTool, RECOVERY_SPAN } from "retrace-cua/ai-sdk";
import { ConfigError, DetectorUnavailableError } from "../../../packages/core/src/errors.ts";
import { EpisodeEvents, type DegradedEvent } from "../../../packages/core/src/runtime/events.ts";
import { startScriptedOpenAIServer } from "../../../packages/testing/src/scripted-openai-server.ts";
import {
  agentsSetup,
  brokenJudge,
  capturingStderr,
  judge,
  plainDegraded,
  servers,
  useServerCleanup,
} from "./degraded-fixtures.ts";

useServerCleanup();

describe("AI SDK: degradation and the hook rule", () => {
  it("a generateText call without retrace's prepareStep: the computer tool refuses to act, finish() throws a ConfigError", async () => {
    const { s, server } = await agentsSetup("messages");
    const tool = retraceComputerTool({ env: s.env, blobs: s.blobs });
    const recovery = createRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      task: s.task,
    });
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const result = await generateText({
      model: anthropic("claude-sonnet-4-5"),
      tools: { computer: tool },
      prompt: s.task.instruction,
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      prepareStep: ({ messages }) => ({ messages }),
    });
    expect(tool.log).toHaveLength(0);
    const refused = (result.steps[0].content as any[]).find((p) => p.type === "tool-error");
    expect(refused?.error).toBeInstanceOf(ConfigError);
    expect(String(refused.error.message)).toMatch(/prepareStep never ran/);
    await expect(recovery.finish(result)).rejects.toThrow(/finish\(\) before any step ran/);
  });

  it("an HTML judge: degraded in finish(), one event, one plain line, an OTel span with the ERROR status", async () => {
    const { s, server } = await agentsSetup("messages");
    const j = await brokenJudge("html");
    const started: Array<{
      name: string;
      attributes: Record<string, unknown>;
      status?: { code: number; message?: string };
    }> = [];
    const tracer = {
      startSpan(name: string, o?: { attributes?: Record<string, string | number | boolean> }) {
        const span: (typeof started)[number] = { name, attributes: o?.attributes ?? {} };
        started.push(span);
        return {
          end() {},
          setStatus(st: { code: number; message?: string }) {
            span.status = st;
          },
        };
      },
    };
    const events = new EpisodeEvents();
    const degraded: DegradedEvent[] = [];
    events.on("degraded", (e) => void degraded.push(e));
    const recovery = createRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: judge(j.baseURL, s.blobs),
      recoverer: s.recoverer,
      task: s.task,
      events,
      telemetry: { tracer },
    });
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const { value: episode, lines } = await capturingStderr(async () =>
      recovery.finish(
        await generateText({
          model: anthropic("claude-sonnet-4-5"),
          tools: { computer: retraceComputerTool({ env: s.env, blobs: s.blobs }) },
          prompt: s.task.instruction,
          stopWhen: stepCountIs(30),
          maxRetries: 0,
          prepareStep: recovery.prepareStep,
        }),
      ),
    );
    expect(episode.accounting.degraded).toBe(1);
    expect(degraded).toHaveLength(1);
    expect(degraded[0].lastFailure).toMatch(/HTML page/);
    expect(plainDegraded(lines)).toHaveLength(1);
    const spans = started.filter((sp) => sp.name === RECOVERY_SPAN);
    expect(spans).toHaveLength(1);
    expect(spans[0].attributes).toMatchObject({
      "retrace.recovery.degraded": true,
      "retrace.detector.endpoint": `${j.baseURL} model judge-vlm`,
    });
    expect(spans[0].status).toMatchObject({ code: 2 });
  });

  it('onDetectorFailure: "fail" rejects generateText with a DetectorUnavailableError; a hung judge gets no request after its deadline', async () => {
    const { s, server } = await agentsSetup("messages");
    const hung = await startScriptedOpenAIServer({ responder: () => ({ delayMs: Infinity }) });
    servers.push(hung);
    const tool = retraceComputerTool({ env: s.env, blobs: s.blobs });
    const recovery = createRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: judge(hung.url, s.blobs, { timeoutMs: 250, maxRetries: 3 }),
      recoverer: s.recoverer,
      task: s.task,
      detectorTimeoutMs: 400,
      degradedAfter: 2,
      onDetectorFailure: "fail",
    });
    const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
    const { value: err } = await capturingStderr(() =>
      generateText({
        model: anthropic("claude-sonnet-4-5"),
        tools: { computer: tool },
        prompt: s.task.instruction,
        stopWhen: stepCountIs(30),
        maxRetries: 0,
        prepareStep: recovery.prepareStep,
      }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(DetectorUnavailableError);
    expect((err as Error).message).toContain(hung.url);
    expect(tool.log).toHaveLength(2); // the action after the second failed verdict was held, not executed
    const atEnd = hung.requests.length;
    expect(atEnd).toBe(2);
    await new Promise((res) => setTimeout(res, 2_000));
    expect(hung.requests.length).toBe(atEnd);
  });
});
