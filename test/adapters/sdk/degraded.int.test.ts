/**
 * Loud degradation (issue 40, item 4): a judge endpoint that answers 500, answers an HTML page,
 * has a wrong URL, or never answers, ends in the documented, visible behaviour on the graph path
 * (runEpisode), the OpenAI Agents SDK's run() and the AI SDK's generateText: after `degradedAfter`
 * failed calls in a row one `degraded` event, `accounting.degraded` in the result, one plain
 * warning line on stderr, a span with the error status; with `onDetectorFailure: "fail"` the run
 * stops with a DetectorUnavailableError naming the endpoint. A timed-out judge request is aborted:
 * no request reaches the judge's server after its deadline. A callModelInputFilter of the user's
 * own that replaces retrace's is refused with a ConfigError and nothing executes unjudged. Every
 * server is a real one on 127.0.0.1.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import {
  Agent,
  OpenAIResponsesModel,
  computerTool,
  run,
  setTracingDisabled,
  setTraceProcessors,
  getGlobalTraceProvider,
  setTracingExportApiKey,
  type Span,
  type TracingProcessor,
} from "@openai/agents";
import { generateText, stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createAgentsRecovery, retraceComputer, RECOVERY_SPAN_NAME } from "retrace-cua/openai-agents";
import { createRecovery, retraceComputerTool, RECOVERY_SPAN } from "retrace-cua/ai-sdk";
import { runEpisode } from "../../../packages/graphs/src/run-episode.ts";
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { ConfigError, DetectorUnavailableError } from "../../../packages/core/src/errors.ts";
import { EpisodeEvents, type DegradedEvent } from "../../../packages/core/src/runtime/events.ts";
import { createLlmErrorDetector } from "../../../packages/models/src/llm/detector.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import { SIMDESK_TASKS, createSimDesk } from "../../../packages/simdesk/src/simdesk.ts";
import { createSimAgents } from "../../../packages/simdesk/src/agents/index.ts";
import {
  startScriptedOpenAIServer,
  type RecordedRequest,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import type { BlobReader } from "../../../packages/core/src/blob-store.ts";
import { toAnthropicInput, toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
const raw: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  setTracingDisabled(true);
  setTraceProcessors([]);
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(raw.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Judge endpoints that fail: 500 on every request, an HTML page, nothing listening. */
async function brokenJudge(kind: "500" | "html" | "wrong-url"): Promise<{ baseURL: string; requests: () => number }> {
  if (kind === "500") {
    const s = await startScriptedOpenAIServer({ responder: () => ({ status: 500 }) });
    servers.push(s);
    return { baseURL: s.url, requests: () => s.requests.length };
  }
  if (kind === "html") {
    let n = 0;
    const s = createServer((_req, res) => {
      n++;
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><html><head><title>Login</title></head><body>Please sign in</body></html>");
    });
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    raw.push(s);
    return { baseURL: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, requests: () => n };
  }
  // A port nothing listens on: close a server right after it got its port.
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return { baseURL: `http://127.0.0.1:${port}/v1`, requests: () => 0 };
}

function judge(baseURL: string, blobs: BlobReader, extra: { timeoutMs?: number; maxRetries?: number } = {}) {
  return createLlmErrorDetector({
    model: createOpenAIChatModel({
      model: "judge-vlm",
      blobs,
      baseURL,
      apiKey: "test-key",
      maxRetries: extra.maxRetries ?? 0,
      timeoutMs: extra.timeoutMs ?? 5_000,
    }),
    historyImages: 1,
  });
}

/** Plain warning lines written to stderr while `f` runs. */
async function capturingStderr<T>(f: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, "write").mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
    lines.push(String(chunk));
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write);
  const value = await f();
  return { value, lines };
}
const plainDegraded = (lines: string[]) => lines.filter((l) => l.startsWith("retrace: warning: recovery is DEGRADED"));

