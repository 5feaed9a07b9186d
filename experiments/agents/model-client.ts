/**
 * Run-wide settings of model agents (cache, keys, cost ledger) and the chat model each model
 * agent talks to: the OpenAI-compatible backend, wrapped by the record/replay cache and then by
 * the episode's meter. Keys are read from the variable a spec names (`apiKeyEnv`), else from the
 * usual settings, and never written anywhere.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel } from "@retrace-cua/core/model";
import { envVar, runtimeSettings, type RuntimeSettings } from "@retrace-cua/core/settings";
import { withCache, type CacheOptions } from "@retrace-cua/models/models/cache";
import { createOpenAIChatModel } from "@retrace-cua/models/models/openai-chat";
import { withDraws, type DrawScope } from "@retrace-cua/models/models/draws";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { ModelRole } from "@retrace-cua/core/usage";
import type { ModelMeter } from "./meter.ts";
import type { ModelCallSettings } from "./roles.ts";
import { backendOf, maxTokensOf, type ModelAgentSpec } from "./model-spec.ts";
import { langChainChatModelFor } from "./langchain-module.ts";

// ModelCallSettings lives with the roles (roles.ts) that carry it, so neither file imports the other.
export type { ModelCallSettings } from "./roles.ts";

/** The settings with keys, computed once per spec. */
export function settingsFor(calls: ModelCallSettings | undefined): RuntimeSettings {
  return runtimeSettings(calls?.env ?? process.env);
}

/** The API key a spec uses: its `apiKeyEnv` variable, else the backend's usual variable. */
export function apiKeyOf(
  spec: ModelAgentSpec,
  calls: ModelCallSettings | undefined,
  field = "apiKeyEnv",
): string | undefined {
  const settings = settingsFor(calls);
  if (spec.apiKeyEnv) {
    const key = envVar(spec.apiKeyEnv, calls?.env ?? process.env);
    if (!key)
      throw new ConfigError(
        `${field}: the environment variable ${spec.apiKeyEnv} is not set (export it, or pass --api-key-env with a variable that is)`,
        { field },
      );
    return key;
  }
  return spec.backend === "anthropic" ? settings.anthropicApiKey : settings.apiKey;
}

/** Cache options of a model agent, or undefined when the cache is off. */
export function cacheOptionsOf(calls: ModelCallSettings | undefined): CacheOptions | undefined {
  if (!calls || calls.cache === "off") return undefined;
  return { dir: calls.cacheDir, mode: calls.cache };
}

/**
 * The chat model of a model agent in one episode: the backend, the record/replay cache, the
 * episode's draws (each request stamped with its draw identity, which keys the cache and is sent
 * as `seed` unless `sendSeed: false`), then the meter.
 */
export function chatModelFor(
  spec: ModelAgentSpec,
  role: ModelRole,
  ctx: { blobs: BlobStore; meter?: ModelMeter; calls?: ModelCallSettings; draws?: DrawScope },
): ChatModel {
  const outer = (cached: ChatModel): ChatModel => {
    // Draws stamped outside the meter, so the meter's call log records each call's draw identity.
    const metered = ctx.meter ? ctx.meter.wrap(cached, role, spec.prices) : cached;
    return ctx.draws ? withDraws(metered, ctx.draws) : metered;
  };
  if (backendOf(spec) === "langchain") {
    if (!ctx.blobs)
      throw new ConfigError(
        "model agents read screenshots from the run's blob store: pass blobs in the agent context",
        { field: "blobs" },
      );
    const lc = langChainChatModelFor(spec, ctx.blobs, spec.apiKeyEnv ? apiKeyOf(spec, ctx.calls) : undefined);
    const lcCache = cacheOptionsOf(ctx.calls);
    return outer(lcCache ? withCache(lc, lcCache) : lc);
  }
  if (!spec.model)
    throw new ConfigError("model: give the model name (in the spec or with --model)", { field: "model" });
  if (!ctx.blobs)
    throw new ConfigError("model agents read screenshots from the run's blob store: pass blobs in the agent context", {
      field: "blobs",
    });
  const backend = createOpenAIChatModel({
    model: spec.model,
    blobs: ctx.blobs,
    baseURL: spec.baseUrl,
    apiKey: apiKeyOf(spec, ctx.calls),
    maxRetries: spec.maxRetries,
    timeoutMs: spec.timeoutMs,
    ...(spec.temperature !== undefined && { temperature: spec.temperature }),
    ...(maxTokensOf(spec) !== undefined && { maxTokens: maxTokensOf(spec) }),
    prices: spec.prices,
    settings: settingsFor(ctx.calls),
    sendSeed: spec.sendSeed !== false,
    promptCacheKey: spec.promptCacheKey !== false,
  });
  const cache = cacheOptionsOf(ctx.calls);
  return outer(cache ? withCache(backend, cache) : backend);
}
