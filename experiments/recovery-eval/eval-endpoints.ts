/**
 * The model endpoints a recovery-eval command's agents call, and the preflight that asks each distinct endpoint once
 * (and checks that every agent is priced under --max-cost-usd) before the first episode.
 */
import { assertPricedForCap, type CappedAgent } from "../agents/cost-cap.ts";
import { runtimeSettings } from "@retrace-cua/core/settings";
import { apiKeyOf, backendOf, preflightEndpoints, type Endpoint } from "../agents/index.ts";
import type { EvalAgentSpec } from "./config.ts";
import type { ConfiguredRunOptions } from "./configured-run-options.ts";

const VENDOR_URL = {
  openai: "https://api.openai.com/v1",
  "openai-responses": "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
} as const;

/** The distinct model endpoints of the agents a command uses, with the config fields that use each. */
export function evalEndpoints(
  agents: ReadonlyArray<[string, EvalAgentSpec | undefined]>,
  processEnv: NodeJS.ProcessEnv = process.env,
): Endpoint[] {
  const settings = runtimeSettings(processEnv);
  const byKey = new Map<string, Endpoint>();
  for (const [path, spec] of agents) {
    if (!spec || spec.kind !== "model") continue;
    const backend = backendOf(spec);
    if (backend === "langchain") continue; // the module's own chat model: nothing to preflight here
    const baseUrl = spec.baseUrl ?? (backend === "anthropic" ? undefined : settings.baseUrl) ?? VENDOR_URL[backend];
    const apiKey = apiKeyOf(spec, { cache: "off", cacheDir: "", env: processEnv }, `${path}.apiKeyEnv`);
    const key = `${backend === "anthropic" ? "anthropic" : "openai"} ${baseUrl} ${apiKey ?? ""}`;
    const e = byKey.get(key) ?? { baseUrl, backend, apiKey, users: [] };
    e.users.push(path);
    byKey.set(key, e);
  }
  return [...byKey.values()];
}

/** Check the agents a command uses before its first episode (see the file comment). */
export async function preflightEval(
  options: ConfiguredRunOptions,
  agents: ReadonlyArray<[string, EvalAgentSpec | undefined]>,
): Promise<void> {
  if (options.maxCostUsd !== undefined)
    assertPricedForCap(agents.map(([path, spec]) => ({ path, spec: spec as CappedAgent["spec"] })));
  if (options.preflight === false || options.cache === "read") return;
  await preflightEndpoints(evalEndpoints(agents, options.processEnv), {});
}
