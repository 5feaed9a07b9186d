/**
 * The stand-in's simulated automatic prefix cache: what `usage.prompt_tokens_details.cached_tokens`
 * reports, the way OpenAI's automatic prompt caching (and vLLM's prefix caching with
 * `--enable-prompt-tokens-details`) does:
 *
 * - the cached part of a prompt is the longest prefix, in tokens (./tokens.ts `promptTokenIds`,
 *   the same count as `prompt_tokens`), it shares with one of the recent prompts of its group;
 * - a group is the request's `prompt_cache_key` when it sends one, else one global group;
 * - nothing is cached below {@link MIN_CACHED_TOKENS} (1,024) shared tokens, and the count is
 *   floored to a multiple of {@link CACHE_STEP_TOKENS} (128): a 3,000-token shared prefix reports
 *   2,944;
 * - each group keeps its last `perGroup` prompts, and the cache its last `groups` groups (a
 *   bounded LRU: a prompt used again, or a group asked again, becomes the most recent).
 *
 * Deterministic: the same sequence of requests gives the same numbers (no clock, no eviction by
 * time). Requests of one group that arrive concurrently are compared in arrival order.
 */
import { ConfigError } from "@retrace-cua/core/errors";

/** Prompts shorter than this share nothing (OpenAI caches prompts from 1,024 tokens). */
export const MIN_CACHED_TOKENS = 1024;
/** Cached tokens come in steps of this many (OpenAI's cache hits grow in 128-token increments). */
export const CACHE_STEP_TOKENS = 128;

/** Sizes of a {@link PrefixCache}. */
export interface PrefixCacheOptions {
  /** Groups (prompt_cache_key values, plus the global one) kept. @default 256 */
  groups?: number;
  /** Recent prompts kept per group. @default 4 */
  perGroup?: number;
}

/** The group of requests that send no `prompt_cache_key`. */
const GLOBAL = "\u0000global";

/** A bounded LRU of recent prompts, grouped by cache key. */
export class PrefixCache {
  private readonly groups = new Map<string, Int32Array[]>();
  private readonly maxGroups: number;
  private readonly perGroup: number;
  constructor(options: PrefixCacheOptions = {}) {
    this.maxGroups = positiveInt(options.groups ?? 256, "groups");
    this.perGroup = positiveInt(options.perGroup ?? 4, "perGroup");
  }

  /** The cached tokens of a prompt (then remembered as its group's most recent). */
  lookup(tokens: readonly number[], cacheKey?: unknown): number {
    const key = typeof cacheKey === "string" && cacheKey !== "" ? `k:${cacheKey}` : GLOBAL;
    const prompt = Int32Array.from(tokens);
    const recent = this.groups.get(key) ?? [];
    let shared = 0;
    let same = -1;
    recent.forEach((p, i) => {
      const n = commonPrefix(p, prompt);
      if (n > shared) shared = n;
      if (n === p.length && n === prompt.length) same = i;
    });
    if (same >= 0) recent.splice(same, 1);
    recent.push(prompt);
    if (recent.length > this.perGroup) recent.splice(0, recent.length - this.perGroup);
    this.groups.delete(key);
    this.groups.set(key, recent);
    while (this.groups.size > this.maxGroups) this.groups.delete(this.groups.keys().next().value as string);
    return cachedTokensOf(shared);
  }
}

/**
 * What an automatic prefix cache reports for a shared prefix of `shared` tokens: 0 below 1,024, else floored to 128s.
 */
export function cachedTokensOf(shared: number): number {
  return shared < MIN_CACHED_TOKENS ? 0 : Math.floor(shared / CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS;
}

function commonPrefix(a: Int32Array, b: Int32Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function positiveInt(v: number, name: string): number {
  if (!Number.isInteger(v) || v < 1)
    throw new ConfigError(`stand-in: prefixCache.${name} must be a positive integer, got ${v}`);
  return v;
}
