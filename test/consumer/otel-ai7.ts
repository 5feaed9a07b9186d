/**
 * A recovery as an OpenTelemetry span on `ai` 7, as a consumer sets it up: the SDK records
 * through `@ai-sdk/otel` (`telemetry: { integrations: [new OpenTelemetry({ tracer })] }`),
 * `createRecovery` gets the same tracer, the spans go to `@opentelemetry/sdk-trace-base`'s
 * InMemorySpanExporter, and the call runs inside the caller's own active span. Copied into the
 * consumer project of the newest SDK versions (consumer.int.test.ts), compiled by its tsc and run
 * with plain node against scripted servers (the scenario of consumer-scenario.ts).
 *
 * Checks: exactly one `retrace.recovery` span, with E, R, the attempt, restored, the detector's
 * confidence and the recovery's tokens; its parent is the caller's span, in the trace of the
 * SDK's own spans (ai 7 does not make its spans active around `prepareStep`; on ai 6 the parent
 * is `ai.generateText`, test/adapters/sdk/ai-sdk-prepare-step.int.test.ts). Prints one JSON
 * line; throws on any difference.
 */
import { generateText, stepCountIs } from "ai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { OpenTelemetry } from "@ai-sdk/otel";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { startScriptedOpenAIServer, type ScriptStep } from "retrace-cua/testing";
import { RECOVERY_SPAN, createRecovery, retraceComputerTool, type RecoveryReport } from "retrace-cua/ai-sdk";
import { check, scenario, servers, toAnthropicInput } from "./consumer-scenario.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("consumer");
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

function fail(what: string, got: unknown): never {
  throw new Error(`otel-ai7: ${what}, got ${JSON.stringify(got)}`);
}

try {
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
  const model = createAnthropic({ baseURL: server.url, apiKey: "test-key" })("claude-sonnet-4-5");
  const reports: RecoveryReport[] = [];
  const recovery = createRecovery({
    env: s.env,
    blobs: s.blobs,
    task: s.task,
    detector: s.detector,
    recoverer: s.recoverer,
    recoveryBudget: 4,
    telemetry: { tracer, functionId: "desk-agent" },
    onRecovery: (r) => void reports.push(r),
  });
  const { root, episode } = await tracer.startActiveSpan("handle-request", async (root) => {
    try {
      const result = await generateText({
        model,
        tools: { computer: retraceComputerTool({ env: s.env, blobs: s.blobs }) },
        prompt: s.task.instruction,
        stopWhen: stepCountIs(30),
        maxRetries: 0,
        prepareStep: recovery.prepareStep,
        telemetry: { functionId: "desk-agent", integrations: [new OpenTelemetry({ tracer })] },
      });
      return { root, episode: await recovery.finish(result) };
    } finally {
      root.end();
    }
  });
  check("otel-ai7", episode, s.E, s.R);

  const spans = exporter.getFinishedSpans();
  const rec = spans.filter((x) => x.name === RECOVERY_SPAN);
  if (rec.length !== 1)
    fail(
      `expected one ${RECOVERY_SPAN} span`,
      spans.map((x) => x.name),
    );
  const span = rec[0];
  const a = span.attributes;
  const expected = {
    "ai.telemetry.functionId": "desk-agent",
    "retrace.task.id": s.task.id,
    "retrace.recovery.attempt": 1,
    "retrace.recovery.error_step": s.E,
    "retrace.recovery.recovery_step": s.R,
    "retrace.recovery.restored": true,
    "retrace.recovery.confidence": 0.92,
    "retrace.recovery.input_tokens": reports[0]?.inputTokens,
    "retrace.recovery.output_tokens": reports[0]?.outputTokens,
  };
  for (const [k, v] of Object.entries(expected))
    if (a[k] !== v) fail(`attribute ${k} should be ${JSON.stringify(v)}`, a[k]);
  const tokens = [a["retrace.recovery.input_tokens"], a["retrace.recovery.output_tokens"]];
  if (!tokens.every((t) => typeof t === "number" && t > 0)) fail("the recovery's tokens should be counted", tokens);

  // The parent: the caller's active span, in one trace with the SDK's own spans.
  const sdkSpans = spans.filter((x) => x !== span && x.name !== "handle-request");
  if (sdkSpans.length === 0)
    fail(
      "@ai-sdk/otel should have recorded the SDK's spans",
      spans.map((x) => x.name),
    );
  const traceId = root.spanContext().traceId;
  if (span.spanContext().traceId !== traceId || sdkSpans.some((x) => x.spanContext().traceId !== traceId))
    fail(
      "all spans should share the caller's trace",
      spans.map((x) => [x.name, x.spanContext().traceId]),
    );
  const parent = spans.find((x) => x.spanContext().spanId === span.parentSpanContext?.spanId);
  if (span.parentSpanContext?.spanId !== root.spanContext().spanId)
    fail(
      "the recovery span's parent should be the caller's span (ai 7 does not make its spans active around prepareStep)",
      parent?.name ?? span.parentSpanContext,
    );
  const agentSpan = sdkSpans.find((x) => x.name.startsWith("invoke_agent"));
  if (agentSpan?.parentSpanContext?.spanId !== root.spanContext().spanId)
    fail("the SDK's invoke_agent span should be a child of the caller's span too", agentSpan?.name);
  const ms = (t: [number, number]) => t[0] * 1000 + t[1] / 1e6;
  if (!(ms(span.endTime) > ms(span.startTime)))
    fail("the span should cover the detector call and the restoration", [span.startTime, span.endTime]);
  process.stdout.write(
    `${JSON.stringify({ span: span.name, parent: parent?.name, sdkSpans: [...new Set(sdkSpans.map((x) => x.name.split(" ")[0]))].sort(), attributes: a, node: process.version })}\n`,
  );
  for (const x of servers) x.verify();
} finally {
  await Promise.all(servers.map((x) => x.close()));
  await provider.shutdown();
}
