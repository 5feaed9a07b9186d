/**
 * One guarded model call: a per-call timeout merged with the caller's AbortSignal, usage stamped
 * with role and prompt `id@version`, and errors returned as data so LLM-backed components can
 * fail safe instead of crashing an episode.
 */
import type { ChatModel, ChatRequest, ChatResponse } from "@retrace-cua/core/model";
import { describeError } from "@retrace-cua/core/errors";

/** Result of {@link callModel}. */
export type CallResult = { ok: true; response: ChatResponse } | { ok: false; error: string; aborted: boolean };

/** Options of {@link callModel}. */
export interface CallOptions {
  /** Abort the call after this many ms. @default undefined (the backend's own timeout) */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Call the model; never throws. A timeout or transport error comes back as `{ ok: false }`. */
export async function callModel(model: ChatModel, request: ChatRequest, opts: CallOptions = {}): Promise<CallResult> {
  const signals = [
    opts.signal,
    request.signal,
    opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined,
  ].filter((s): s is AbortSignal => s !== undefined);
  // Always a fresh per-call signal: vendor SDKs (openai, @anthropic-ai/sdk) add an "abort"
  // listener to the signal they get and never remove it, so handing them the episode's long-lived
  // signal piles up listeners call after call (MaxListenersExceededWarning after 10 calls).
  const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
  try {
    const response = await raceAbort(model.complete({ ...request, ...(signal ? { signal } : {}) }), signal);
    const usage = { ...response.usage, role: request.role, ...(request.prompt ? { prompt: request.prompt } : {}) };
    return { ok: true, response: { ...response, usage } };
  } catch (err) {
    const timedOut = signal?.aborted && signal.reason instanceof DOMException && signal.reason.name === "TimeoutError";
    const error = timedOut
      ? `model call timed out after ${opts.timeoutMs} ms`
      : `model call failed: ${describeError(err)}`;
    return { ok: false, error, aborted: Boolean(signal?.aborted) };
  }
}

/** Reject as soon as the signal aborts, even if the backend ignores it. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
