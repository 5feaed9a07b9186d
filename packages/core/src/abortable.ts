/**
 * Running a user-supplied function (a task checker, a restore routine, a recovery sub-agent) under
 * the episode's `signal` (issue 31): the caller stops waiting as soon as the signal aborts, whether
 * or not the function looks at the signal it was given. A function that never answers then ends at
 * the episode's deadline, never at some later, unrelated one.
 */

/** The signal's reason as an Error (AbortSignal.timeout gives a DOMException "TimeoutError"). */
function abortReason(signal: AbortSignal, what: string): Error {
  const r = signal.reason as unknown;
  const why = r instanceof Error ? r.message : r === undefined ? "aborted" : String(r);
  return Object.assign(new Error(`${what} did not finish before the episode was stopped (${why})`), {
    name: "AbortError",
    cause: r,
  });
}

/** `work`, or a rejection as soon as `signal` aborts (already aborted: at once). */
export function untilAborted<T>(work: Promise<T> | T, signal: AbortSignal | undefined, what: string): Promise<T> {
  const p = Promise.resolve(work);
  if (!signal) return p;
  if (signal.aborted) {
    p.catch(() => undefined); // the abandoned call may still reject later; nobody waits for it
    return Promise.reject(abortReason(signal, what));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal, what));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
