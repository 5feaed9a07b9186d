/**
 * The script of the scripted OpenAI-compatible server (scripted-openai-server.ts): the steps it
 * answers with, the usage they report, and the requests it records (with the images they carried).
 * Re-exported by scripted-openai-server.ts, where users import them from.
 */
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
