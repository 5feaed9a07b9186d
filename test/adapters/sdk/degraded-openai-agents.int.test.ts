/**
 * Loud degradation on the OpenAI Agents SDK's run(). A judge endpoint that answers 500, answers an HTML page, has a wrong URL, or never answers ends in
 * the documented, visible behaviour (issue 40, item 4): after `degradedAfter` failed calls in a row one
 * `degraded` event, `accounting.degraded` in the result, one plain warning line on stderr,
 * a retrace.recovery span with the error status; with `onDetectorFailure: "fail"` the run ends with a
 * DetectorUnavailableError naming the endpoint; a hung judge gets no request after its deadline. A
 * callModelInputFilter of the user's own that replaces retrace's is refused with a ConfigError and
 * nothing executes unjudged; one given to createAgentsRecovery composes.
 */
import { describe, expect, it } from "vitest";
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
import { createAgentsRecovery, retraceComputer, RECOVERY_SPAN_NAME } from "retrace-cua/openai-agents";
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
