/**
 * A scripted OpenAI-compatible HTTP server for tests (ours and users'): it listens on
 * 127.0.0.1 on a free port, answers `POST /v1/chat/completions`, `/v1/responses` (OpenAI
 * computer use), `/v1/messages` (Anthropic, also streamed as server-sent events when the request
 * asks for `stream: true`) and `/v1/embeddings` from a script of recorded model outputs, records
 * every request (with the images it carried, decoded), can inject HTTP errors and slow or hung
 * answers, and fails loudly: an unexpected request is answered with HTTP 400 (not retried by SDKs)
 * and makes {@link ScriptedOpenAIServer.verify} throw, as do unconsumed steps and failed
 * `expect` checks. A Responses request with `stream: true` is answered as server-sent events
 * (./responses-stream.ts), an Anthropic one as ./anthropic-stream.ts. The script's types are in
 * ./script-types.ts (re-exported here), the answer bodies in ./scripted-answers.ts, the decoding of a
 * request's images in ./request-images.ts. Modelled on openai-agents-js's `ScriptedModel`, but over real HTTP.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { closeServer, listenLoopback, modelList, readBody, sendJson } from "./http.ts";
import { sendResponsesStream } from "./responses-stream.ts";
import { sendAnthropicStream, type AnthropicMessage } from "./anthropic-stream.ts";
import { answerBody } from "./scripted-answers.ts";
import { collectImages } from "./request-images.ts";
import type { RecordedRequest, ScriptedEndpoint, ScriptStep } from "./script-types.ts";
import { AdapterError } from "@retrace-cua/core/errors";
export type { ReceivedImage, RecordedRequest, ScriptedEndpoint, ScriptedUsage, ScriptStep } from "./script-types.ts";

/** Options for {@link startScriptedOpenAIServer}. */
export interface ScriptedOpenAIServerOptions {
  /** The answers, consumed in order. More can be added with `push`. @default [] */
  script?: ScriptStep[];
  /** Model name used in answers when the request has none. @default "scripted-model" */
  model?: string;
  /**
   * Choose the answer from the request instead of the script's order, e.g. one queue per role
   * when several agents share the server: return the step, or undefined for "unexpected".
   * The script is not consulted when this is given. @default none
   */
  responder?: (request: RecordedRequest) => ScriptStep | undefined;
  /**
   * Status of `GET /v1/models` (the endpoint preflight); 200 lists `model`. A list gives the status
   * of each request in turn, the last one repeating (e.g. `[429, 429, 200]`). @default 200
   */
  modelsStatus?: number | number[];
  /**
   * With an error status on `GET /v1/models`: send `retry-after-ms` (and `retry-after` in whole seconds). @default none
   */
  modelsRetryAfterMs?: number;
  /** With an error status on `GET /v1/models`: the error body's `code` (e.g. "insufficient_quota"). @default none */
  modelsErrorCode?: string;
}

/** A running scripted server. */
export interface ScriptedOpenAIServer {
  /** Base URL for OpenAI SDKs, ending in `/v1`. */
  readonly url: string;
  /** Base URL without `/v1` (what the Anthropic SDK wants). */
  readonly origin: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Number of requests received (including errors and unexpected ones), `GET /v1/models` excluded. */
  readonly calls: number;
  /** Number of `GET /v1/models` requests (endpoint preflights); not in `requests`. */
  readonly modelListCalls: number;
  /** Problems seen so far (unexpected requests, failed expectations). */
  readonly problems: string[];
  /** Append steps to the script. */
  push(...steps: ScriptStep[]): void;
  /** Steps not yet consumed. */
  remaining(): number;
  /** Throw if any request was unexpected, any expectation failed, or steps are left unconsumed. */
  verify(options?: { allowUnconsumed?: boolean }): void;
  /** Stop listening and drop open connections. */
  close(): Promise<void>;
}

const ENDPOINTS: [string, ScriptedEndpoint][] = [
  ["/chat/completions", "chat"],
  ["/responses", "responses"],
  ["/messages", "messages"],
  ["/embeddings", "embeddings"],
];