const blobs = new BlobStore({ dir: join(mkdtempSync(join(tmpdir(), "retrace-degraded-")), "blobs") });
const desk = createSimDesk({ blobs });
const TASK = SIMDESK_TASKS.filter((t) => t.plan.length >= 8)[0];

function graphRun(
  detector: ReturnType<typeof judge>,
  options: Record<string, unknown>,
  events: EpisodeEvents,
  detectorTimeoutMs?: number,
) {
  const agents = createSimAgents({
    task: TASK,
    groundTruth: desk,
    seed: 1,
    recoverer: "skilled",
    detector: "decent",
    forward: "default",
  });
  return runEpisode({
    task: TASK,
    components: { policy: agents.policy, env: desk, blobs, recoverer: agents.recoverer, detector },
    options: { seed: 0, maxForwardSteps: 12, ...options },
    events,
    ...(detectorTimeoutMs !== undefined && { knobs: { detectorTimeoutMs } }),
  });
}

describe("graph path (runEpisode): a judge outage is loud", () => {
  it.each(["500", "html", "wrong-url"] as const)(
    "judge %s: degraded once (event, accounting, ONE plain warning line), the episode continues unjudged",
    async (kind) => {
      const j = await brokenJudge(kind);
      const events = new EpisodeEvents();
      const degraded: DegradedEvent[] = [];
      events.on("degraded", (e) => void degraded.push(e));
      const { value: r, lines } = await capturingStderr(() =>
        graphRun(judge(j.baseURL, blobs), { degradedAfter: 3 }, events),
      );
      expect(r.accounting.detectorCalls).toBeGreaterThanOrEqual(3);
      expect(r.accounting.detectorFailures).toBe(r.accounting.detectorCalls);
      expect(r.accounting.recoveryAttempts).toBe(0);
      expect(r.accounting.degraded).toBe(1);
      expect(degraded).toHaveLength(1);
      expect(degraded[0]).toMatchObject({ failures: 3, action: "continue", endpoint: `${j.baseURL} model judge-vlm` });
      expect(degraded[0].step).toBe(2);
      const warned = plainDegraded(lines);
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain(j.baseURL);
      expect(warned[0]).not.toMatch(/^\{/);
      // Per-step JSON lines stop once degraded: one per failed call up to the threshold, none after.
      expect(lines.filter((l) => l.includes('"msg":"detector failed')).length).toBe(3);
      if (kind !== "wrong-url") expect(j.requests()).toBe(r.accounting.detectorCalls); // maxRetries 0: one request per call
    },
  );

  it('onDetectorFailure: "fail" stops the run with a DetectorUnavailableError naming the judge endpoint', async () => {
    const j = await brokenJudge("500");
    const events = new EpisodeEvents();
    const err = await graphRun(judge(j.baseURL, blobs), { degradedAfter: 2, onDetectorFailure: "fail" }, events).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DetectorUnavailableError);
    expect((err as DetectorUnavailableError).message).toContain(j.baseURL);
    expect((err as DetectorUnavailableError).message.split("\n")).toHaveLength(1);
    expect((err as DetectorUnavailableError).failures).toBe(2);
    expect(j.requests()).toBe(2); // stopped at the second failed call
  });

  it("a hung judge: each call is aborted at its deadline, and no request reaches the judge's server afterwards (no background retries)", async () => {
    const hung = await startScriptedOpenAIServer({ responder: () => ({ delayMs: Infinity }) });
    servers.push(hung);
    // The client's own per-attempt timeout (250 ms) is shorter than the detector's deadline (400 ms):
    // before the fix the SDK kept retrying the raced-away call in the background.
    const detector = judge(hung.url, blobs, { timeoutMs: 250, maxRetries: 3 });
    const events = new EpisodeEvents();
    const started = Date.now();
    const { value: r } = await capturingStderr(() =>
      graphRun(detector, { degradedAfter: 2, maxForwardSteps: 4 }, events, 400),
    );
    const ended = Date.now();
    expect(r.accounting.detectorFailures).toBe(r.accounting.detectorCalls);
    expect(r.accounting.degraded).toBe(1);
    expect(ended - started).toBeLessThan(r.accounting.detectorCalls * 400 + 3_000); // each step waited at most its deadline
    const atEnd = hung.requests.length;
    expect(atEnd).toBe(r.accounting.detectorCalls); // one request per call: none retried within or after its deadline
    await new Promise((res) => setTimeout(res, 2_000)); // the window after the last deadline
    expect(hung.requests.length).toBe(atEnd);
  });
});

