/**
 * Token counts as each provider reports them, normalised to {@link ModelUsage}'s convention:
 * `inputTokens` counts every prompt token, and the prompt-cache reads and writes are counted apart
 * (`cachedInputTokens`, `cacheWriteInputTokens`) as parts of it. Provider replies are untrusted:
 * a field that is not a non-negative number counts as 0.
 */
import { billedTokens, CACHE_PRICING, type CacheProvider, type ModelUsage } from "@retrace-cua/core/usage";

type Counts = Pick<ModelUsage, "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteInputTokens">;

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const field = (o: unknown, key: string): unknown =>
  o && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined;

function withCache(inputTokens: number, outputTokens: number, read: number, write = 0): Counts {
  const cachedInputTokens = Math.min(read, inputTokens);
  const cacheWriteInputTokens = Math.min(write, inputTokens - cachedInputTokens);
  return {
    inputTokens,
    outputTokens,
    ...(cachedInputTokens ? { cachedInputTokens } : {}),
    ...(cacheWriteInputTokens ? { cacheWriteInputTokens } : {}),
  };
}

/** Chat Completions usage (OpenAI, vLLM, SGLang): `prompt_tokens` includes `prompt_tokens_details.cached_tokens`. */
export function chatCompletionsUsage(usage: unknown): Counts {
  return withCache(
    count(field(usage, "prompt_tokens")),
    count(field(usage, "completion_tokens")),
    count(field(field(usage, "prompt_tokens_details"), "cached_tokens")),
  );
}

/** Responses API usage (OpenAI computer use): `input_tokens` includes `input_tokens_details.cached_tokens`. */
export function responsesUsage(usage: unknown): Counts {
  return withCache(
    count(field(usage, "input_tokens")),
    count(field(usage, "output_tokens")),
    count(field(field(usage, "input_tokens_details"), "cached_tokens")),
  );
}

/**
 * Anthropic Messages usage: `input_tokens` counts only the prompt tokens after the last cache
 * breakpoint; `cache_read_input_tokens` and `cache_creation_input_tokens` come on top of it.
 */
export function anthropicUsage(usage: unknown): Counts {
  const read = count(field(usage, "cache_read_input_tokens"));
  const write = count(field(usage, "cache_creation_input_tokens"));
  return withCache(
    count(field(usage, "input_tokens")) + read + write,
    count(field(usage, "output_tokens")),
    read,
    write,
  );
}

/** LangChain's `usage_metadata`: `input_tokens` includes `input_token_details.cache_read` and `.cache_creation`. */
export function langchainUsage(usage: unknown): Counts {
  const details = field(usage, "input_token_details");
  return withCache(
    count(field(usage, "input_tokens")),
    count(field(usage, "output_tokens")),
    count(field(details, "cache_read")),
    count(field(details, "cache_creation")),
  );
}

/**
 * The Vercel AI SDK's `LanguageModelUsage`: `inputTokens` includes `inputTokenDetails.cacheReadTokens` and
 * `.cacheWriteTokens` (ai 5's `cachedInputTokens` read too).
 */
export function aiSdkUsage(usage: unknown): Counts {
  const details = field(usage, "inputTokenDetails");
  const read = count(field(details, "cacheReadTokens")) || count(field(usage, "cachedInputTokens"));
  return withCache(
    count(field(usage, "inputTokens")),
    count(field(usage, "outputTokens")),
    read,
    count(field(details, "cacheWriteTokens")),
  );
}

/** The OpenAI Agents SDK's `Usage`: `inputTokens` includes `inputTokensDetails.cached_tokens`. */
export function agentsUsage(usage: unknown): Counts {
  const details = field(usage, "inputTokensDetails");
  const first = Array.isArray(details) ? details[0] : details;
  return withCache(
    count(field(usage, "inputTokens")),
    count(field(usage, "outputTokens")),
    count(field(first, "cached_tokens")),
  );
}

/**
 * Counts plus their billed-equivalent tokens at `provider`'s cache prices (packages/core/src/usage.ts CACHE_PRICING), when a cache
 * was reported.
 */
export function withBilled(
  counts: Counts,
  provider: CacheProvider = "openai",
): Counts & Pick<ModelUsage, "billedTokens" | "cacheProvider"> {
  return counts.cachedInputTokens || counts.cacheWriteInputTokens
    ? {
        ...counts,
        ...(provider !== "openai" && { cacheProvider: provider }),
        billedTokens: billedTokens(counts, CACHE_PRICING[provider]),
      }
    : counts;
}
