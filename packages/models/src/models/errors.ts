/**
 * Mapping vendor SDK failures (openai, @anthropic-ai/sdk, LangChain) onto our errors by their
 * shape, with secrets removed: HTTP status -> AdapterError (retryable for 408/409/429/5xx),
 * timeouts -> AdapterError naming the timeout, caller aborts -> the standard AbortError.
 */
import { AdapterError } from "@retrace-cua/core/errors";
import { redactSecrets } from "./redact.ts";

/** What to say in the message and what to redact. */
export interface ErrorContext {
  /** HTTP attempts actually made (counted by deadlineFetch). @default maxRetries + 1 */
  attempts?: number;
  /** E.g. "chat completion from gpt-4o". */
  what: string;
  timeoutMs: number;
  maxRetries: number;
  secrets: readonly (string | undefined)[];
}

/** The error to throw when the caller's signal aborted the call. */
export function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException("the model call was aborted", "AbortError");
}

/** Convert any SDK error into an AdapterError whose message holds no secrets. */
export function toAdapterError(err: unknown, ctx: ErrorContext): AdapterError {
  const e = err as { status?: unknown; name?: string; message?: string; constructor?: { name?: string } };
  const kind = `${e?.constructor?.name ?? ""} ${e?.name ?? ""}`;
  const attempts = ctx.attempts ?? ctx.maxRetries + 1;
  const detail = redactSecrets(String(e?.message ?? err).split("\n")[0], ctx.secrets);
  if (/Timeout/i.test(kind) || /timed? ?out/i.test(detail)) {
    return new AdapterError(`${ctx.what} timed out after ${ctx.timeoutMs} ms (${attempts} attempt(s))`, {
      retryable: true,
    });
  }
  if (typeof e?.status === "number") {
    const status = e.status;
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    const hint =
      status === 401 || status === 403
        ? " (check the API key and base URL)"
        : status === 404
          ? " (check the model name and base URL)"
          : "";
    return new AdapterError(
      `${ctx.what} failed with HTTP ${status}${retryable ? ` after ${attempts} attempt(s)` : ""}${hint}: ${detail}`,
      { retryable },
    );
  }
  if (/Connection/i.test(kind))
    return new AdapterError(`${ctx.what} could not connect (${attempts} attempt(s)): ${detail}`, { retryable: true });
  return new AdapterError(`${ctx.what} failed: ${detail}`, { retryable: false });
}
