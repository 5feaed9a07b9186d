/**
 * The `model` kind: a model-backed agent for any role. Forward agents speak the spec's action
 * format (generic pyautogui, UI-TARS over chat completions, OpenAI computer use, Anthropic computer
 * use); the detector, selector, summarizer and verifier are the LLM components of adapters/llm;
 * the recovery sub-agent and the perturber are the LLM recoverer and perturber.
 */
import { ConfigError } from "../../src/errors.ts";
import { createLlmErrorDetector, createLlmPerturbationPolicy, createLlmRecoveryPolicy, createLlmStateVerifier, createLlmStepSelector, createLlmSummarizer } from "../../adapters/llm/index.ts";
import { createAnthropicPolicy } from "../../adapters/policies/anthropic/anthropic-policy.ts";
import { createOpenAICuaPolicy } from "../../adapters/policies/openai-cua/openai-cua-policy.ts";
import { createPyautoguiPolicy } from "../../adapters/policies/openai/pyautogui-policy.ts";
import { createUiTarsPolicy } from "../../adapters/policies/uitars/uitars-policy.ts";
import { apiKeyOf, cacheOptionsOf, chatModelFor, settingsFor } from "./model-client.ts";
import { ModelAgentSpecSchema, backendOf, modelRoleProblem, type ModelAgentSpec } from "./model-spec.ts";
import { MODEL_ROLE_OF, type AgentContext, type AgentOf, type AgentRole } from "./roles.ts";
import type { AgentKind } from "./registry.ts";

function opt<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** Build a model agent for `role` (the spec is already validated). */
export function createModelAgent<R extends AgentRole>(role: R, spec: ModelAgentSpec, ctx: AgentContext): AgentOf[R] {
  const problem = modelRoleProblem(role, spec);
  if (problem) throw new ConfigError(`${role}.${problem.field}: ${problem.message}`, { field: `${role}.${problem.field}` });
  const modelRole = MODEL_ROLE_OF[role];
  const images = opt("historyImages", spec.historyImages);
  const call = { ...opt("temperature", spec.temperature), ...opt("maxTokens", spec.maxTokens), timeoutMs: spec.timeoutMs };
  const backend = backendOf(spec);
  if (role === "forward" && backend !== "openai") {
    // OpenAI computer use and Anthropic computer use keep their own SDK clients (and cache).
    const common = { model: spec.model, baseURL: spec.baseUrl, apiKey: apiKeyOf(spec, ctx.calls), maxRetries: spec.maxRetries, timeoutMs: spec.timeoutMs, prices: spec.prices, cache: cacheOptionsOf(ctx.calls), settings: settingsFor(ctx.calls) };
    const policy = spec.format === "openai-cua" ? createOpenAICuaPolicy(common) : createAnthropicPolicy({ ...common, ...images, ...opt("temperature", spec.temperature), ...opt("maxTokens", spec.maxTokens) });
    return policy as unknown as AgentOf[R];
  }
  const model = chatModelFor(spec, modelRole, ctx);
  let agent: AgentOf[AgentRole];
  switch (role) {
    case "forward":
      agent = spec.format === "uitars" ? createUiTarsPolicy({ model, ...images, ...opt("temperature", spec.temperature), ...opt("maxTokens", spec.maxTokens) }) : createPyautoguiPolicy({ model, ...images, ...opt("temperature", spec.temperature), ...opt("maxTokens", spec.maxTokens) });
      break;
    case "detector":
      agent = createLlmErrorDetector({ model, ...images, ...call });
      break;
    case "selector":
      agent = createLlmStepSelector({ model, ...images, ...call });
      break;
    case "recovery":
      agent = createLlmRecoveryPolicy({ model, actionFormat: "pyautogui", ...images, ...call });
      break;
    case "summarizer":
      agent = createLlmSummarizer({ model, ...images, ...call });
      break;
    case "verifier":
      agent = createLlmStateVerifier({ model, ...call });
      break;
    case "perturber":
      agent = createLlmPerturbationPolicy({ model, ...images, ...call });
      break;
    default:
      throw new ConfigError(`${role}: not an agent role`);
  }
  return agent as AgentOf[R];
}

/** The registry entry of `kind: model`. */
export const MODEL_KIND: AgentKind<ModelAgentSpec> = {
  kind: "model",
  roles: ["forward", "detector", "selector", "recovery", "summarizer", "verifier", "perturber"],
  simulated: false,
  schema: () => ModelAgentSpecSchema,
  check(role, spec) {
    return modelRoleProblem(role, spec);
  },
  create: createModelAgent,
};
