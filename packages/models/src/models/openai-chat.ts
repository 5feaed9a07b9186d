/**
 * A {@link ChatModel} over any OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter,
 * vLLM, a LiteLLM gateway) through the official `openai` SDK. Retries with exponential backoff on
 * 429/5xx/timeouts are the SDK's own (`maxRetries`); each call has a timeout and honours an
 * AbortSignal; usage and latency are recorded per call; the API key never appears in what this
 * module logs or throws.
 */
import type OpenAI from "openai";
import { importOptional, lazy } from "@retrace-cua/core/optional-import";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import { AdapterError, ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel, ChatRequest, ChatResponse } from "@retrace-cua/core/model";
import { runtimeSettings, type RuntimeSettings } from "@retrace-cua/core/settings";
import { toOpenAIMessages } from "./content.ts";
import { callUsage, type PriceTable } from "./pricing.ts";
import { chatCompletionsUsage } from "./provider-usage.ts";
import { isStandInFingerprint } from "@retrace-cua/core/usage";
import { abortError, toAdapterError } from "./errors.ts";
import { awaitEndpointSlot } from "@retrace-cua/core/runtime/endpoint-limit";
import { registerSecret } from "@retrace-cua/core/secrets";
import { withCallSignal } from "@retrace-cua/core/call-signal";
import { countingAttempts, deadlineFetch } from "./deadline-fetch.ts";

/** Options for {@link createOpenAIChatModel}. */
export interface OpenAIChatModelOptions {
  /** Model name as the server knows it, e.g. "gpt-4o" or "Qwen/Qwen2.5-VL-72B-Instruct". */
  model: string;
  /** Where screenshots referenced in messages are read from. */
  blobs: BlobReader;
  /** Base URL of the API, ending in /v1. @default settings.baseUrl, else OpenAI's */
  baseURL?: string;
  /**
   * API key. @default settings.apiKey (RETRACE_API_KEY / OPENAI_API_KEY); a placeholder for non-OpenAI servers without
   * one
   */
  apiKey?: string;
  /** Retries of 429/5xx/timeouts/connection errors, with the SDK's exponential backoff. @default 3 */
  maxRetries?: number;
  /** Per-attempt timeout in ms. @default 120000 */
  timeoutMs?: number;
  /** Default sampling temperature when a request gives none. @default 0 */
  temperature?: number;
  /** Default max output tokens when a request gives none. @default 1024 */
  maxTokens?: number;
  /** Name of the max-tokens field: newer OpenAI models want "max_completion_tokens". @default "max_tokens" */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /**
   * Sampling seed sent to servers that support it (part of the cache key); a request's draw identity overrides it.
   * @default undefined
   */
  seed?: number;
  /**
   * Send a request's draw identity (`request.draw.requestSeed`) as `seed`. Off for servers that
   * reject the field; the identity still keys the cache, so draws stay apart there. @default true
   */
  sendSeed?: boolean;
  /**
   * Send `prompt_cache_key` (one per conversation) so a provider's prefix cache routes a conversation's calls together;
   * off for servers that refuse unknown fields. @default true
   */
  promptCacheKey?: boolean;
  /** Extra request fields (top_p, vendor options), sent verbatim and part of the cache key. @default {} */
  extraBody?: Record<string, unknown>;
  /** Extra HTTP headers (e.g. OpenRouter's HTTP-Referer). Never logged. @default {} */
  headers?: Record<string, string>;
  /** Prices for costUsd in usage records. @default none (no cost recorded) */
  prices?: PriceTable;
  /** Settings to fall back on (tests pass their own). @default runtimeSettings() */
  settings?: RuntimeSettings;
}

/** A ChatModel that also tells the cache which backend parameters shape its answers. */
export interface ParameterizedChatModel extends ChatModel {
  /** Parameters beyond the ChatRequest that change answers (seed, extra body); part of cache keys. */
  readonly requestParams: Record<string, unknown>;
}

const OPENAI_URL = "https://api.openai.com/v1";