/** An agent model that answers by how many steps its input holds: the scenario's forward run, then a text answer. */
async function agentsSetup(kind: "responses" | "messages") {
  const s = await wrongItemScenario(servers);
  let k = 0;
  const server = await startScriptedOpenAIServer({
    responder: (req: RecordedRequest) => {
      if (kind === "responses") {
        const n = (req.body.input as any[]).filter((i) => i.type === "computer_call").length;
        const a = s.forward[n];
        if (!a) return { endpoint: "responses", text: "Done." };
        const id = k++;
        return {
          endpoint: "responses",
          output: [
            {
              type: "computer_call",
              id: `cu_${id}`,
              call_id: `call_${id}`,
              action: toOpenAIAction(a),
              pending_safety_checks: [],
              status: "completed",
            },
          ],
        };
      }
      const n = (req.body.messages as any[]).filter(
        (m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p: any) => p.type === "tool_use"),
      ).length;
      const a = s.forward[n];
      if (!a) return { endpoint: "messages", text: "Done." };
      return {
        endpoint: "messages",
        content: [{ type: "tool_use", id: `toolu_${k++}`, name: "computer", input: toAnthropicInput(a) }],
      };
    },
  });
  servers.push(server);
  return { s, server };
}

function deskAgent(baseURL: string, computer: ReturnType<typeof retraceComputer>) {
  return new Agent({
    name: "desk agent",
    instructions: "Operate the computer.",
    model: new OpenAIResponsesModel(new OpenAI({ baseURL, apiKey: "test-key", maxRetries: 0 }), "computer-use-preview"),
    tools: [computerTool({ computer })],
  });
}

class Recording implements TracingProcessor {
  readonly spans: Span<any>[] = [];
  async onTraceStart() {}
  async onTraceEnd() {}
  async onSpanStart() {}
  async onSpanEnd(span: Span<any>) {
    this.spans.push(span);
  }
  async shutdown() {}
  async forceFlush() {}
}

