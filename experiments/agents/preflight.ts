/**
 * Endpoint preflight: before the first episode of a model-backed run, each distinct endpoint is
 * asked once for its model list (`GET <baseUrl>/models`; Anthropic: `GET <origin>/v1/models`), so
 * an unreachable server, a wrong URL or a rejected key stops the run with one line naming the role
 * and URL, not after hours of failed calls. A 404/405 (servers without a model list) counts as
 * reachable.
 *
 * The preflight is no stricter than the calls it protects: 408/409/429/5xx and dropped connections
 * are retried with the calls' own policy (the OpenAI SDK's: `maxRetries` retries, 0.5 s doubling
 * up to 8 s with jitter, or the server's `retry-after-ms` / `Retry-After` when it asks for under a
 * minute), so a rate-limited hosted endpoint (the normal case on OpenRouter) can start. When the
 * answer stays 429 the line says "rate limited"; OpenAI's `insufficient_quota` 429 is not retried
 * and says "quota exhausted".
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { redactSecrets } from "@retrace-cua/models/models/redact";
import { DEFAULT_MODEL_RETRIES } from "./model-spec.ts";

/** One endpoint to check, and the config fields that use it. */
export interface Endpoint {
  baseUrl: string;
  backend: "openai" | "openai-responses" | "anthropic";
  apiKey?: string;
  /** e.g. ["config.pairs.0.forward", "config.pairs.0.detector"] */
  users: string[];
  /** Retries of a 429/5xx/connection failure, as the calls use them. @default 2 (DEFAULT_MODEL_RETRIES) */
  maxRetries?: number;
}

/** Options of {@link preflightEndpoints}. */
export interface PreflightOptions {
  /** Time limit of one attempt in ms. @default 15000 */
  timeoutMs?: number;
  /** @default globalThis.fetch */
  fetchImpl?: typeof fetch;
  /** Waits between attempts (tests may pass a recorder). @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

const RETRYABLE = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * How long to wait before retry number `retry` (0-based) of `maxRetries`: the server's
 * `retry-after-ms` or `Retry-After` (seconds or an HTTP date) when it is under a minute, else the
 * OpenAI SDK's default backoff (min(0.5 s * 2^retry, 8 s), minus up to 25 % jitter).
 */
export function retryDelayMs(headers: Headers | undefined, retry: number): number {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  let asked = Number.isFinite(ms) ? ms : undefined;
  const after = headers?.get("retry-after");
  if (asked === undefined && after) {
    const seconds = Number.parseFloat(after);
    asked = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
  }
  if (asked !== undefined && Number.isFinite(asked) && asked >= 0 && asked < 60_000) return asked;
  return Math.min(0.5 * 2 ** retry, 8) * (1 - Math.random() * 0.25) * 1000;
}

type Attempt = { status: number; headers: Headers; code?: string; notApi?: string } | { error: unknown };

/** Check every endpoint (in parallel, each with retries); throws a ConfigError for the first that fails. */
export async function preflightEndpoints(
  endpoints: readonly Endpoint[],
  options: PreflightOptions = {},
): Promise<void> {
  const problems = await Promise.all(endpoints.map((e) => checkEndpoint(e, options)));
  const first = problems.find((p) => p !== undefined);
  if (first)
    throw new ConfigError(
      redactSecrets(
        `endpoint preflight: ${first}`,
        endpoints.map((e) => e.apiKey),
      ),
      { field: "baseUrl" },
    );
}

async function checkEndpoint(e: Endpoint, options: PreflightOptions): Promise<string | undefined> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const doFetch = options.fetchImpl ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxRetries = e.maxRetries ?? DEFAULT_MODEL_RETRIES;
  const anthropic = e.backend === "anthropic";
  const base = e.baseUrl.replace(/\/+$/, "");
  const url = anthropic ? `${base.replace(/\/v1$/, "")}/v1/models` : `${base}/models`;
  const headers: Record<string, string> = anthropic
    ? { "x-api-key": e.apiKey ?? "", "anthropic-version": "2023-06-01" }
    : e.apiKey
      ? { authorization: `Bearer ${e.apiKey}` }
      : {};
  const who = e.users.join(", ");

