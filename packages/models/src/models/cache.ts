/**
 * Record/replay cache for model calls. The key is the sha256 of the canonical JSON of the full
 * request as the server would see it: model name, backend parameters (seed, extra body),
 * messages with screenshots as their sha256 blob references, temperature, max tokens, JSON mode,
 * and the call's draw identity when an experiment stamped one (packages/models/src/models/draws.ts: episode
 * seed, task, continuation, role, ordinal), so two draws of the same request are two entries.
 * One file per key (`<dir>/<key[0:2]>/<key>.json`, written atomically), so a re-run with the same
 * prompts and seeds makes zero server calls and returns exactly the recorded texts. In
 * `readwrite` mode the first answer recorded under a key wins: a caller that raced another to the
 * same key (two workers, paired conditions) uses the recorded answer, so what a run used is what
 * its re-run replays. Entries hold the request and the answer, never credentials (the key and base
 * URL are not part of a request). A chat entry's answer is `{ text, inputTokens, outputTokens }`
 * plus the {@link RecordedCall} fields (role, prompt, latency, cost) for the report's viewer; the
 * computer-use policies keep theirs under `meta`. Entries written before latency and cost were
 * recorded hold text and tokens only and replay the same.
 */
import { link, mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { ConfigError } from "@retrace-cua/core/errors";
import { hashValue } from "@retrace-cua/core/hash";
import type { ChatModel, ChatRequest, ChatResponse, DrawIdentity } from "@retrace-cua/core/model";
import { CACHE_PRICING, type CacheProvider, type ModelUsage } from "@retrace-cua/core/usage";
import { redactText } from "@retrace-cua/core/secrets";

/** Cache modes: `read` serves hits only, `write` always calls and records, `readwrite` both. */
export const CACHE_MODES = ["off", "read", "write", "readwrite"] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

/** Options for {@link withCache}. */
export interface CacheOptions {
  /** Directory of cache entries (created if missing). */
  dir: string;
  /** @default "readwrite" */
  mode?: CacheMode;
  /** What a miss does in `read` mode: call the model (without recording) or throw. @default "call" */
  onMiss?: "call" | "throw";
  /** Extra text mixed into every key, to keep caches of different servers apart. @default "" */
  namespace?: string;
}

/** Hit/miss counters of a cached model. */
export interface CacheStats {
  hits: number;
  misses: number;
  writes: number;
}

/** A model wrapped by {@link withCache}. */
export interface CachedChatModel extends ChatModel {
  readonly stats: CacheStats;
  /** The key a request would be stored under. */
  keyOf(request: ChatRequest): string;
}

const KEY_VERSION = 1;

/**
 * What an entry records about the call beside its answer, for the report's viewer: the calling
 * role and prompt id, latency in ms, and cost in USD only when the spec has a price (an unpriced
 * call's cost is unknown, not $0). A replay reports its own usage (cached, $0), not this.
 */
export interface RecordedCall {
  role: string;
  prompt?: string;
  latencyMs: number;
  costUsd?: number;
  /** The answer came from a server that declared itself a simulated stand-in. */
  simulated?: boolean;
}

/** The {@link RecordedCall} of a live call's usage record. */
export function recordedCall(
  usage: Pick<ModelUsage, "role" | "prompt" | "latencyMs" | "costUsd" | "simulated">,
): RecordedCall {
  return {
    role: usage.role,
    ...(usage.prompt && { prompt: usage.prompt }),
    latencyMs: usage.latencyMs,
    ...(typeof usage.costUsd === "number" && { costUsd: usage.costUsd }),
    ...(usage.simulated === true && { simulated: true }),
  };
}

/**
 * The prompt-cache counts of a usage (recorded with an entry, read back on a replay, so a re-run
 * served from the cache reports the cached tokens the live run did). Untrusted on the way back:
 * anything but a non-negative number is dropped.
 */
export function promptCacheCounts(
  u: unknown,
): Pick<ModelUsage, "cachedInputTokens" | "cacheWriteInputTokens" | "billedTokens" | "cacheProvider"> {
  const o = (u && typeof u === "object" ? u : {}) as Record<string, unknown>;
  const n = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= 0;
  return {
    ...(n(o.cachedInputTokens) &&
      (o.cachedInputTokens as number) > 0 && { cachedInputTokens: o.cachedInputTokens as number }),
    ...(n(o.cacheWriteInputTokens) &&
      (o.cacheWriteInputTokens as number) > 0 && { cacheWriteInputTokens: o.cacheWriteInputTokens as number }),
    ...(n(o.billedTokens) && { billedTokens: o.billedTokens as number }),
    ...(typeof o.cacheProvider === "string" &&
      Object.hasOwn(CACHE_PRICING, o.cacheProvider) && { cacheProvider: o.cacheProvider as CacheProvider }),
  };
}

/** Validate a `--cache` value. */
export function parseCacheMode(value: string): CacheMode {
  if ((CACHE_MODES as readonly string[]).includes(value)) return value as CacheMode;
  throw new ConfigError(`cache: "${value}" is not a cache mode; use one of ${CACHE_MODES.join(", ")}`, {
    field: "cache",
  });
}

/** The canonical request a key is computed from (exported for tests and debugging). */
export function canonicalRequest(model: ChatModel, request: ChatRequest): unknown {
  const params = (model as { requestParams?: Record<string, unknown> }).requestParams ?? {};
  return {
    model: model.model,
    params,
    messages: request.messages,
    temperature: request.temperature ?? null,
    maxTokens: request.maxTokens ?? null,
    json: request.json ?? false,
    ...(request.draw && { draw: request.draw }),
  };
}

/** A record/replay store for any JSON request/response pair (used by withCache and the computer-use policies). */
export interface RecordReplay {
  readonly mode: CacheMode;
  readonly stats: CacheStats;
  /** The key of a canonical (symbolic, secret-free) request, under a draw identity when given. */
  keyOf(request: unknown, draw?: DrawIdentity): string;
  /**
   * Serve `request` (drawn as `draw`, when given) from the store when the mode reads and an entry
   * exists (`cached: true`), else call and record when the mode writes.
   */
  run<T>(request: unknown, call: () => Promise<T>, draw?: DrawIdentity): Promise<{ value: T; cached: boolean }>;
}

/** Create a {@link RecordReplay} store on disk (one file per key). */
export function createRecordReplay(options: CacheOptions): RecordReplay {
  const mode = options.mode ?? "readwrite";
  if (!(CACHE_MODES as readonly string[]).includes(mode)) parseCacheMode(String(mode));
  if (mode !== "off" && !options.dir)
    throw new ConfigError("cache.dir: give a directory for the model-call cache", { field: "cache.dir" });
  const stats: CacheStats = { hits: 0, misses: 0, writes: 0 };
  const keyOf = (request: unknown, draw?: DrawIdentity) =>
    hashValue({ v: KEY_VERSION, namespace: options.namespace ?? "", request, ...(draw && { draw }) });
  const fileOf = (key: string) => join(options.dir, key.slice(0, 2), `${key}.json`);
  const reads = mode === "read" || mode === "readwrite";
  const writes = mode === "write" || mode === "readwrite";
  return {
    mode,
    stats,
    keyOf,
    async run<T>(request: unknown, call: () => Promise<T>, draw?: DrawIdentity) {
      if (mode === "off") {
        stats.misses++;
        return { value: await call(), cached: false };
      }
      const key = keyOf(request, draw);
      const recorded = async (): Promise<T | undefined> => {
        try {
          const entry = JSON.parse(await readFile(fileOf(key), "utf8")) as { key: string; response: T };
          return entry.key === key ? entry.response : undefined;
        } catch {
          return undefined; // a miss
        }
      };
      if (reads) {
        const hit = await recorded();
        if (hit !== undefined) {
          stats.hits++;
          return { value: hit, cached: true };
        }
      }
      stats.misses++;
      if (mode === "read" && options.onMiss === "throw")
        throw new ConfigError(
          `cache: no recorded answer for request ${key.slice(0, 12)} in ${options.dir} (mode "read"); re-run with --cache readwrite to record it`,
          { field: "cache" },
        );
      const value = await call();
      if (writes) {
        const file = fileOf(key);
        await mkdir(join(options.dir, key.slice(0, 2)), { recursive: true });
        const tmp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
        await writeFile(
          tmp,
          redactText(JSON.stringify({ key, request, ...(draw && { draw }), response: value })) + "\n",
        );
        if (!reads) await rename(tmp, file);
        else if (!(await linkNew(tmp, file))) {
          // Another caller recorded this key first: use its answer, so the run agrees with its cache.
          const first = await recorded();
          if (first !== undefined) return { value: first, cached: false };
        }
        stats.writes++;
      }
      return { value, cached: false };
    },
  };
}

/**
 * Publish `tmp` as `file` only when no entry exists yet (atomic: link fails on an existing file); false when one did.
 */
async function linkNew(tmp: string, file: string): Promise<boolean> {
  try {
    await link(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    await rename(tmp, file); // a file system without hard links: last writer wins
    return true;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Wrap a model with a record/replay cache. `mode: "off"` returns a pass-through with stats. */
export function withCache(model: ChatModel, options: CacheOptions): CachedChatModel {
  const store = createRecordReplay(options);
  const inflight = new Map<string, Promise<ChatResponse>>();
  const canonical = (request: ChatRequest) => canonicalRequest(model, request);
  const keyOf = (request: ChatRequest) => store.keyOf(canonical(request));
  const params = (model as { requestParams?: Record<string, unknown> }).requestParams;

  const run = async (request: ChatRequest): Promise<ChatResponse> => {
    const started = performance.now();
    let live: ChatResponse | undefined;
    const { value, cached } = await store.run(canonical(request), async () => {
      live = await model.complete(request);
      return {
        text: live.text,
        inputTokens: live.usage.inputTokens,
        outputTokens: live.usage.outputTokens,
        ...promptCacheCounts(live.usage),
        ...recordedCall({ ...live.usage, role: request.role, prompt: request.prompt }),
      };
    });
    if (!cached && live) return live;
    return {
      text: value.text,
      usage: {
        role: request.role,
        model: model.model,
        ...(request.prompt && { prompt: request.prompt }),
        inputTokens: value.inputTokens,
        outputTokens: value.outputTokens,
        ...promptCacheCounts(value),
        latencyMs: Math.round(performance.now() - started),
        costUsd: 0,
        cached: true,
        ...((value as { simulated?: unknown }).simulated === true && { simulated: true }),
      },
    };
  };

  return {
    model: model.model,
    stats: store.stats,
    keyOf,
    ...(params && { requestParams: params }),
    async complete(request: ChatRequest): Promise<ChatResponse> {
      if (store.mode === "off") return run(request);
      const key = keyOf(request);
      // identical concurrent requests share one call
      const pending = inflight.get(key);
      if (pending) {
        const res = await pending;
        return { text: res.text, usage: { ...res.usage, role: request.role, latencyMs: 0, costUsd: 0, cached: true } };
      }
      const p = run(request);
      inflight.set(key, p);
      try {
        return await p;
      } finally {
        inflight.delete(key);
      }
    },
  };
}
