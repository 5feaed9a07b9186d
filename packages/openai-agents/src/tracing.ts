/**
 * Recoveries in the Agents SDK's own trace: each one becomes a custom span `retrace.recovery`,
 * a child of the span that is current when retrace's `callModelInputFilter` runs (inside the
 * run's trace), so any `TracingProcessor` the user registered sees it beside the SDK's agent,
 * response and tool spans. Its data: the error step E, the recovery step R, the attempt, the
 * restoration mode, the detector's confidence and reason, whether the state was restored, the
 * recovery steps taken, the context cut (`from` -> `to` steps) and the tokens the detection,
 * selection and recovery used, and `degraded` (the detector was failing when it started). When
 * recovery becomes degraded (`degradedAfter` failed detector calls in a row) a `retrace.recovery`
 * span with `degraded: true`, the judge's endpoint and the last failure is recorded with the
 * error status (`span.error`), so an alert on errored spans sees it. Without an active trace
 * (tracing disabled) the SDK hands out a no-op span and nothing is recorded.
 */
import { createCustomSpan, type CustomSpanData, type Span } from "@openai/agents";
import type { EpisodeAccounting } from "@retrace-cua/core/episode";
import type { EpisodeEvents } from "@retrace-cua/core/runtime/events";

/** Name of the custom span of one recovery. */
export const RECOVERY_SPAN_NAME = "retrace.recovery";

/** Input and output tokens summed over every model role of `a`. */
function tokens(a: EpisodeAccounting): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const u of Object.values(a.models)) {
    input += u?.inputTokens ?? 0;
    output += u?.outputTokens ?? 0;
  }
  return { input, output };
}

/**
 * Opens a span when a recovery starts (from the episode's events) and closes it when the wrapper has applied the cut.
 */
export class RecoverySpans {
  private span: Span<CustomSpanData> | undefined;
  private detection: { confidence: number; reason: string } | undefined;
  private before = { input: 0, output: 0 };

  constructor(events: EpisodeEvents) {
    events.on("detection", (e) => {
      if (e.triggered) this.detection = { confidence: e.detection.confidence, reason: e.detection.reason };
    });
    events.on("recovery-start", (e) => {
      this.span = createCustomSpan({
        data: {
          name: RECOVERY_SPAN_NAME,
          data: {
            errorStep: e.errorStep,
            recoveryStep: e.recoveryStep,
            attempt: e.attempt,
            restoration: e.restoration,
            mode: e.restoration,
            confidence: this.detection?.confidence ?? null,
            reason: this.detection?.reason ?? "",
            degraded: this.degraded,
          },
        },
      });
      this.span.start();
    });
    events.on("recovery-end", (e) => {
      if (this.span)
        Object.assign(this.span.spanData.data, {
          restored: e.restored,
          confirmation: e.confirmation,
          recoverySteps: e.steps,
          restoreDetail: e.reason,
          cut: null,
        });
    });
    events.on("truncate", (e) => {
      if (this.span) this.span.spanData.data.cut = { from: e.from, to: e.to };
    });
    // Degraded recovery is a span of its own, with the error status, so a trace-based alert sees it.
    events.on("degraded", (e) => {
      this.degraded = true;
      const span = createCustomSpan({
        data: {
          name: RECOVERY_SPAN_NAME,
          data: {
            degraded: true,
            failures: e.failures,
            step: e.step,
            detector: e.detector,
            endpoint: e.endpoint,
            lastFailure: e.lastFailure,
            onDetectorFailure: e.action,
          },
        },
      });
      span.start();
      span.setError({
        message: `recovery degraded: the error detector ${e.endpoint} failed ${e.failures} times in a row`,
        data: { endpoint: e.endpoint, failures: e.failures },
      });
      span.end();
    });
    events.on("detection", (e) => {
      if (!e.detection.failure) this.degraded = false;
    });
  }

  /**
   * True while the detector's failure streak has reached `degradedAfter` (recorded as `degraded` on recovery spans).
   */
  private degraded = false;

  /** Call before the step core consults the detector for new steps (tokens are counted from here). */
  begin(accounting: EpisodeAccounting): void {
    this.before = tokens(accounting);
  }

  /** Close the open span, if a recovery started since `begin`, with the tokens used. */
  end(accounting: EpisodeAccounting): void {
    const span = this.span;
    this.span = undefined;
    this.detection = undefined;
    if (!span) return;
    const now = tokens(accounting);
    Object.assign(span.spanData.data, {
      inputTokens: now.input - this.before.input,
      outputTokens: now.output - this.before.output,
    });
    span.end();
  }
}
