/**
 * A fresh abort signal for one call to code that listens on the signal it is given and never
 * stops listening (the openai and @anthropic-ai/sdk clients add an "abort" listener per request
 * and never remove it; LangChain does the same). Handing them an episode's long-lived signal
 * piles one listener per call onto it: Node's MaxListenersExceededWarning after 10 calls, and
 * every finished call's closure kept alive until the episode ends. The child signal aborts with
 * the parent's reason, and its one listener on the parent is removed when the call settles.
 */

/**
 * Run `fn` with a per-call child of `signal` (undefined when there is no signal). The parent
 * carries at most one listener per call in flight, never one per call made.
 */
export async function withCallSignal<T>(
  signal: AbortSignal | undefined,
  fn: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!signal) return fn(undefined);
  const child = new AbortController();
  const forward = () => child.abort(signal.reason);
  if (signal.aborted) child.abort(signal.reason);
  else signal.addEventListener("abort", forward, { once: true });
  try {
    return await fn(child.signal);
  } finally {
    signal.removeEventListener("abort", forward);
  }
}
