/**
 * A {@link TextEmbedder} over any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, a
 * LiteLLM gateway, text-embeddings-inference behind an OpenAI shim) through the official `openai`
 * SDK: retries with backoff on 429/5xx are the SDK's, each call has a timeout and honours an
 * AbortSignal, texts go in batches, and the API key never appears in what this module throws.
 * Used by the rationale analysis of the recovery evaluation (packages/evaluation/src/eval/rationale.ts).
 */
import type OpenAI from "openai";
import { importOptional, lazy } from "@retrace-cua/core/optional-import";
import { AdapterError, ConfigError } from "@retrace-cua/core/errors";
import type { TextEmbedder } from "@retrace-cua/evaluation/eval/rationale";
import { runtimeSettings, type RuntimeSettings } from "@retrace-cua/core/settings";
import { abortError, toAdapterError } from "./errors.ts";
import { withCallSignal } from "@retrace-cua/core/call-signal";
import { deadlineFetch } from "./deadline-fetch.ts";

/** Options for {@link createOpenAIEmbeddings}. */
export interface OpenAIEmbeddingsOptions {
  /** Embedding model name as the server knows it, e.g. "text-embedding-3-small". */
  model: string;
  /** Base URL of the API, ending in /v1. @default settings.baseUrl, else OpenAI's */
  baseURL?: string;
  /**
   * API key. @default settings.apiKey (RETRACE_API_KEY / OPENAI_API_KEY); a placeholder for non-OpenAI servers without
   * one
   */
  apiKey?: string;
  /** Texts per request. @default 64 */
  batchSize?: number;
  /** Retries of 429/5xx/timeouts/connection errors. @default 3 */
  maxRetries?: number;
  /** Per-attempt timeout in ms. @default 60000 */
  timeoutMs?: number;
  /** Output dimensions, for models that support shortening. @default the model's */
  dimensions?: number;
  /** Settings to fall back on (tests pass their own). @default runtimeSettings() */
  settings?: RuntimeSettings;
}

const OPENAI_URL = "https://api.openai.com/v1";

/** Create an embedder over an OpenAI-compatible `/v1/embeddings` endpoint. */
export function createOpenAIEmbeddings(options: OpenAIEmbeddingsOptions): TextEmbedder {
  if (!options?.model)
    throw new ConfigError(
      "embeddings model: give the embedding model name the server expects (e.g. --embeddings-model text-embedding-3-small)",
      { field: "model" },
    );
  const settings = options.settings ?? runtimeSettings();
  const baseURL = options.baseURL ?? settings.baseUrl ?? OPENAI_URL;
  let apiKey = options.apiKey ?? settings.apiKey;
  if (!apiKey) {
    if (baseURL.startsWith(OPENAI_URL))
      throw new ConfigError("apiKey: set OPENAI_API_KEY (or RETRACE_API_KEY) or pass apiKey to reach api.openai.com", {
        field: "apiKey",
      });
    apiKey = "no-key";
  }
  const batchSize = options.batchSize ?? 64;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new ConfigError("batchSize: must be a whole number >= 1", { field: "batchSize" });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxRetries = options.maxRetries ?? 3;
  const client = lazy(
    async () =>
      new (await importOptional("openai", "createOpenAIEmbeddings", () => import("openai"))).default({
        apiKey,
        baseURL,
        maxRetries,
        timeout: timeoutMs,
        fetch: deadlineFetch(timeoutMs),
        logLevel: "off",
      }),
  );
  const what = `embeddings from ${options.model}`;
  return {
    name: `openai-embeddings(${options.model})`,
    async embed(texts, signal) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        if (signal?.aborted) throw abortError(signal);
        const input = texts.slice(i, i + batchSize);
        let res: OpenAI.Embeddings.CreateEmbeddingResponse;
        const sdk = await client();
        try {
          res = await withCallSignal(signal, (s) =>
            sdk.embeddings.create(
              {
                model: options.model,
                input: [...input],
                encoding_format: "float",
                ...(options.dimensions && { dimensions: options.dimensions }),
              },
              { signal: s },
            ),
          );
        } catch (err) {
          if (signal?.aborted) throw abortError(signal);
          throw toAdapterError(err, { what, timeoutMs, maxRetries, secrets: [apiKey!] });
        }
        // The server's answer is untrusted: one finite vector per input, in index order, all the same length.
        const data = Array.isArray(res?.data) ? [...res.data].sort((a, b) => a.index - b.index) : [];
        if (data.length !== input.length)
          throw new AdapterError(`${what}: ${data.length} vectors for ${input.length} texts`, { retryable: false });
        for (const d of data) {
          if (
            !Array.isArray(d.embedding) ||
            d.embedding.length === 0 ||
            !d.embedding.every((x) => typeof x === "number" && Number.isFinite(x))
          )
            throw new AdapterError(`${what}: vector ${d.index} is not a list of finite numbers`, { retryable: false });
          if (out.length > 0 && d.embedding.length !== out[0].length)
            throw new AdapterError(`${what}: vectors differ in length (${d.embedding.length} vs ${out[0].length})`, {
              retryable: false,
            });
          out.push(d.embedding);
        }
      }
      return out;
    },
  };
}
