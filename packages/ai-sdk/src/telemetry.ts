/**
 * Recoveries as OpenTelemetry spans: one `retrace.recovery` span per recovery, started when the
 * detector call that triggered it started and ended when the restore routine returned, with E,
 * R, the attempt, whether the restoration was confirmed, the detector's confidence, the tokens
 * of the detector, selector and recoverer, and what happened to the agent's context. The span's
 * parent is the active OpenTelemetry context: with `ai` 6 and `experimental_telemetry` that is
 * the SDK's own `ai.generateText` / `ai.streamText` span (the SDK runs `prepareStep` inside it);
 * with `ai` 7 (`@ai-sdk/otel`) the SDK does not make its spans active around `prepareStep`, so it
 * is the caller's span around the call. The tracer is the caller's (the one given to the AI SDK);
 * without one, `@opentelemetry/api`'s global tracer "retrace" (an optional peer, loaded on first use).
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { RecoveryReport } from "@retrace-cua/core/runtime/recovery-report";
import type { DegradedEvent } from "@retrace-cua/core/runtime/events";

/** The part of an OpenTelemetry `Tracer` used here (any `@opentelemetry/api` 1.x tracer fits). */
export interface TracerLike {
  startSpan(
    name: string,
    options?: { attributes?: Record<string, string | number | boolean>; startTime?: number },
  ): { end(endTime?: number): void; setStatus?(status: { code: number; message?: string }): unknown };
}

/** OpenTelemetry's `SpanStatusCode.ERROR`. */
const STATUS_ERROR = 2;

/** Telemetry settings, as the AI SDK's `experimental_telemetry`. */
export interface RecoveryTelemetry {
  /** @default true when `telemetry` is given */
  isEnabled?: boolean;
  /** The tracer the AI SDK is given. @default `trace.getTracer("retrace")` of `@opentelemetry/api` */
  tracer?: TracerLike;
  /** Recorded as `ai.telemetry.functionId`, as the AI SDK does. */
  functionId?: string;
}

/** Name of the span of one recovery. */
export const RECOVERY_SPAN = "retrace.recovery";

/** The span attributes of a report. */
export function recoverySpanAttributes(
  r: RecoveryReport,
  functionId?: string,
): Record<string, string | number | boolean> {
  return {
    ...(functionId !== undefined && { "ai.telemetry.functionId": functionId }),
    "retrace.task.id": r.taskId,
    "retrace.recovery.attempt": r.attempt,
    "retrace.recovery.restoration": r.restoration,
    /** @deprecated The old key of `retrace.recovery.restoration` (same value); set until the next release. */
    "retrace.recovery.mode": r.restoration,
    "retrace.recovery.error_step": r.errorStep,
    "retrace.recovery.recovery_step": r.recoveryStep,
    "retrace.recovery.detected_at_step": r.detectedAtStep,
    "retrace.recovery.confidence": r.confidence,
    "retrace.recovery.restored": r.restored,
    "retrace.recovery.confirmation": r.confirmation,
    "retrace.recovery.steps": r.steps,
    "retrace.recovery.context_cut": r.contextCut,
    "retrace.recovery.notice": r.notice ?? "",
    "retrace.recovery.unconfirmed_restoration": r.unconfirmedRestoration,
    "retrace.recovery.input_tokens": r.inputTokens,
    "retrace.recovery.output_tokens": r.outputTokens,
    "retrace.recovery.detail": r.detail,
    "retrace.detector.reason": r.reason,
  };
}

/** A reporter that records each recovery as a span, or undefined when telemetry is off. */
export function spanReporter(
  telemetry: RecoveryTelemetry | undefined,
): ((r: RecoveryReport) => Promise<void>) | undefined {
  if (!telemetry || telemetry.isEnabled === false) return undefined;
  let tracer: TracerLike | undefined = telemetry.tracer;
  return async (r) => {
    tracer ??= await globalTracer();
    tracer
      .startSpan(RECOVERY_SPAN, { attributes: recoverySpanAttributes(r, telemetry.functionId), startTime: r.startedAt })
      .end(r.endedAt);
  };
}

/**
 * A listener that records recovery becoming degraded (`degradedAfter` failed detector calls in a
 * row) as a `retrace.recovery` span with `retrace.recovery.degraded: true`, the judge's endpoint
 * and the last failure, and the ERROR status; undefined when telemetry is off.
 */
export function degradedSpanReporter(
  telemetry: RecoveryTelemetry | undefined,
): ((e: DegradedEvent) => Promise<void>) | undefined {
  if (!telemetry || telemetry.isEnabled === false) return undefined;
  let tracer: TracerLike | undefined = telemetry.tracer;
  return async (e) => {
    tracer ??= await globalTracer();
    const span = tracer.startSpan(RECOVERY_SPAN, {
      attributes: {
        ...(telemetry.functionId !== undefined && { "ai.telemetry.functionId": telemetry.functionId }),
        "retrace.task.id": e.taskId,
        "retrace.recovery.degraded": true,
        "retrace.detector.failures": e.failures,
        "retrace.detector.endpoint": e.endpoint,
        "retrace.detector.last_failure": e.lastFailure,
        "retrace.recovery.on_detector_failure": e.action,
      },
    });
    span.setStatus?.({
      code: STATUS_ERROR,
      message: `recovery degraded: the error detector ${e.endpoint} failed ${e.failures} times in a row`,
    });
    span.end();
  };
}

async function globalTracer(): Promise<TracerLike> {
  try {
    const api = await import("@opentelemetry/api");
    return api.trace.getTracer("retrace");
  } catch {
    throw new ConfigError(
      'retrace/ai-sdk: option "telemetry" without a tracer needs @opentelemetry/api: npm install @opentelemetry/api',
      { field: "telemetry" },
    );
  }
}