/** Start a scripted server on 127.0.0.1 with a free port. */
export async function startScriptedOpenAIServer(
  options: ScriptedOpenAIServerOptions = {},
): Promise<ScriptedOpenAIServer> {
  const script = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const defaultModel = options.model ?? "scripted-model";

  let modelListCalls = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const path = (req.url ?? "").split("?")[0];
    if (req.method === "GET" && path.endsWith("/models")) {
      const statuses = options.modelsStatus ?? 200;
      const status = Array.isArray(statuses)
        ? (statuses[Math.min(modelListCalls, statuses.length - 1)] ?? 200)
        : statuses;
      modelListCalls++;
      if (status === 200) return sendJson(res, 200, modelList(defaultModel, "scripted"));
      const wait = options.modelsRetryAfterMs;
      const headers: Record<string, string> =
        wait !== undefined ? { "retry-after-ms": String(wait), "retry-after": String(Math.ceil(wait / 1000)) } : {};
      const type = status === 429 ? "rate_limit_error" : "server_error";
      return sendJson(
        res,
        status,
        {
          error: {
            message: `scripted error ${status}`,
            type,
            ...(options.modelsErrorCode ? { code: options.modelsErrorCode } : {}),
          },
        },
        headers,
      );
    }
    const endpoint = ENDPOINTS.find(([suffix]) => path.endsWith(suffix))?.[1] ?? "unknown";
    let body: any = undefined;
    try {
      body = raw.length ? JSON.parse(raw.toString("utf8")) : undefined;
    } catch {
      body = raw.toString("utf8");
    }
    const record: RecordedRequest = {
      index: requests.length,
      endpoint,
      path,
      headers: { ...req.headers },
      body,
      images: collectImages(body),
    };
    requests.push(record);

    const fail = (message: string) => {
      problems.push(message);
      sendJson(res, 400, {
        error: { message: `scripted server: ${message}`, type: "invalid_request_error", code: "scripted_unexpected" },
      });
    };
    if (req.method !== "POST" || endpoint === "unknown")
      return fail(`request #${record.index} ${req.method} ${path} is not a supported endpoint`);
    let step: ScriptStep | undefined;
    if (options.responder) {
      try {
        step = options.responder(record);
      } catch (err) {
        return fail(`request #${record.index}: the responder failed: ${(err as Error).message}`);
      }
      if (!step) return fail(`request #${record.index} to ${path}: the responder has no answer for it`);
    } else step = script.shift();
    if (!step) return fail(`request #${record.index} to ${path} arrived but the script has no steps left`);
    record.step = step;
    if (step.endpoint && step.endpoint !== endpoint)
      return fail(`request #${record.index} went to ${endpoint} but the next step expects ${step.endpoint}`);
    if (step.expect) {
      try {
        step.expect(record);
      } catch (err) {
        return fail(`request #${record.index} failed its expectation: ${(err as Error).message}`);
      }
    }
    const answer = () => {
      if (res.destroyed || res.writableEnded) return;
      if (step.status && step.status >= 400) {
        const headers: Record<string, string> = {};
        if (step.retryAfterMs !== undefined) {
          headers["retry-after-ms"] = String(step.retryAfterMs);
          headers["retry-after"] = String(step.retryAfterMs / 1000); // LangChain reads only this one
        }
        const message = step.errorMessage ? step.errorMessage(record) : `scripted error ${step.status}`;
        return sendJson(
          res,
          step.status,
          { error: { message, type: step.status === 429 ? "rate_limit_error" : "server_error" } },
          headers,
        );
      }
      const answer_ = step.body ?? answerBody(endpoint, step, body, record.index, defaultModel, raw.length);
      if (endpoint === "responses" && body?.stream === true && !step.body)
        return sendResponsesStream(res, answer_ as Record<string, unknown>);
      if (endpoint === "messages" && body?.stream === true)
        return sendAnthropicStream(res, answer_ as AnthropicMessage);
      sendJson(res, step.status ?? 200, answer_);
    };
    const delay = step.delayMs ?? 0;
    if (delay === Infinity) return; // hang: never answer
    if (step.trickleMs !== undefined) {
      const every = Math.max(1, step.trickleMs);
      res.writeHead(200, { "content-type": body?.stream === true ? "text/event-stream" : "application/json" });
      res.flushHeaders();
      const t = setInterval(() => {
        if (res.destroyed || res.writableEnded) {
          clearInterval(t);
          timers.delete(t);
        } else res.write(" ");
      }, every);
      timers.add(t);
      return;
    }
    if (delay > 0) {
      const t = setTimeout(() => {
        timers.delete(t);
        answer();
      }, delay);
      timers.add(t);
    } else {
      answer();
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      problems.push(`server error: ${(err as Error).message}`);
      if (!res.headersSent) sendJson(res, 500, { error: { message: "scripted server crashed" } });
    });
  });
  const origin = await listenLoopback(server);

  return {
    url: `${origin}/v1`,
    origin,
    requests,
    problems,
    get calls() {
      return requests.length;
    },
    get modelListCalls() {
      return modelListCalls;
    },
    push: (...steps) => void script.push(...steps),
    remaining: () => script.length,
    verify(opts = {}) {
      const issues = [...problems];
      if (!opts.allowUnconsumed && script.length) issues.push(`${script.length} scripted step(s) were never requested`);
      if (issues.length) throw new AdapterError(`scripted server: ${issues.join("; ")}`);
    },
    async close() {
      for (const t of timers) clearTimeout(t); // clears intervals too
      timers.clear();
      await closeServer(server);
    },
  };
}