/** Create a chat model over an OpenAI-compatible endpoint. */
export function createOpenAIChatModel(
  options: OpenAIChatModelOptions,
): ParameterizedChatModel & { readonly endpoint: string } {
  if (!options.model)
    throw new ConfigError("model: give the model name the server expects (e.g. --model gpt-4o)", { field: "model" });
  if (!options.blobs)
    throw new ConfigError("blobs: pass the BlobReader that holds the screenshots", { field: "blobs" });
  const settings = options.settings ?? runtimeSettings();
  const baseURL = options.baseURL ?? settings.baseUrl ?? OPENAI_URL;
  let apiKey = options.apiKey ?? settings.apiKey;
  if (!apiKey) {
    if (baseURL.startsWith(OPENAI_URL))
      throw new ConfigError("apiKey: set OPENAI_API_KEY (or RETRACE_API_KEY) or pass apiKey to reach api.openai.com", {
        field: "apiKey",
      });
    apiKey = "no-key"; // local servers (vLLM) accept any key
  }
  const secrets = [apiKey, ...Object.values(options.headers ?? {})];
  for (const s of secrets) registerSecret(s);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxRetries = options.maxRetries ?? 3;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new ConfigError("maxRetries: must be a whole number >= 0", { field: "maxRetries" });
  if (!(timeoutMs > 0))
    throw new ConfigError("timeoutMs: must be a positive number of milliseconds", { field: "timeoutMs" });
  const client = lazy(
    async () =>
      new (await importOptional("openai", "createOpenAIChatModel", () => import("openai"))).default({
        apiKey,
        baseURL,
        maxRetries,
        timeout: timeoutMs,
        defaultHeaders: options.headers,
        fetch: deadlineFetch(timeoutMs),
        logLevel: "off",
      }),
  );
  const maxTokensField = options.maxTokensField ?? "max_tokens";
  const sendSeed = options.sendSeed ?? true;
  const sendCacheKey = options.promptCacheKey ?? true;
  // sendSeed: false changes what the server sees, so it is part of the cache key (only when off: old keys stay valid).
  const requestParams: Record<string, unknown> = {
    ...(options.seed !== undefined && { seed: options.seed }),
    ...options.extraBody,
    ...(!sendSeed && { sendSeed: false }),
  };
  const { sendSeed: _omit, ...wireParams } = requestParams;

  return {
    model: options.model,
    endpoint: `${baseURL} model ${options.model}`,
    requestParams,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      if (request.signal?.aborted) throw abortError(request.signal);
      const messages = await toOpenAIMessages(request.messages, options.blobs);
      const body: Record<string, unknown> = {
        model: options.model,
        messages,
        temperature: request.temperature ?? options.temperature ?? 0,
        [maxTokensField]: request.maxTokens ?? options.maxTokens ?? 1024,
        ...(request.json && { response_format: { type: "json_object" } }),
        ...wireParams,
        ...(request.draw && sendSeed && { seed: request.draw.requestSeed }),
        ...(request.cacheKey && sendCacheKey && { prompt_cache_key: request.cacheKey }),
      };
      await awaitEndpointSlot(baseURL);
      const started = performance.now();
      const sdk = await client();
      // A per-call signal: the SDK never removes the abort listener it adds (packages/core/src/call-signal.ts).
      // The SDK's retries (bounded by maxRetries, stopped by an abort) are counted per call.
      const out = await countingAttempts(() =>
        withCallSignal(request.signal, (signal) =>
          sdk.chat.completions.create(
            body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
            { signal },
          ),
        ),
      );
      if ("error" in out) {
        if (request.signal?.aborted) throw abortError(request.signal);
        throw toAdapterError(out.error, {
          what: `chat completion from ${options.model}`,
          timeoutMs,
          maxRetries,
          secrets,
          ...(out.attempts > 0 && { attempts: out.attempts }),
        });
      }
      const completion = out.value as OpenAI.Chat.Completions.ChatCompletion;
      const retries = Math.max(0, out.attempts - 1);
      const latencyMs = Math.round(performance.now() - started);
      const choice = completion.choices?.[0];
      if (!choice) throw new AdapterError(notACompletion(completion, options.model, baseURL), { retryable: false });
      const text = typeof choice.message?.content === "string" ? choice.message.content : "";
      const usage = callUsage({
        role: request.role,
        model: options.model,
        prompt: request.prompt,
        ...chatCompletionsUsage(completion.usage),
        startedMs: started,
        prices: options.prices,
      });
      // A server that declares itself a stand-in (retrace's: "retrace-stand-in-simulated") makes every result that used
      // it simulated.
      // `retries`: the client's retries of this call (0 on a first-try answer), kept in the usage record.
      const recorded: ChatResponse["usage"] = {
        ...usage,
        latencyMs,
        retries,
        ...(isStandInFingerprint(completion.system_fingerprint) && { simulated: true }),
      };
      return { text, usage: recorded };
    },
  };
}

/**
 * Why an answer is not a chat completion, in words a user can act on: an HTML page (a web UI or
 * proxy at the base URL, or a base URL without /v1), something else that is not JSON, or JSON
 * without choices.
 */
export function notACompletion(answer: unknown, model: string, baseURL: string): string {
  if (typeof answer === "string") {
    const head = answer.trimStart().slice(0, 200).toLowerCase();
    const html = head.startsWith("<!doctype html") || head.startsWith("<html") || /<(head|body|title)[\s>]/.test(head);
    return `chat completion from ${model}: ${baseURL} answered ${html ? "an HTML page" : "text that is not JSON"}, not a chat completion; check the base URL (an OpenAI-compatible server's ends in /v1, e.g. http://127.0.0.1:8000/v1)`;
  }
  if (answer === null || typeof answer !== "object")
    return `chat completion from ${model}: ${baseURL} answered ${JSON.stringify(answer)?.slice(0, 40)}, not a chat completion; check the base URL`;
  return `chat completion from ${model} has no choices (the answer's fields: ${Object.keys(answer).slice(0, 8).join(", ") || "none"}); check that ${baseURL} is an OpenAI-compatible chat completions endpoint`;
}
