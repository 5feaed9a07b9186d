/**
 * Endpoint preflight: before the first episode of a model-backed run, each distinct endpoint is
 * asked once for its model list (`GET <baseUrl>/models`; Anthropic: `GET <origin>/v1/models`), so
 * an unreachable server, a wrong URL or a rejected key stops the run with one line naming the role
 * and URL, not after hours of failed calls. A 404/405 (servers without a model list) counts as
 * reachable.
 */
import { ConfigError } from "../../src/errors.ts";
import { redactSecrets } from "../../adapters/models/redact.ts";

/** One endpoint to check, and the config fields that use it. */
export interface Endpoint {
  baseUrl: string;
  backend: "openai" | "openai-responses" | "anthropic";
  apiKey?: string;
  /** e.g. ["config.pairs.0.forward", "config.pairs.0.detector"] */
  users: string[];
}

/** Check every endpoint once (in parallel); throws a ConfigError for the first that fails. */
export async function preflightEndpoints(endpoints: readonly Endpoint[], options: { timeoutMs?: number; fetchImpl?: typeof fetch } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const doFetch = options.fetchImpl ?? fetch;
  const problems = await Promise.all(
    endpoints.map(async (e) => {
      const anthropic = e.backend === "anthropic";
      const base = e.baseUrl.replace(/\/+$/, "");
      const url = anthropic ? `${base.replace(/\/v1$/, "")}/v1/models` : `${base}/models`;
      const headers: Record<string, string> = anthropic ? { "x-api-key": e.apiKey ?? "", "anthropic-version": "2023-06-01" } : e.apiKey ? { authorization: `Bearer ${e.apiKey}` } : {};
      try {
        const res = await doFetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
        if (res.ok) {
          // A 200 that is not JSON is a web page (a UI or proxy at that address, or /v1 left out).
          const type = res.headers.get("content-type") ?? "";
          const text = type.includes("json") ? "" : await res.text().catch(() => "");
          await res.body?.cancel().catch(() => {});
          if (type.includes("json")) return undefined;
          let json = true;
          try {
            JSON.parse(text);
          } catch {
            json = false;
          }
          if (json) return undefined;
          const html = /^\s*<(!doctype html|html|head|body)/i.test(text) || type.includes("html");
          return `${e.users.join(", ")}: ${e.baseUrl} answered ${html ? "an HTML page" : `${type || "text"} that is not JSON`} to GET ${url}, not an API; check --base-url (an OpenAI-compatible server's ends in /v1, e.g. http://127.0.0.1:8000/v1)`;
        }
        await res.body?.cancel().catch(() => {});
        if (res.status === 404 || res.status === 405) return undefined;
        if (res.status === 401 || res.status === 403) return `${e.users.join(", ")}: ${e.baseUrl} rejected the API key (HTTP ${res.status}); check the variable named by apiKeyEnv / --api-key-env`;
        return `${e.users.join(", ")}: ${e.baseUrl} answered HTTP ${res.status} to GET ${url}; check --base-url and that the server is healthy`;
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const why = (err as Error).name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (cause?.code ?? cause?.message ?? (err as Error).message);
        return `${e.users.join(", ")}: cannot reach ${e.baseUrl} (${why}); check --base-url and that the server is running`;
      }
    }),
  );
  const first = problems.find((p) => p !== undefined);
  if (first) throw new ConfigError(redactSecrets(`endpoint preflight: ${first}`, endpoints.map((e) => e.apiKey)), { field: "baseUrl" });
}
