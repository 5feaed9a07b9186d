/**
 * `createRecovery` of `retrace-cua/ai-sdk` in the AI SDK's own loops: `generateText`, `streamText` and
 * `ToolLoopAgent` take `recovery.prepareStep` (or `recovery.compose(yours)`). The model is
 * @ai-sdk/anthropic against a scripted server on 127.0.0.1 answering with Anthropic computer-tool
 * calls executed on SimDesk; the LLM detector and recoverer run over scripted servers too. Each
 * recovery is an OpenTelemetry span under the SDK's `ai.generateText` span (InMemorySpanExporter),
 * and an unconfirmed restoration follows `unconfirmedRestoration`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateText, stepCountIs, streamText, ToolLoopAgent } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createRecovery, retraceComputerTool, RECOVERY_SPAN, type RecoveryReport } from "retrace-cua/ai-sdk";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { ConfigError } from "../../../packages/core/src/errors.ts";
import { toAnthropicInput, wrongItemScenario } from "./fixtures.ts";

const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("consumer");
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

const blocks = (body: any): any[] =>
  (body.messages as any[]).flatMap((m) =>
    typeof m.content === "string"
      ? [{ type: "text", text: m.content, role: m.role }]
      : m.content.map((b: any) => ({ ...b, role: m.role })),
  );
const toolUseIds = (body: any): string[] =>
  blocks(body)
    .filter((b) => b.type === "tool_use")
    .map((b) => b.id);
const lastText = (body: any): any =>
  blocks(body)
    .filter((b) => b.type === "text")
    .at(-1);

/** The wrong-item scenario with the forward agent scripted on its own server: every forward step, then a final text. */
async function episode(final = "Renamed draft.txt to final.txt.") {
  const s = await wrongItemScenario(servers);
  const forward = s.forward.map((a, i) => ({
    endpoint: "messages" as const,
    content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
  }));
  const server = await startScriptedOpenAIServer({ script: [...forward, { endpoint: "messages", text: final }] });
  servers.push(server);
  const anthropic = createAnthropic({ baseURL: server.url, apiKey: "test-key" });
  return {
    ...s,
    server,
    model: anthropic("claude-sonnet-4-5"),
    computer: retraceComputerTool({ env: s.env, blobs: s.blobs }),
  };
}

/** The requests show the cut: the call after the recovery holds step 0 only, then the transition string. */
function expectCutAtR(e: Awaited<ReturnType<typeof episode>>) {
  const reqs = e.server.requests;
  expect(reqs).toHaveLength(e.forward.length + 1);
  expect(toolUseIds(reqs[e.E].body)).toEqual(["toolu_0", "toolu_1"]);
  expect(toolUseIds(reqs[e.E + 1].body)).toEqual(["toolu_0"]);
  expect(lastText(reqs[e.E + 1].body)).toMatchObject({ role: "user" });
  expect(lastText(reqs[e.E + 1].body).text).toBe(
    `Note: the environment has been recovered to the state it had at step ${e.R}.`,
  );
  for (const r of reqs.slice(e.E + 1))
    for (let k = e.R; k <= e.E; k++) expect(toolUseIds(r.body)).not.toContain(`toolu_${k}`);
}

