/**
 * A `fetch` whose deadline covers the whole answer, body and stream included (issue 41). The
 * openai and @anthropic-ai/sdk clients clear their `timeout` as soon as the headers arrive, so a
 * server that sends headers and then trickles bytes forever keeps a call (and the run) busy past
 * any `--timeout-ms`. Every model client hands this to its SDK (`fetch` option): each attempt gets
 * `timeoutMs` from the request until the last byte of the body; past it the body read fails with
 * a TimeoutError, which the clients report as "timed out after N ms" like a header timeout.
 */

import { AsyncLocalStorage } from "node:async_hooks";

/** HTTP attempts of one logical call (the SDK's retries included), counted by {@link deadlineFetch}. */
export interface AttemptCount {
  attempts: number;
}
const ATTEMPTS = new AsyncLocalStorage<AttemptCount>();

/**
 * Run `call` counting the HTTP requests {@link deadlineFetch} sends for it (first try + the
 * client's retries); an aborted call sends none after its abort (the SDKs do not retry an abort).
 */
export async function countingAttempts<T>(
  call: () => Promise<T>,
): Promise<{ value: T; attempts: number } | { error: unknown; attempts: number }> {
  const count: AttemptCount = { attempts: 0 };
  try {
    return { value: await ATTEMPTS.run(count, call), attempts: count.attempts };
  } catch (error) {
    return { error, attempts: count.attempts };
  }
}

/** Statuses whose Response may not carry a body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The error a body read fails with when the deadline passes. */
export function bodyDeadlineError(timeoutMs: number): DOMException {
  return new DOMException(
    `the answer did not finish within ${timeoutMs} ms (headers arrived, the body kept coming)`,
    "TimeoutError",
  );
}

/**
 * Wrap `base` (default: the global fetch) so that each call ends, headers and body, within
 * `timeoutMs`. The caller's own signal still aborts it at any time.
 */
export function deadlineFetch(timeoutMs: number, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const count = ATTEMPTS.getStore();
    if (count) count.attempts++;
    const controller = new AbortController();
    const outer = init?.signal ?? undefined;
    const onOuter = () => controller.abort(outer?.reason);
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", onOuter, { once: true });
    const timer = setTimeout(() => controller.abort(bodyDeadlineError(timeoutMs)), timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuter);
    };
    let res: Response;
    try {
      res = await base(input, { ...init, signal: controller.signal });
    } catch (err) {
      settle();
      throw err;
    }
    if (!res.body || NULL_BODY.has(res.status)) {
      settle();
      return res;
    }
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(out) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            settle();
            out.close();
          } else out.enqueue(value);
        } catch (err) {
          settle();
          // undici fails the read with the abort reason; say which deadline it was either way.
          out.error(controller.signal.aborted ? controller.signal.reason : err);
        }
      },
      cancel(reason) {
        settle();
        return reader.cancel(reason);
      },
    });
    const wrapped = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperty(wrapped, "url", { value: res.url });
    return wrapped;
  };
}
