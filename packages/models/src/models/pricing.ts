/** Prices of model calls, so reports can show cost per episode and cost per success. */
import {
  billedTokens,
  CACHE_PRICING,
  type CachePricing,
  type CacheProvider,
  type ModelUsage,
} from "@retrace-cua/core/usage";

/** US dollars per million tokens for one model. */
export interface ModelPrice {
  /** Input (prompt) tokens, USD per million. */
  inputPerMillion: number;
  /** Output (completion) tokens, USD per million. */
  outputPerMillion: number;
  /**
   * Prompt tokens read from the provider's prompt cache, USD per million. @default the provider's factor (packages/core/src/usage.ts
   * CACHE_PRICING) times inputPerMillion
   */
  cachedInputPerMillion?: number;
  /**
   * Prompt tokens written to the provider's prompt cache, USD per million. @default the provider's factor times
   * inputPerMillion
   */
  cacheWritePerMillion?: number;
}

/**
 * Prices by model name. A key matches the exact model name, or a prefix of it when the key ends
 * in `*` (`"gpt-4o*"` prices `gpt-4o-2024-08-06`); the longest matching key wins.
 */
export type PriceTable = Record<string, ModelPrice>;

/** The price entry for a model, or undefined when the table has none. */
export function priceFor(table: PriceTable | undefined, model: string): ModelPrice | undefined {
  if (!table) return undefined;
  if (table[model]) return table[model];
  let best: [number, ModelPrice] | undefined;
  for (const [key, price] of Object.entries(table)) {
    if (!key.endsWith("*")) continue;
    const prefix = key.slice(0, -1);
    if (model.startsWith(prefix) && (!best || prefix.length > best[0])) best = [prefix.length, price];
  }
  return best?.[1];
}

/** The cache prices of one model as multiples of its input price: the price table's, else the provider's. */
export function cachePricingFor(
  table: PriceTable | undefined,
  model: string,
  provider: CacheProvider = "openai",
): CachePricing {
  const fallback = CACHE_PRICING[provider] ?? CACHE_PRICING.openai;
  const p = priceFor(table, model);
  if (!p || !(p.inputPerMillion > 0)) return fallback;
  return {
    read: p.cachedInputPerMillion !== undefined ? p.cachedInputPerMillion / p.inputPerMillion : fallback.read,
    write: p.cacheWritePerMillion !== undefined ? p.cacheWritePerMillion / p.inputPerMillion : fallback.write,
  };
}

/**
 * Cost of one call in USD (cached prompt tokens at the cache prices), or undefined when the model is not in the table.
 */
export function costUsd(
  table: PriceTable | undefined,
  model: string,
  usage: Pick<
    ModelUsage,
    "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteInputTokens" | "cacheProvider"
  >,
  provider: CacheProvider = usage.cacheProvider ?? "openai",
): number | undefined {
  const p = priceFor(table, model);
  if (!p) return undefined;
  const billedInput = billedTokens({ ...usage, outputTokens: 0 }, cachePricingFor(table, model, provider));
  return (billedInput * p.inputPerMillion + usage.outputTokens * p.outputPerMillion) / 1_000_000;
}

/**
 * The usage record of one call that finished now: tokens, latency since `startedMs`
 * (a `performance.now()` reading), and cost from the price table (0 when served from a cache).
 */
export function callUsage(args: {
  role: ModelUsage["role"];
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens the provider read from its prompt cache (part of inputTokens). */
  cachedInputTokens?: number;
  /** Prompt tokens the provider wrote to its prompt cache (part of inputTokens). */
  cacheWriteInputTokens?: number;
  /** Whose cache prices apply. @default "openai" (OpenAI-compatible servers) */
  provider?: CacheProvider;
  startedMs: number;
  cached?: boolean;
  prices?: PriceTable;
  prompt?: string;
}): ModelUsage {
  const provider = args.provider ?? "openai";
  const cache = {
    ...(args.cachedInputTokens ? { cachedInputTokens: args.cachedInputTokens } : {}),
    ...(args.cacheWriteInputTokens ? { cacheWriteInputTokens: args.cacheWriteInputTokens } : {}),
  };
  const cost = costUsd(args.prices, args.model, { ...args, ...cache }, provider);
  return {
    role: args.role,
    model: args.model,
    ...(args.prompt ? { prompt: args.prompt } : {}),
    inputTokens: args.inputTokens,
    outputTokens: args.outputTokens,
    ...cache,
    ...(args.cachedInputTokens || args.cacheWriteInputTokens
      ? {
          ...(provider !== "openai" && { cacheProvider: provider }),
          billedTokens: billedTokens({ ...args, ...cache }, cachePricingFor(args.prices, args.model, provider)),
        }
      : {}),
    latencyMs: Math.round(performance.now() - args.startedMs),
    ...(args.cached ? { costUsd: 0, cached: true } : cost !== undefined ? { costUsd: cost } : {}),
  };
}
