/**
 * A scripted OpenAI-compatible HTTP server for tests (ours and users'): it listens on
 * 127.0.0.1 on a free port, answers `POST /v1/chat/completions`, `/v1/responses` (OpenAI
 * computer use), `/v1/messages` (Anthropic, also streamed as server-sent events when the request
 * asks for `stream: true`) and `/v1/embeddings` from a script of recorded model outputs, records
 * every request (with the images it carried, decoded), can inject HTTP errors and slow or hung
 * answers, and fails loudly: an unexpected request is answered with HTTP 400 (not retried by SDKs)
 * and makes {@link ScriptedOpenAIServer.verify} throw, as do unconsumed steps and failed
 * `expect` checks. A Responses request with `stream: true` is answered as server-sent events
 * (./responses-stream.ts). Modelled on openai-agents-js's `ScriptedModel`, but over real HTTP.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createHash } from "node:crypto";
import { closeServer, listenLoopback, modelList, readBody, sendJson } from "./http.ts";
import { sendResponsesStream } from "./responses-stream.ts";
import { AdapterError } from "@retrace-cua/core/errors";

/** Which API a request or step belongs to. */
export type ScriptedEndpoint = "chat" | "responses" | "messages" | "embeddings";

/**
 * Token counts a scripted answer reports in its `usage` field, each sent as the endpoint's own
 * field says (verbatim, in that API's convention):
 * - chat completions: `prompt_tokens` = inputTokens, `prompt_tokens_details.cached_tokens` =
 *   cachedInputTokens (OpenAI and vLLM count the cached tokens inside prompt_tokens);
 * - Responses: `input_tokens`, `input_tokens_details.cached_tokens` (the same way);
 * - Anthropic messages: `input_tokens` = inputTokens (Anthropic counts only the tokens after the
 *   last cache breakpoint there), `cache_read_input_tokens` = cachedInputTokens,
 *   `cache_creation_input_tokens` = cacheWriteInputTokens, on top of it.
 */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from a prompt cache, as the endpoint reports them. @default 0 */
  cachedInputTokens?: number;
  /** Anthropic only: prompt tokens written to the cache (`cache_creation_input_tokens`). @default 0 */
  cacheWriteInputTokens?: number;
  /**
   * Chat completions only: whose usage shape to send. `openai`: `prompt_tokens_details` always
   * (with `audio_tokens`) and `completion_tokens_details`; `vllm`: vLLM's OpenAI server with
   * `--enable-prompt-tokens-details`: `prompt_tokens_details: { cached_tokens }` when a cached
   * count is given, else `null`. @default "openai"
   */
  style?: "openai" | "vllm";
}

/** One scripted answer. Exactly one request consumes it, in order. */
export interface ScriptStep {
  /** The endpoint this step must be requested on; a request on another endpoint fails the script. @default any */
  endpoint?: ScriptedEndpoint;
  /** Assistant text (chat message content, a Responses `output_text`, an Anthropic text block). */
  text?: string;
  /** Responses API `output` items (e.g. a `computer_call`); `text` is added as a message item when also given. */
  output?: unknown[];
  /** Anthropic content blocks (e.g. a `tool_use` of the computer tool). */
  content?: unknown[];
  /**
   * Embedding vectors for `/v1/embeddings`, one per input text, in order (sent as floats, or as
   * base64 float32 when the request asks for `encoding_format: "base64"`); or a function of the
   * request's input texts (a deterministic stand-in embedding a test defines).
   */
  embeddings?: number[][] | ((inputs: string[]) => number[][]);
  /** The whole JSON body to answer with, verbatim (overrides text/output/content). */
  body?: unknown;
  /** Usage reported in the answer. `null` omits the usage field. @default estimated from the lengths (chars / 4) */
  usage?: ScriptedUsage | null;
  /** Answer with this HTTP error status instead (e.g. 429, 500). */
  status?: number;
  /** With `status`: send `retry-after-ms` (and `retry-after` in seconds) so SDK retries wait this long. */
  retryAfterMs?: number;
  /**
   * Wait this long before answering, in ms; `Infinity` never answers (the client must time out or abort). @default 0
   */
  delayMs?: number;
  /**
   * Send the status line and headers, then one space of body every `trickleMs` ms, forever: an
   * answer that never finishes (a client's deadline must cover the body, not only the headers).
   * @default none
   */
  trickleMs?: number;
  /**
   * With `status`: the error body's `message`, from the request (e.g. one echoing its API key). @default "scripted
   * error <status>"
   */
  errorMessage?: (request: RecordedRequest) => string;
  /** Check the request; a thrown error is recorded and reported by `verify()`, and the request gets HTTP 400. */
  expect?: (request: RecordedRequest) => void;
}

/** An image that arrived inside a request, decoded from its data URL or base64 source. */
export interface ReceivedImage {
  mediaType: string;
  bytes: Buffer;
  sha256: string;
  /** `detail` of an OpenAI image part, when given. */
  detail?: string;
}

/** One request as the server received it. */
export interface RecordedRequest {
  /** 0-based arrival order. */
  index: number;
  endpoint: ScriptedEndpoint | "unknown";
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body. */
  body: any;
  /** Every image carried by the request, in message order. */
  images: ReceivedImage[];
  /** The step that answered it, or undefined when it was unexpected. */
  step?: ScriptStep;
}

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

