/**
 * Fail-safe detector calls. A detector that throws, times out or returns garbage yields a
 * `noDetection` with `failure` set: logged and counted, never a recovery, never a crash.
 */
import { z } from "zod";
import { noDetection, type Detection, type DetectorInput, type ErrorDetector } from "../detector.ts";
import { describeError } from "../errors.ts";
import { logger } from "../logger.ts";
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

const DETECTION_SHAPE = "{ isError: boolean, errorStep: number | null, reason: string, confidence: number in [0, 1] }";

/** The outcome of one guarded detector call. */
export interface GuardedDetection {
  detection: Detection;
  /** True when the detector failed (threw, timed out, returned garbage or an impossible step). */
  failed: boolean;
}

/**
 * Call the detector with a time limit and validate its answer. An error step outside the history
 * (0..step-1) counts as garbage. The returned detection is always safe to act on.
 */
export async function guardedDetect(detector: ErrorDetector, input: DetectorInput, timeoutMs: number): Promise<GuardedDetection> {
  let raw: unknown;
  try {
    raw = await withTimeout(detector.detect(input), timeoutMs, `detector ${detector.name} timed out after ${timeoutMs} ms`);
  } catch (err) {
    return fail(detector, input, describeError(err));
  }
  const checked = checkUserResult(`detector.detect() (${detector.name})`, raw, DetectionSchema, DETECTION_SHAPE);
  if (!checked.ok) return fail(detector, input, checked.reason, usageOf(raw));
  const d = checked.value as Detection;
  if (d.failure) return { detection: { ...noDetection(d.reason, d.failure), usage: d.usage, prompt: d.prompt }, failed: true };
  if (d.isError && (d.errorStep === null || d.errorStep < 0 || d.errorStep >= input.step)) {
    return fail(detector, input, `error step ${String(d.errorStep)} is outside the history 0..${input.step - 1}`, d.usage, d.prompt);
  }
  return { detection: d, failed: false };
}

function fail(detector: ErrorDetector, input: DetectorInput, failure: string, usage?: Detection["usage"], prompt?: string): GuardedDetection {
  logger.warn({ detector: detector.name, task: input.task.id, step: input.step, failure }, "detector failed; continuing without recovery");
  const detection = noDetection("detector failed", failure);
  if (usage) detection.usage = usage;
  if (prompt) detection.prompt = prompt;
  return { detection, failed: true };
}

function usageOf(raw: unknown): Detection["usage"] | undefined {
  if (raw && typeof raw === "object" && Array.isArray((raw as { usage?: unknown }).usage)) return (raw as { usage: Detection["usage"] }).usage;
  return undefined;
}

/** Reject with `message` when `p` does not settle within `ms` (0 or Infinity = no limit). */
export async function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return p;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