  let last: Attempt = { error: new Error("not attempted") };
  let attempts = 0;
  for (let retry = 0; retry <= maxRetries; retry++) {
    if (retry > 0) await sleep(retryDelayMs("status" in last ? last.headers : undefined, retry - 1));
    attempts++;
    last = await attempt(doFetch, url, headers, timeoutMs);
    if ("error" in last) continue; // a dropped connection or a timeout: the SDK retries those too
    if (last.notApi)
      return `${who}: ${e.baseUrl} answered ${last.notApi} to GET ${url}, not an API; check --base-url (an OpenAI-compatible server's ends in /v1, e.g. http://127.0.0.1:8000/v1)`;
    if (last.status < 400 || last.status === 404 || last.status === 405) return undefined;
    if (last.code === "insufficient_quota") break;
    if (!RETRYABLE(last.status)) break;
  }
  const tries = `${attempts} attempt(s)`;
  if ("error" in last) {
    const err = last.error as Error & { cause?: { code?: string; message?: string } };
    const why =
      err.name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000} s`
        : (err.cause?.code ?? err.cause?.message ?? err.message);
    return `${who}: cannot reach ${e.baseUrl} (${why}) after ${tries}; check --base-url and that the server is running`;
  }
  const { status, code } = last;
  if (code === "insufficient_quota")
    return `${who}: ${e.baseUrl} says the quota is exhausted (HTTP 429 insufficient_quota); add credit to the account or use another key (apiKeyEnv / --api-key-env)`;
  if (status === 401 || status === 403)
    return `${who}: ${e.baseUrl} rejected the API key (HTTP ${status}); check the variable named by apiKeyEnv / --api-key-env`;
  if (status === 429)
    return `${who}: ${e.baseUrl} rate limited the run (HTTP 429 on every one of ${tries} of GET ${url}); wait and run again, or use fewer --workers or a less busy endpoint`;
  return `${who}: ${e.baseUrl} answered HTTP ${status} to GET ${url}${RETRYABLE(status) ? ` (${tries})` : ""}; check --base-url and that the server is healthy`;
}

async function attempt(
  doFetch: typeof fetch,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Attempt> {
  try {
    const res = await doFetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (res.ok) {
      const notApi = await notJson(res);
      return { status: res.status, headers: res.headers, ...(notApi ? { notApi } : {}) };
    }
    const code = res.status === 429 ? await errorCode(res) : (await res.body?.cancel().catch(() => {}), undefined);
    return { status: res.status, headers: res.headers, ...(code ? { code } : {}) };
  } catch (error) {
    return { error };
  }
}

/**
 * What a 200 answer is when it is not JSON ("an HTML page": a UI or proxy at that address, or /v1
 * left out of the base URL), or undefined for JSON.
 */
async function notJson(res: Response): Promise<string | undefined> {
  const type = res.headers.get("content-type") ?? "";
  if (type.includes("json")) {
    await res.body?.cancel().catch(() => {});
    return undefined;
  }
  const text = await res.text().catch(() => "");
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    const html = /^\s*<(!doctype html|html|head|body)/i.test(text) || type.includes("html");
    return html ? "an HTML page" : `${type || "text"} that is not JSON`;
  }
}

/** `error.code` or `error.type` of an OpenAI-style error body (e.g. "insufficient_quota"), if any. */
async function errorCode(res: Response): Promise<string | undefined> {
  try {
    const body = (await res.json()) as { error?: { code?: unknown; type?: unknown } };
    const c = body?.error?.code ?? body?.error?.type;
    return typeof c === "string" ? c : undefined;
  } catch {
    return undefined;
  }
}
