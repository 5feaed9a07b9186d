/** The distinct model endpoints of a config (for the preflight), with the config fields that use each. */
import { runtimeSettings } from "@retrace-cua/core/settings";
import { backendOf, DEFAULT_MODEL_RETRIES, type ModelAgentSpec } from "../agents/model-spec.ts";
import { apiKeyOf, type ModelCallSettings } from "../agents/model-client.ts";
import type { Endpoint } from "../agents/preflight.ts";
import { loadLangChainChatModel } from "../agents/langchain-module.ts";
import { configAgents } from "../config/agents.ts";
import type { ExperimentConfig } from "../config/schema.ts";

const VENDOR_URL = {
  openai: "https://api.openai.com/v1",
  "openai-responses": "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
} as const;

/** One entry per distinct (URL, API, key) of the config's model agents. */
export function configEndpoints(config: ExperimentConfig, calls?: ModelCallSettings): Endpoint[] {
  const settings = runtimeSettings(calls?.env ?? process.env);
  const byKey = new Map<string, Endpoint>();
  for (const a of configAgents(config)) {
    if (a.spec.kind !== "model") continue;
    const spec = a.spec as unknown as ModelAgentSpec;
    const backend = backendOf(spec);
    if (backend === "langchain") continue; // the module's own chat model; loaded and checked by checkLangChainModules
    const baseUrl = spec.baseUrl ?? (backend === "anthropic" ? undefined : settings.baseUrl) ?? VENDOR_URL[backend];
    const apiKey = apiKeyOf(spec, calls, `${a.path.replace(/ \(default from forward\)$/, "")}.apiKeyEnv`);
    const key = `${backend === "anthropic" ? "anthropic" : "openai"} ${baseUrl} ${apiKey ?? ""}`;
    const e = byKey.get(key) ?? { baseUrl, backend, apiKey, users: [] };
    e.users.push(a.path.replace(/^config\./, ""));
    // the preflight retries as often as the most patient call to this endpoint
    e.maxRetries = Math.max(e.maxRetries ?? 0, spec.maxRetries ?? DEFAULT_MODEL_RETRIES);
    byKey.set(key, e);
  }
  return [...byKey.values()];
}

/**
 * Load every `backend: langchain` module of the config once, before the first episode: a missing
 * file, a load error or an export that is not a chat model (or factory of one) is a ConfigError
 * naming the field (e.g. `config.pairs.0.detector.module`).
 */
export async function checkLangChainModules(config: ExperimentConfig, calls?: ModelCallSettings): Promise<void> {
  for (const a of configAgents(config)) {
    if (a.spec.kind !== "model") continue;
    const spec = a.spec as unknown as ModelAgentSpec;
    if (backendOf(spec) !== "langchain") continue;
    const field = a.path.replace(/ \(default from forward\)$/, "");
    await loadLangChainChatModel(spec, spec.apiKeyEnv ? apiKeyOf(spec, calls, `${field}.apiKeyEnv`) : undefined, field);
  }
}