function answerBody(
  endpoint: ScriptedEndpoint | "unknown",
  step: ScriptStep,
  request: any,
  index: number,
  defaultModel: string,
  requestBytes: number,
): unknown {
  const model = typeof request?.model === "string" ? request.model : defaultModel;
  const text = step.text ?? "";
  const usage =
    step.usage === null
      ? undefined
      : (step.usage ?? {
          inputTokens: Math.ceil(requestBytes / 4),
          outputTokens: Math.max(
            1,
            Math.ceil((text.length + JSON.stringify(step.output ?? step.content ?? "").length) / 4),
          ),
        });
  if (endpoint === "responses") {
    const output: unknown[] = [];
    if (step.text !== undefined)
      output.push({
        type: "message",
        id: `msg_${index}`,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }],
      });
    output.push(...(step.output ?? []));
    return {
      id: `resp_scripted_${index}`,
      object: "response",
      created_at: 0,
      status: "completed",
      model,
      output,
      parallel_tool_calls: false,
      tool_choice: "auto",
      tools: [],
      error: null,
      incomplete_details: null,
      ...(usage && {
        usage: {
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
          input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
          output_tokens_details: { reasoning_tokens: 0 },
        },
      }),
    };
  }
  if (endpoint === "embeddings") {
    const base64 = request?.encoding_format === "base64";
    const inputs: string[] = Array.isArray(request?.input)
      ? request.input.map(String)
      : typeof request?.input === "string"
        ? [request.input]
        : [];
    const vectors = typeof step.embeddings === "function" ? step.embeddings(inputs) : (step.embeddings ?? []);
    const data = vectors.map((v, i) => ({
      object: "embedding",
      index: i,
      embedding: base64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v,
    }));
    const tokens = usage?.inputTokens ?? 0;
    return { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
  }
  if (endpoint === "messages") {
    const content = [...(step.text !== undefined ? [{ type: "text", text }] : []), ...(step.content ?? [])];
    const toolUse = content.some((c: any) => c?.type === "tool_use");
    return {
      id: `msg_scripted_${index}`,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: toolUse ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: usage
        ? {
            input_tokens: usage.inputTokens,
            output_tokens: usage.outputTokens,
            cache_read_input_tokens: usage.cachedInputTokens ?? 0,
            cache_creation_input_tokens: usage.cacheWriteInputTokens ?? 0,
          }
        : { input_tokens: 0, output_tokens: 0 },
    };
  }
  return {
    id: `chatcmpl-scripted-${index}`,
    object: "chat.completion",
    created: 0,
    model,
    choices: [
      { index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop", logprobs: null },
    ],
    ...(usage && { usage: chatUsage(usage) }),
  };
}

/** A chat-completions `usage` object in OpenAI's or vLLM's shape. */
function chatUsage(usage: ScriptedUsage): Record<string, unknown> {
  const base = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
  if (usage.style === "vllm")
    return {
      ...base,
      prompt_tokens_details: usage.cachedInputTokens !== undefined ? { cached_tokens: usage.cachedInputTokens } : null,
    };
  return {
    ...base,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

interface AnthropicMessage {
  content: { type: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
}

/** An Anthropic message as the event stream the Messages API sends for `stream: true`. */
function sendAnthropicStream(res: ServerResponse, message: AnthropicMessage): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const { content, stop_reason, usage, ...head } = message;
  event("message_start", {
    message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } },
  });
  content.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index, delta: { type: "text_delta", text: block.text ?? "" } });
    } else if (block.type === "tool_use") {
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
      });
    } else {
      event("content_block_start", { index, content_block: block });
    }
    event("content_block_stop", { index });
  });
  event("message_delta", {
    delta: { stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  event("message_stop", {});
  res.end();
}

/** Find every image in an OpenAI chat, Responses or Anthropic request body. */
function collectImages(body: unknown): ReceivedImage[] {
  const out: ReceivedImage[] = [];
  const fromDataUrl = (url: unknown, detail?: string) => {
    if (typeof url !== "string") return;
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
    if (!m) return;
    const bytes = Buffer.from(m[2], "base64");
    out.push({
      mediaType: m[1],
      bytes,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      ...(detail && { detail }),
    });
  };
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== "object") return;
    const o = v as Record<string, any>;
    if (o.type === "image_url" && o.image_url)
      fromDataUrl(typeof o.image_url === "string" ? o.image_url : o.image_url.url, o.image_url.detail);
    else if (o.type === "input_image") fromDataUrl(o.image_url, o.detail);
    else if (o.type === "image" && o.source?.type === "base64") {
      const bytes = Buffer.from(String(o.source.data), "base64");
      out.push({ mediaType: o.source.media_type, bytes, sha256: createHash("sha256").update(bytes).digest("hex") });
    } else if (o.type === "computer_call_output" && o.output?.type === "computer_screenshot")
      fromDataUrl(o.output.image_url);
    for (const key of Object.keys(o)) if (key !== "image_url" && key !== "source") walk(o[key]);
  };
  walk(body);
  return out;
}
