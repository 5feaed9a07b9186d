/**
 * createAgentsRecovery plugged into the OpenAI Agents SDK's own loop, through the public entry
 * `retrace-cua/openai-agents`: the user's `run()` with `recovery.runConfig` spread into its options,
 * and `new Runner(recovery.runConfig)` with `stream: true`. The agent's model is the SDK's
 * OpenAIResponsesModel over HTTP against a scripted server (JSON, or server-sent events when the
 * run streams); its computer tool is a RetraceComputer over SimDesk (1280x800). The LLM detector
 * blames the wrong-item step, the LLM recovery sub-agent restores the state. Checked: the requests
 * are cut at R, `result.history` is what the model saw (a next run fed with it sends no cut step),
 * the recovery is a custom span in the SDK's trace (a TracingProcessor of the test's own, nothing
 * printed about failed trace exports), and the computer declares the desk's real screen size.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import OpenAI from "openai";
import {
  Agent,
  OpenAIResponsesModel,
  Runner,
  computerTool,
  getGlobalTraceProvider,
  run,
  setTraceProcessors,
  setTracingDisabled,
  setTracingExportApiKey,
  type Computer,
  type Span,
  type Trace,
  type TracingProcessor,
} from "@openai/agents";
import { createAgentsRecovery, retraceComputer, RECOVERY_SPAN_NAME } from "retrace-cua/openai-agents";
import type { Action } from "../../../packages/core/src/action.ts";
import {
  startScriptedOpenAIServer,
  type ScriptedOpenAIServer,
} from "../../../packages/testing/src/scripted-openai-server.ts";
import { toOpenAIAction, wrongItemScenario } from "./fixtures.ts";

setTracingDisabled(true);
const servers: ScriptedOpenAIServer[] = [];
afterEach(async () => {
  setTracingDisabled(true);
  setTraceProcessors([]);
  vi.restoreAllMocks();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The user's agent: only its Computer is retrace's. */
function deskAgent(baseURL: string, computer: Computer) {
  return new Agent({
    name: "desk agent",
    instructions: "Operate the computer to complete the task.",
    model: new OpenAIResponsesModel(new OpenAI({ baseURL, apiKey: "test-key", maxRetries: 0 }), "computer-use-preview"),
    tools: [computerTool({ computer })],
  });
}
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
const callIds = (items: any[]): string[] =>
  items.filter((i) => i.type === "computer_call").map((i) => i.call_id ?? i.callId);
const userTexts = (items: any[]): string[] =>
  items
    .filter((i) => i.role === "user")
    .map((i) => (typeof i.content === "string" ? i.content : i.content.map((p: any) => p.text ?? "").join("")));

/** The SDK's TracingProcessor interface, recording what the run reports. */
class RecordingProcessor implements TracingProcessor {
  readonly traces: Trace[] = [];
  readonly spans: Span<any>[] = [];
  async onTraceStart(trace: Trace) {
    this.traces.push(trace);
  }
  async onTraceEnd() {}
  async onSpanStart() {}
  async onSpanEnd(span: Span<any>) {
    this.spans.push(span);
  }
  async shutdown() {}
  async forceFlush() {}
}

