/**
 * Fail-safe detector calls. A detector that throws, times out or returns garbage yields a
 * `noDetection` with `failure` set: logged and counted, never a recovery, never a crash.
 */
import { z } from "zod";
import { noDetection, type Detection, type DetectorInput, type ErrorDetector } from "../detector.ts";
import type { EpisodeAccounting } from "../episode.ts";
import { describeError, DetectorUnavailableError } from "../errors.ts";
import { logger, plainWarning } from "../logger.ts";
import type { EpisodeEvents } from "./events.ts";
import { checkUserResult } from "./user-results.ts";

const DetectionSchema = z.object({
  isError: z.boolean(),
  errorStep: z.number().int().nullable(),
  reason: z.string(),
  confidence: z.number().min(0).max(1),
  failure: z.string().optional(),
  usage: z.array(z.any()).optional(),
  prompt: z.string().optional(),
  cascade: z.object({ gates: z.array(z.string()), asked: z.boolean(), firedBy: z.string().optional() }).optional(),
});

/**
 * Default time limit of one detector call: 30 s. A judge answers one step in a few seconds (a
 * hosted model with a screenshot, 2-10 s); the policy's own call may take longer, but a judge
 * that needs more than 30 s for one verdict is failing, and each step waits for it. The model
 * client's per-attempt timeout (120 s) stays the outer bound of any single request.
 */
export const DEFAULT_DETECTOR_TIMEOUT_MS = 30_000;

const DETECTION_SHAPE = "{ isError: boolean, errorStep: number | null, reason: string, confidence: number in [0, 1] }";

/** The outcome of one guarded detector call. */
export interface GuardedDetection {
  detection: Detection;
  /** True when the detector failed (threw, timed out, returned garbage or an impossible step). */
  failed: boolean;
}

/**
 * True when recovery is already degraded (the streak has reached `degradedAfter`): the next failure is not logged per
 * step again.
 */
export function degradedNow(acc: EpisodeAccounting, degradedAfter: number): boolean {
  return (acc.detectorFailStreak ?? 0) >= degradedAfter;
}

/**
 * Call the detector with a time limit and validate its answer. An error step outside the history
 * (0..step-1) counts as garbage. The returned detection is always safe to act on.
 */
export async function guardedDetect(
  detector: ErrorDetector,
  input: DetectorInput,
  timeoutMs: number,
  opts: { quiet?: boolean } = {},
): Promise<GuardedDetection> {
  let raw: unknown;
  // The call's own signal aborts it at the deadline: a timed-out request is cancelled (and never
  // retried behind the runtime's back by an SDK that keeps going), not merely raced.
  const deadline = new AbortController();
  const signal = input.signal ? AbortSignal.any([input.signal, deadline.signal]) : deadline.signal;
  const message = `detector ${detector.name} timed out after ${timeoutMs} ms`;
  try {
    raw = await withTimeout(detector.detect({ ...input, signal }), timeoutMs, message, () =>
      deadline.abort(new DOMException(message, "AbortError")),
    );
  } catch (err) {
    return fail(detector, input, describeError(err), opts.quiet);
  }
  const checked = checkUserResult(`detector.detect() (${detector.name})`, raw, DetectionSchema, DETECTION_SHAPE);
  if (!checked.ok) return fail(detector, input, checked.reason, opts.quiet, usageOf(raw));
  const d = checked.value as Detection;
  if (d.failure) {
    log(opts.quiet)(
      { detector: detector.name, task: input.task.id, step: input.step, failure: d.failure },
      "detector failed; continuing without recovery",
    );
    return { detection: { ...noDetection(d.reason, d.failure), usage: d.usage, prompt: d.prompt }, failed: true };
  }
  if (d.isError && (d.errorStep === null || d.errorStep < 0 || d.errorStep >= input.step)) {
    return fail(
      detector,
      input,
      `error step ${String(d.errorStep)} is outside the history 0..${input.step - 1}`,
      opts.quiet,
      d.usage,
      d.prompt,
    );
  }
  return { detection: d, failed: false };
}

