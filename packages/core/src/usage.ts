/** Model-call accounting, recorded per role so reports can show tokens, latency and cost. */

/** Who made a model call. */
export const MODEL_ROLES = [
  "policy",
  "detector",
  "selector",
  "recoverer",
  "summarizer",
  "verifier",
  "perturber",
  "judge",
] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** One model call's cost. */
export interface ModelUsage {
  role: ModelRole;
  model: string;
  /** `id@version` of the prompt used, when one was. */
  prompt?: string;
  /** Prompt tokens, all of them (cached ones included, as OpenAI counts `prompt_tokens`). */
  inputTokens: number;
  outputTokens: number;
  /**
   * Of `inputTokens`, those the provider served from its prompt (prefix) cache and bills at a
   * fraction of the price: OpenAI's and vLLM's `prompt_tokens_details.cached_tokens`, the
   * Responses API's `input_tokens_details.cached_tokens`, Anthropic's `cache_read_input_tokens`.
   */
  cachedInputTokens?: number;
  /** Of `inputTokens`, those written to the prompt cache at a premium (Anthropic's `cache_creation_input_tokens`). */
  cacheWriteInputTokens?: number;
  /**
   * What the call bills, in tokens at the uncached input price: uncached input, cached input
   * times the provider's cache-read factor, cache writes times its cache-write factor, and
   * output (see {@link billedTokens}). Absent: input + output.
   */
  billedTokens?: number;
  /** Whose prompt-cache prices apply to the cached and cache-write tokens (set with them). @default "openai" */
  cacheProvider?: CacheProvider;
  latencyMs: number;
  /**
   * The client's retries of this call (0 on a first-try answer; bounded by maxRetries, stopped by an abort). Absent:
   * not counted by that client.
   */
  retries?: number;
  /** US dollars, when a price table is configured. */
  costUsd?: number;
  /** Served from the record/replay cache (no network call, no cost). */
  cached?: boolean;
  /**
   * The server declared itself a simulated stand-in (its `system_fingerprint`, e.g. retrace's
   * stand-in): results that used this call are labelled simulated.
   */
  simulated?: boolean;
}

/**
 * True for a `system_fingerprint` by which a server declares itself a simulated stand-in (it names "stand-in" or
 * "simulated").
 */
export function isStandInFingerprint(fingerprint: unknown): boolean {
  return typeof fingerprint === "string" && /stand-?in|simulat/i.test(fingerprint);
}

/** A provider's prompt-cache prices as multiples of its uncached input price. */
export interface CachePricing {
  /** Cached (read) prompt tokens. */
  read: number;
  /** Prompt tokens written to the cache. */
  write: number;
}

/**
 * Prompt-cache prices by provider (their published list prices, 2026): OpenAI bills a cached
 * prefix at half the input price (gpt-4o class; newer models bill less: set
 * `cachedInputPerMillion` in the price table), writes at the input price; Anthropic reads at 0.1x
 * and writes (5-minute cache) at 1.25x. OpenAI-compatible servers (vLLM, SGLang) report cached
 * tokens the OpenAI way and are counted with OpenAI's factors unless the price table says
 * otherwise.
 */
export const CACHE_PRICING = {
  openai: { read: 0.5, write: 1 },
  anthropic: { read: 0.1, write: 1.25 },
} as const satisfies Record<string, CachePricing>;

/** A provider named in {@link CACHE_PRICING}. */
export type CacheProvider = keyof typeof CACHE_PRICING;

/** Billed-equivalent tokens of one call (see {@link ModelUsage.billedTokens}), rounded to whole tokens. */
export function billedTokens(
  u: Pick<ModelUsage, "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteInputTokens">,
  pricing: CachePricing,
): number {
  const input = finite(u.inputTokens);
  const read = Math.min(input, finite(u.cachedInputTokens));
  const write = Math.min(input - read, finite(u.cacheWriteInputTokens));
  return Math.round(input - read - write + read * pricing.read + write * pricing.write + finite(u.outputTokens));
}

/** Billed-equivalent tokens of a usage record: its own figure, else input + output. */
export function billedOf(u: Pick<ModelUsage, "inputTokens" | "outputTokens" | "billedTokens">): number {
  return typeof u.billedTokens === "number" && Number.isFinite(u.billedTokens)
    ? u.billedTokens
    : finite(u.inputTokens) + finite(u.outputTokens);
}

function finite(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;
}

/**
 * A token count split the way providers bill it: of the input tokens, those served from a prompt
 * cache (cached), those written to it (cacheWrite) and the rest (uncached = input - cached -
 * cacheWrite); plus output and billed-equivalent tokens (uncached + cached x read factor +
 * cacheWrite x write factor + output, at the uncached input price). Where no provider reported a
 * cache, cached and cacheWrite are 0 and billed = input + output: nothing is assumed cached.
 */
export interface TokenSplit {
  inputTokens: number;
  uncachedInputTokens: number;
  cachedInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
  billedTokens: number;
}

/** The {@link TokenSplit} of counts that carry (or not) the prompt-cache fields of {@link ModelUsage}. */
export function tokenSplit(
  u: Pick<ModelUsage, "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteInputTokens" | "billedTokens">,
): TokenSplit {
  const inputTokens = finite(u.inputTokens);
  const cachedInputTokens = Math.min(inputTokens, finite(u.cachedInputTokens));
  const cacheWriteInputTokens = Math.min(inputTokens - cachedInputTokens, finite(u.cacheWriteInputTokens));
  return {
    inputTokens,
    uncachedInputTokens: inputTokens - cachedInputTokens - cacheWriteInputTokens,
    cachedInputTokens,
    cacheWriteInputTokens,
    outputTokens: finite(u.outputTokens),
    billedTokens: billedOf(u),
  };
}

/**
 * A cost in dollars for people to read; "n/a" when nothing was priced: the meter adds no cost for a
 * call whose model spec has no price, so a total of exactly 0 means "no prices set", never "free".
 */
export function usdText(x: number | null | undefined): string {
  return x === null || x === undefined || !(x > 0) ? "n/a" : `$${x.toFixed(4)}`;
}
