/**
 * The `model` kind: a model-backed agent for any role. The forward agent, the recovery sub-agent
 * and the perturber speak the spec's action format (generic pyautogui or UI-TARS over chat
 * completions, OpenAI computer use, Anthropic computer use) through the same format adapter; the
 * detector, selector, summarizer and verifier are the LLM components of adapters/llm.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import {
  createLlmErrorDetector,
  createLlmPerturbationPolicy,
  createLlmRecoveryPolicy,
  createLlmStateVerifier,
  createLlmStepSelector,
  createLlmSummarizer,
} from "@retrace-cua/models/llm/index";
import { createFormatPolicy, type AgentFormatSpec } from "@retrace-cua/models/policies/format";
import type { ModelRole } from "@retrace-cua/core/usage";
import { apiKeyOf, cacheOptionsOf, chatModelFor, settingsFor } from "./model-client.ts";
import { ModelAgentSpecSchema, maxTokensOf, modelRoleProblem, type ModelAgentSpec } from "./model-spec.ts";
import { MODEL_ROLE_OF, type AgentContext, type AgentOf, type AgentRole } from "./roles.ts";
import type { AgentKind } from "./kind.ts";

function opt<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/**
 * The format spec (packages/models/src/policies/format.ts) of a model agent: chat formats get the metered,
 * cached chat model; OpenAI and Anthropic computer use keep their own SDK clients and cache, and
 * tell the meter of each call (its call log puts them on their steps like the chat models' calls).
 */
export function formatSpecOf(spec: ModelAgentSpec, role: ModelRole, ctx: AgentContext): AgentFormatSpec {
  const sampling = { ...opt("temperature", spec.temperature), ...opt("maxTokens", maxTokensOf(spec)) };
  if (spec.format === "pyautogui" || spec.format === "uitars")
    return {
      format: spec.format,
      model: chatModelFor(spec, role, ctx),
      observation: spec.observation,
      ...opt("historyImages", spec.historyImages),
      ...sampling,
    };
  const common = {
    model: spec.model,
    baseURL: spec.baseUrl,
    apiKey: apiKeyOf(spec, ctx.calls),
    maxRetries: spec.maxRetries,
    timeoutMs: spec.timeoutMs,
    prices: spec.prices,
    cache: cacheOptionsOf(ctx.calls),
    settings: settingsFor(ctx.calls),
    ...opt("draws", ctx.draws),
    ...(ctx.meter && { observe: ctx.meter.observer(role, spec.prices) }),
  };
  if (spec.format === "openai-cua") return { format: "openai-cua", ...common };
  return { format: "anthropic", ...common, ...opt("historyImages", spec.historyImages), ...sampling };
}

/** Build a model agent for `role` (the spec is already validated). */
export function createModelAgent<R extends AgentRole>(role: R, spec: ModelAgentSpec, ctx: AgentContext): AgentOf[R] {
  const problem = modelRoleProblem(role, spec);
  if (problem)
    throw new ConfigError(`${role}.${problem.field}: ${problem.message}`, { field: `${role}.${problem.field}` });
  const modelRole = MODEL_ROLE_OF[role];
  const images = opt("historyImages", spec.historyImages);
  const call = {
    ...opt("temperature", spec.temperature),
    ...opt("maxTokens", maxTokensOf(spec)),
    timeoutMs: spec.timeoutMs,
  };
  if (role === "forward" || role === "recovery" || role === "perturber") {
    // The action-producing roles share one format spec (paper B.2: same backbone and format).
    const agent = formatSpecOf(spec, modelRole, ctx);
    if (role === "forward") return createFormatPolicy(agent) as unknown as AgentOf[R];
    if (role === "recovery")
      return createLlmRecoveryPolicy({
        agent,
        ...images,
        ...call,
        ...opt("layout", spec.layout),
      }) as unknown as AgentOf[R];
    return createLlmPerturbationPolicy({ agent, ...images, ...call }) as unknown as AgentOf[R];
  }
  const model = chatModelFor(spec, modelRole, ctx);
  let agent: AgentOf[AgentRole];
  switch (role) {
    case "detector":
      agent = createLlmErrorDetector({
        model,
        observation: spec.observation,
        ...images,
        ...call,
        ...opt("stance", spec.stance),
      });
      break;
    case "selector":
      agent = createLlmStepSelector({ model, ...images, ...call });
      break;
    case "summarizer":
      agent = createLlmSummarizer({ model, ...images, ...call });
      break;
    case "verifier":
      agent = createLlmStateVerifier({ model, ...call });
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