/**
 * Failures are logged as warnings until recovery is degraded, then at debug level: the degraded warning said it once.
 */
function log(quiet: boolean | undefined): (fields: object, msg: string) => void {
  return quiet ? logger.debug : logger.warn;
}

function fail(
  detector: ErrorDetector,
  input: DetectorInput,
  failure: string,
  quiet?: boolean,
  usage?: Detection["usage"],
  prompt?: string,
): GuardedDetection {
  log(quiet)(
    { detector: detector.name, task: input.task.id, step: input.step, failure },
    "detector failed; continuing without recovery",
  );
  const detection = noDetection("detector failed", failure);
  if (usage) detection.usage = usage;
  if (prompt) detection.prompt = prompt;
  return { detection, failed: true };
}

function usageOf(raw: unknown): Detection["usage"] | undefined {
  if (raw && typeof raw === "object" && Array.isArray((raw as { usage?: unknown }).usage))
    return (raw as { usage: Detection["usage"] }).usage;
  return undefined;
}

/**
 * Reject with `message` when `p` does not settle within `ms` (0 or Infinity = no limit); `onTimeout` runs first (abort
 * the call there).
 */
export async function withTimeout<T>(p: Promise<T>, ms: number, message: string, onTimeout?: () => void): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return p;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          onTimeout?.();
          reject(new Error(message));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@link trackDetectorHealth} needs besides the accounting. */
export interface DetectorHealthContext {
  detector: ErrorDetector;
  detection: Detection;
  failed: boolean;
  taskId: string;
  step: number;
  events: EpisodeEvents;
  /** Failed calls in a row that make recovery degraded (`degradedAfter`). */
  degradedAfter: number;
  /** `"fail"` throws a DetectorUnavailableError once degraded; `"continue"` goes on unjudged. */
  onDetectorFailure: "continue" | "fail";
}

/**
 * After one guarded detector call: count the failure streak in the (checkpointed, flat)
 * accounting and, when it reaches `degradedAfter`, report recovery as degraded: `accounting.degraded`
 * +1, a `degraded` event, ONE plain warning line; then with `onDetectorFailure: "fail"` throw a
 * DetectorUnavailableError naming the judge's endpoint. An answered call ends the streak.
 */
export function trackDetectorHealth(acc: EpisodeAccounting, h: DetectorHealthContext): EpisodeAccounting {
  if (!h.failed) return acc.detectorFailStreak ? { ...acc, detectorFailStreak: 0 } : acc;
  const failures = (acc.detectorFailStreak ?? 0) + 1;
  const next: EpisodeAccounting = { ...acc, detectorFailStreak: failures };
  if (failures < h.degradedAfter) return next;
  const endpoint = h.detector.endpoint ?? h.detector.name;
  const lastFailure = h.detection.failure ?? h.detection.reason;
  if (failures === h.degradedAfter) {
    next.degraded = (acc.degraded ?? 0) + 1;
    h.events.emit("degraded", {
      taskId: h.taskId,
      step: h.step,
      failures,
      detector: h.detector.name,
      endpoint,
      lastFailure,
      action: h.onDetectorFailure,
    });
    plainWarning(
      `recovery is DEGRADED for task ${h.taskId}: the error detector ${endpoint} failed ${failures} times in a row (last: ${lastFailure.slice(0, 300)}); ` +
        (h.onDetectorFailure === "fail"
          ? 'stopping the run (onDetectorFailure: "fail")'
          : 'the agent continues unjudged (onDetectorFailure: "continue")'),
    );
  }
  if (h.onDetectorFailure === "fail")
    throw new DetectorUnavailableError(
      `the error detector ${endpoint} failed ${failures} times in a row (last: ${lastFailure.slice(0, 300)}); fix or replace the judge endpoint, or set onDetectorFailure: "continue"`,
      { endpoint, failures },
    );
  return next;
}