describe("createRecovery (retrace/ai-sdk) in the AI SDK's own loops", () => {
  it("generateText: recovers through prepareStep and records the recovery as a span under ai.generateText", async () => {
    exporter.reset();
    const e = await episode();
    const reports: RecoveryReport[] = [];
    const recovery = createRecovery({
      detection: "sequential",
      env: e.env,
      blobs: e.blobs,
      detector: e.detector,
      recoverer: e.recoverer,
      recoveryBudget: 4,
      task: e.task,
      telemetry: { tracer, functionId: "desk-agent" },
      onRecovery: (r) => void reports.push(r),
    });
    const result = await generateText({
      model: e.model,
      tools: { computer: e.computer },
      prompt: e.task.instruction,
      stopWhen: stepCountIs(30),
      maxRetries: 0,
      prepareStep: recovery.prepareStep,
      experimental_telemetry: { isEnabled: true, tracer, functionId: "desk-agent" },
    });
    const episodeResult = await recovery.finish(result);
    expect(episodeResult.evaluation.score).toBe(1);
    expect(episodeResult.stopReason).toBe("done");
    expect(episodeResult.finalOutput).toBe("Renamed draft.txt to final.txt.");
    expect(episodeResult.sdkResult).toBe(result);
    expect(episodeResult.accounting).toMatchObject({
      detectorCalls: 3,
      recoveryAttempts: 1,
      recoverySteps: 1,
      forwardSteps: e.forward.length,
    });
    expectCutAtR(e);

    const spans = exporter.getFinishedSpans();
    const rec = spans.filter((s) => s.name === RECOVERY_SPAN);
    expect(rec).toHaveLength(1);
    const root = spans.find((s) => s.name === "ai.generateText")!;
    expect(rec[0].parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(rec[0].spanContext().traceId).toBe(root.spanContext().traceId);
    expect(rec[0].attributes).toMatchObject({
      "ai.telemetry.functionId": "desk-agent",
      "retrace.task.id": e.task.id,
      "retrace.recovery.attempt": 1,
      "retrace.recovery.restoration": "model",
      "retrace.recovery.mode": "model",
      "retrace.recovery.error_step": e.E,
      "retrace.recovery.recovery_step": e.R,
      "retrace.recovery.detected_at_step": e.E + 1,
      "retrace.recovery.restored": true,
      "retrace.recovery.confidence": 0.92,
      "retrace.recovery.steps": 1,
      "retrace.recovery.context_cut": true,
      "retrace.recovery.notice": "post-restoration.transition@2",
      "retrace.recovery.unconfirmed_restoration": "disclose-and-keep",
    });
    // Tokens: the triggering detector call (one of the three) plus the recoverer's two calls.
    const models = episodeResult.accounting.models;
    expect(rec[0].attributes["retrace.recovery.input_tokens"]).toBe(reports[0].inputTokens);
    expect(rec[0].attributes["retrace.recovery.output_tokens"]).toBe(reports[0].outputTokens);
    expect(reports[0].inputTokens).toBeGreaterThan(models.recoverer!.inputTokens);
    expect(reports[0].inputTokens).toBeLessThan(models.recoverer!.inputTokens + models.detector!.inputTokens);
    expect(reports[0].outputTokens).toBeGreaterThan(0);
    // The span covers the detector call and the restoration, within the generateText span.
    const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
    expect(ms(rec[0].endTime)).toBeGreaterThan(ms(rec[0].startTime));
    expect(ms(rec[0].startTime)).toBeGreaterThanOrEqual(ms(root.startTime) - 1);
    expect(ms(rec[0].endTime)).toBeLessThanOrEqual(ms(root.endTime) + 1);
    e.server.verify();
    e.det.server.verify();
    e.rec.server.verify();
  });

  it("streamText: the same recovery, composed with the caller's prepareStep, which runs after retrace's on the cut messages", async () => {
    const e = await episode();
    const recovery = createRecovery({
      detection: "sequential",
      env: e.env,
      blobs: e.blobs,
      detector: e.detector,
      recoverer: e.recoverer,
      recoveryBudget: 4,
      task: e.task,
    });
    const seen: { step: number; toolUses: string[]; last: unknown }[] = [];
    const result = streamText({
      model: e.model,
      tools: { computer: e.computer },
      prompt: e.task.instruction,
      stopWhen: stepCountIs(30),
      maxRetries: 0,
      prepareStep: recovery.compose(async ({ stepNumber, messages }) => {
        seen.push({
          step: stepNumber,
          toolUses: messages.flatMap((m) =>
            Array.isArray(m.content)
              ? m.content.filter((p) => p.type === "tool-call").map((p) => (p as { toolCallId: string }).toolCallId)
              : [],
          ),
          last: messages.at(-1)?.content,
        });
        return { system: `You operate a desktop. Step ${stepNumber}.` };
      }),
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    const episodeResult = await recovery.finish(result);
    expect(text).toBe("Renamed draft.txt to final.txt.");
    expect(episodeResult.evaluation.score).toBe(1);
    expect(episodeResult.finalOutput).toBe(text);
    expectCutAtR(e);
    // The caller's hook saw retrace's decision: right after the recovery, step 0 only and the notice last.
    expect(seen[e.E + 1].toolUses).toEqual(["toolu_0"]);
    expect(seen[e.E + 1].last).toBe(`Note: the environment has been recovered to the state it had at step ${e.R}.`);
    // ...and what it returned was applied to every step's request.
    e.server.requests.forEach((r, i) => expect(JSON.stringify(r.body.system)).toContain(`Step ${i}.`));
    e.server.verify();
  });

  it("ToolLoopAgent: the agent class takes recovery.prepareStep", async () => {
    const e = await episode("Done: final.txt.");
    const recovery = createRecovery({
      detection: "sequential",
      env: e.env,
      blobs: e.blobs,
      detector: e.detector,
      recoverer: e.recoverer,
      recoveryBudget: 4,
      task: e.task,
    });
    const agent = new ToolLoopAgent({
      model: e.model,
      tools: { computer: e.computer },
      stopWhen: stepCountIs(30),
      maxRetries: 0,
      prepareStep: recovery.prepareStep,
    });
    const result = await agent.generate({ prompt: e.task.instruction });
    const episodeResult = await recovery.finish(result);
    expect(episodeResult.evaluation.score).toBe(1);
    expect(episodeResult.finalOutput).toBe("Done: final.txt.");
    expect(
      episodeResult.trajectory.events
        .filter((ev) => ev.kind === "truncate")
        .map((ev) => [ev.detail.from, ev.detail.to]),
    ).toEqual([[e.E + 1, e.R]]);
    expectCutAtR(e);
    e.server.verify();
  });

  describe("after a restoration that was not confirmed (the restore routine reports restored: false)", () => {
    async function unconfirmed(unconfirmedRestoration?: "claim-recovered" | "disclose-and-keep") {
      const s = await wrongItemScenario(servers);
      // The agent takes steps 0..E, the detector fires after step E, the restoration fails, then the agent answers.
      const forward = s.forward.slice(0, s.E + 1).map((a, i) => ({
        endpoint: "messages" as const,
        content: [{ type: "tool_use", id: `toolu_${i}`, name: "computer", input: toAnthropicInput(a) }],
      }));
      const server = await startScriptedOpenAIServer({
        script: [...forward, { endpoint: "messages", text: "Stopping here." }],
      });
      servers.push(server);
      const model = createAnthropic({ baseURL: server.url, apiKey: "test-key" })("claude-sonnet-4-5");
      const recovery = createRecovery({
        detection: "sequential",
        env: s.env,
        blobs: s.blobs,
        detector: s.detector,
        task: s.task,
        evaluate: false,
        restore: async () => ({ restored: false, steps: 0, detail: "could not reach the target" }),
        ...(unconfirmedRestoration && { unconfirmedRestoration }),
      });
      const result = await recovery.finish(
        await generateText({
          model,
          tools: { computer: retraceComputerTool({ env: s.env, blobs: s.blobs }) },
          prompt: s.task.instruction,
          stopWhen: stepCountIs(10),
          maxRetries: 0,
          prepareStep: recovery.prepareStep,
        }),
      );
      server.verify();
      return { s, after: server.requests[s.E + 1].body, result, messages: recovery.messages() };
    }

    it("by default (disclose-and-keep) the context is kept and the agent is told the restoration could not be confirmed", async () => {
      const { s, after, result, messages } = await unconfirmed();
      expect(toolUseIds(after)).toEqual(["toolu_0", "toolu_1", "toolu_2"]);
      expect(lastText(after).role).toBe("user");
      expect(lastText(after).text).toBe(
        `Note: a check found that step ${s.E} went off track. An attempt to return the environment to the state it had at step ${s.R} could not be confirmed, so your history was kept as it is. The environment may be anywhere between that state and where you left it: look at the current screen before acting, and continue the task from what it shows.`,
      );
      expect(result.trajectory.events.find((e) => e.kind === "truncate")!.detail).toMatchObject({
        from: s.E + 1,
        to: s.E + 1,
        restored: false,
        kept: true,
      });
      expect(result.prompts).toContain("post-restoration.unconfirmed-kept@1");
      // recovery.messages(): the conversation as the model saw it, for the next turn.
      expect(messages.at(-1)).toEqual({ role: "user", content: lastText(after).text });
    });

    it("with claim-recovered (the paper's) the context is cut to R and the agent is told it was recovered", async () => {
      const { s, after, result } = await unconfirmed("claim-recovered");
      expect(toolUseIds(after)).toEqual(["toolu_0"]);
      expect(lastText(after).text).toBe(`Note: the environment has been recovered to the state it had at step ${s.R}.`);
      expect(result.trajectory.events.find((e) => e.kind === "truncate")!.detail).toMatchObject({
        from: s.E + 1,
        to: s.R,
        restored: false,
      });
    });
  });

  it("refuses a missing recoverer and finish() before any step with one ConfigError line", async () => {
    const s = await wrongItemScenario(servers);
    expect(() => createRecovery({ env: s.env, blobs: s.blobs, detector: s.detector })).toThrow(ConfigError);
    const recovery = createRecovery({ env: s.env, blobs: s.blobs, detector: s.detector, recoverer: s.recoverer });
    await expect(recovery.finish({ finishReason: "stop", text: "" })).rejects.toThrow(/pass recovery.prepareStep/);
  });
});
