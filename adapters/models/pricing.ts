/** Prices of model calls, so reports can show cost per episode and cost per success. */
import type { ModelUsage } from "../../src/usage.ts";

/** US dollars per million tokens for one model. */
export interface ModelPrice {
  /** Input (prompt) tokens, USD per million. */
  inputPerMillion: number;
  /** Output (completion) tokens, USD per million. */
  outputPerMillion: number;
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

/** Cost of one call in USD, or undefined when the model is not in the table. */
export function costUsd(table: PriceTable | undefined, model: string, usage: Pick<ModelUsage, "inputTokens" | "outputTokens">): number | undefined {
  const p = priceFor(table, model);
  if (!p) return undefined;
  return (usage.inputTokens * p.inputPerMillion + usage.outputTokens * p.outputPerMillion) / 1_000_000;
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
  startedMs: number;
  cached?: boolean;
  prices?: PriceTable;
  prompt?: string;
}): ModelUsage {
  const cost = costUsd(args.prices, args.model, args);
  return {
    role: args.role,
    model: args.model,
    ...(args.prompt ? { prompt: args.prompt } : {}),
    inputTokens: args.inputTokens,
    outputTokens: args.outputTokens,
    latencyMs: Math.round(performance.now() - args.startedMs),
    ...(args.cached ? { costUsd: 0, cached: true } : cost !== undefined ? { costUsd: cost } : {}),
  };
}