describe("OpenAI Agents SDK: degradation and the filter rule", () => {
  it("a 500 judge: finish() counts degraded, one event, one plain line, a retrace.recovery span with the error status", async () => {
    const { s, server } = await agentsSetup("responses");
    const j = await brokenJudge("500");
    setTracingDisabled(false);
    setTracingExportApiKey("test-key");
    const processor = new Recording();
    setTraceProcessors([processor]);
    const events = new EpisodeEvents();
    const degraded: DegradedEvent[] = [];
    events.on("degraded", (e) => void degraded.push(e));
    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: judge(j.baseURL, s.blobs),
      recoverer: s.recoverer,
      task: s.task,
      events,
      degradedAfter: 3,
    });
    const { value: episode, lines } = await capturingStderr(async () =>
      recovery.finish(
        await run(deskAgent(server.url, computer), s.task.instruction, { ...recovery.runConfig, maxTurns: 30 }),
      ),
    );
    expect(episode.accounting.degraded).toBe(1);
    expect(episode.accounting.detectorFailures).toBe(episode.accounting.detectorCalls);
    expect(episode.accounting.forwardSteps).toBe(s.forward.length);
    expect(degraded).toHaveLength(1);
    expect(plainDegraded(lines)).toHaveLength(1);
    await getGlobalTraceProvider().forceFlush();
    const spans = processor.spans.filter(
      (sp) => sp.spanData.type === "custom" && sp.spanData.name === RECOVERY_SPAN_NAME,
    );
    expect(spans).toHaveLength(1);
    expect(spans[0].spanData.data).toMatchObject({
      degraded: true,
      failures: 3,
      endpoint: `${j.baseURL} model judge-vlm`,
    });
    expect(spans[0].error?.message).toMatch(/recovery degraded/);
  });

  it('onDetectorFailure: "fail": the run ends with a DetectorUnavailableError naming the judge endpoint', async () => {
    const { s, server } = await agentsSetup("responses");
    const j = await brokenJudge("wrong-url");
    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: judge(j.baseURL, s.blobs),
      recoverer: s.recoverer,
      task: s.task,
      degradedAfter: 2,
      onDetectorFailure: "fail",
    });
    const outcome = await run(deskAgent(server.url, computer), s.task.instruction, {
      ...recovery.runConfig,
      maxTurns: 30,
    }).catch((e: Error) => e);
    const err = await recovery.finish(outcome).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DetectorUnavailableError);
    expect((err as Error).message).toContain(j.baseURL);
    // Nothing ran past the failing verdict: steps 0 and 1 executed, the action after step 1's failed verdict was held.
    expect(computer.log).toHaveLength(2);
  });

  it("a hung judge in the overlapped flow: no request reaches the judge after its deadline", async () => {
    const { s, server } = await agentsSetup("responses");
    const hung = await startScriptedOpenAIServer({ responder: () => ({ delayMs: Infinity }) });
    servers.push(hung);
    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: judge(hung.url, s.blobs, { timeoutMs: 250, maxRetries: 3 }),
      recoverer: s.recoverer,
      task: s.task,
      detectorTimeoutMs: 400,
    });
    const { value: episode } = await capturingStderr(async () =>
      recovery.finish(
        await run(deskAgent(server.url, computer), s.task.instruction, { ...recovery.runConfig, maxTurns: 30 }),
      ),
    );
    expect(episode.accounting.detectorFailures).toBe(episode.accounting.detectorCalls);
    expect(episode.accounting.degraded).toBe(1);
    const atEnd = hung.requests.length;
    expect(atEnd).toBe(episode.accounting.detectorCalls);
    await new Promise((res) => setTimeout(res, 2_000));
    expect(hung.requests.length).toBe(atEnd);
  });

  it("a callModelInputFilter of the user's own in run()'s options: refused with a ConfigError, no action executed unjudged", async () => {
    const { s, server } = await agentsSetup("responses");
    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      task: s.task,
    });
    let mine = 0;
    const result = await run(deskAgent(server.url, computer), s.task.instruction, {
      ...recovery.runConfig,
      callModelInputFilter: ({ modelData }) => (mine++, modelData),
      maxTurns: 4,
    }).catch((e: Error) => e);
    expect(mine).toBeGreaterThan(0);
    const err = await recovery.finish(result).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(
      /callModelInputFilter never ran.*createAgentsRecovery\(\{ callModelInputFilter/,
    );
    expect((err as ConfigError).message.split("\n")).toHaveLength(1);
    expect(computer.log).toHaveLength(0);
  });

  it("the user's filter given to createAgentsRecovery composes: retrace's runs first, then the user's on its output", async () => {
    const { s, server } = await agentsSetup("responses");
    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const seen: number[] = [];
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      task: s.task,
      detection: "sequential",
      callModelInputFilter: ({ modelData }) => (seen.push(modelData.input.length), modelData),
    });
    const episode = await recovery.finish(
      await run(deskAgent(server.url, computer), s.task.instruction, { ...recovery.runConfig, maxTurns: 30 }),
    );
    expect(seen.length).toBe(server.requests.length);
    expect(episode.accounting.recoveryAttempts).toBe(1);
  });
});

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