describe("createAgentsRecovery in the OpenAI Agents SDK's own loop", () => {
  it("the user's run() recovers, reports a trace span, declares the real screen, and result.history is safe for the next run", async () => {
    const s = await wrongItemScenario(servers);
    const agentServer = await startScriptedOpenAIServer({
      script: [
        ...s.forward.map(responsesCall),
        { endpoint: "responses", text: "Renamed draft.txt to final.txt." },
        { endpoint: "responses", text: "Nothing else to do." },
        { endpoint: "responses", text: "Still nothing." },
      ],
    });
    servers.push(agentServer);
    // Tracing on, with the user's own processor instead of the OpenAI exporter (which would post to api.openai.com).
    setTracingDisabled(false);
    setTracingExportApiKey("test-key");
    const processor = new RecordingProcessor();
    setTraceProcessors([processor]);
    const printed: string[] = [];
    const keep = (...args: unknown[]) => void printed.push(args.map(String).join(" "));
    vi.spyOn(console, "error").mockImplementation(keep);
    vi.spyOn(console, "warn").mockImplementation(keep);
    vi.spyOn(console, "log").mockImplementation(keep);

    const computer = retraceComputer({ env: s.env, blobs: s.blobs });
    const agent = deskAgent(agentServer.url, computer);
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      recoveryBudget: 4,
      task: s.task,
      instanceKey: `${s.task.id}/0`,
      detection: "sequential",
    }); // one model call per step: the script is in step order
    const result = await run(agent, s.task.instruction, { ...recovery.runConfig, maxTurns: 30 });
    const episode = await recovery.finish(result);

    expect(episode).toMatchObject({
      success: true,
      stopReason: "done",
      finalOutput: "Renamed draft.txt to final.txt.",
    });
    expect(episode.sdkResult).toBe(result);
    expect(
      episode.trajectory.events.filter((e) => e.kind === "truncate").map((e) => [e.detail.from, e.detail.to]),
    ).toEqual([[s.E + 1, s.R]]);
    const reqs = agentServer.requests;
    expect(reqs).toHaveLength(s.forward.length + 1);
    // Every request, the first included, declares the desk's real size (SimDesk: 1280x800).
    for (const r of reqs)
      expect(r.body.tools.find((t: any) => t.type === "computer_use_preview")).toMatchObject({
        display_width: 1280,
        display_height: 800,
      });
    expect(computer.dimensions).toEqual([1280, 800]);
    const after = reqs[s.E + 1].body.input;
    expect(callIds(after)).toEqual(["call_0"]);
    expect(userTexts(after).at(-1)).toMatch(/state it had at step 1\b/);

    // result.history is what the model saw (last request's input) plus its final answer: no cut step, the notice kept.
    const lastInput = reqs.at(-1)!.body.input as any[];
    const history = result.history as any[];
    expect(history).toHaveLength(lastInput.length + 1);
    expect(callIds(history)).toEqual(callIds(lastInput));
    expect(callIds(history)).toEqual(["call_0", ...s.forward.slice(s.E + 1).map((_, k) => `call_${s.E + 1 + k}`)]);
    expect(userTexts(history).some((t) => /state it had at step 1\b/.test(t))).toBe(true);
    expect(history.at(-1)).toMatchObject({ role: "assistant" });
    expect(recovery.history()).toHaveLength(lastInput.length);

    // The SDK's multi-turn pattern, with a plain run() of the SDK: the next request carries no cut step.
    const next = await run(agent, [...result.history, { role: "user", content: "Anything else?" }], { maxTurns: 2 });
    expect(next.finalOutput).toBe("Nothing else to do.");
    const nextInput = agentServer.requests.at(-1)!.body.input as any[];
    for (let k = s.R; k <= s.E; k++) expect(callIds(nextInput)).not.toContain(`call_${k}`);
    expect(callIds(nextInput)).toEqual(callIds(lastInput));
    expect(userTexts(nextInput).at(-1)).toBe("Anything else?");
    // A later run with the recovery's config, fed the SDK's own history (cut steps included): they are dropped again.
    const sdkHistory = Reflect.get(Object.getPrototypeOf(result), "history", result) as any[];
    expect(callIds(sdkHistory)).toContain(`call_${s.E}`);
    const third = await run(agent, [...sdkHistory, { role: "user", content: "And now?" }], {
      ...recovery.runConfig,
      maxTurns: 2,
    });
    const again = await recovery.finish(third);
    const thirdInput = agentServer.requests.at(-1)!.body.input as any[];
    expect(callIds(thirdInput)).toEqual(callIds(lastInput));
    expect(again.accounting).toMatchObject({
      forwardSteps: s.forward.length,
      detectorCalls: episode.accounting.detectorCalls,
      recoveryAttempts: 1,
    });

    // The recovery is a custom span of the run's trace, under one of the SDK's spans.
    await getGlobalTraceProvider().forceFlush();
    const mine = processor.spans.filter(
      (sp) => sp.spanData.type === "custom" && sp.spanData.name === RECOVERY_SPAN_NAME,
    );
    expect(mine).toHaveLength(1);
    const data = mine[0].spanData.data;
    expect(data).toMatchObject({
      errorStep: s.E,
      recoveryStep: s.R,
      attempt: 1,
      restoration: "model",
      mode: "model",
      confidence: 0.92,
      restored: true,
      recoverySteps: 1,
      cut: { from: s.E + 1, to: s.R },
    });
    const recTokens = episode.accounting.models.recoverer!.inputTokens;
    expect(data.inputTokens).toBeGreaterThan(recTokens); // the recoverer's plus the triggering detection's
    expect(data.inputTokens).toBeLessThan(recTokens + episode.accounting.models.detector!.inputTokens);
    expect(data.outputTokens).toBeGreaterThan(0);
    const runTrace = processor.traces.find((t) => t.traceId === mine[0].traceId);
    expect(runTrace).toBeDefined();
    expect(processor.spans.map((sp) => sp.spanId)).toContain(mine[0].parentId);
    expect(mine[0].endedAt).not.toBeNull();
    expect(printed.filter((l) => /Tracing: request failed/.test(l))).toEqual([]);
    s.det.server.verify();
    s.rec.server.verify();
    agentServer.verify();
  });

  it("a Runner built with the recovery's config streams a recovered run", async () => {
    const s = await wrongItemScenario(servers);
    const agentServer = await startScriptedOpenAIServer({
      script: [...s.forward.map(responsesCall), { endpoint: "responses", text: "Renamed draft.txt to final.txt." }],
    });
    servers.push(agentServer);
    const agent = deskAgent(agentServer.url, retraceComputer({ env: s.env, blobs: s.blobs }));
    const recovery = createAgentsRecovery({
      env: s.env,
      blobs: s.blobs,
      detector: s.detector,
      recoverer: s.recoverer,
      recoveryBudget: 4,
      task: s.task,
      instanceKey: `${s.task.id}/0`,
      detection: "sequential",
    });
    const truncations: Array<[number, number]> = [];
    recovery.events.on("truncate", (e) => void truncations.push([e.from, e.to]));

    const runner = new Runner({ ...recovery.runConfig });
    const streamed = await runner.run(agent, s.task.instruction, { stream: true, maxTurns: 30 });
    const deltas: string[] = [];
    let toolOutputs = 0;
    for await (const event of streamed) {
      if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta")
        deltas.push(event.data.delta);
      if (event.type === "run_item_stream_event" && event.name === "tool_output") toolOutputs++;
    }
    const episode = await recovery.finish(streamed);

    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Renamed draft.txt to final.txt.");
    expect(toolOutputs).toBe(s.forward.length);
    expect(episode).toMatchObject({
      success: true,
      stopReason: "done",
      finalOutput: "Renamed draft.txt to final.txt.",
    });
    expect(truncations).toEqual([[s.E + 1, s.R]]);
    const reqs = agentServer.requests;
    expect(reqs.every((r) => r.body.stream === true)).toBe(true);
    expect(callIds(reqs[s.E + 1].body.input)).toEqual(["call_0"]);
    for (const r of reqs.slice(s.E + 1))
      for (let k = s.R; k <= s.E; k++) expect(callIds(r.body.input)).not.toContain(`call_${k}`);
    expect(callIds(streamed.history)).toEqual(callIds(reqs.at(-1)!.body.input));
    agentServer.verify();
  });

  it("rejects a bad option with one ConfigError line naming it", async () => {
    const s = await wrongItemScenario(servers);
    expect(() => createAgentsRecovery({ env: s.env, blobs: s.blobs, detector: s.detector })).toThrow(
      /createAgentsRecovery: give option "recoverer"/,
    );
    expect(() =>
      createAgentsRecovery({
        env: s.env,
        blobs: s.blobs,
        detector: s.detector,
        recoverer: s.recoverer,
        callModelInputFilter: 3 as never,
      }),
    ).toThrow(/option "callModelInputFilter" must be a function/);
  });
});
