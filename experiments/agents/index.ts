/**
 * Agents from config, for every role: `{ kind: sim, profile }`, `{ kind: model, ... }`,
 * `{ kind: stagnation }`, `{ kind: loop }`. Validate a spec with {@link validateAgentSpec} (one
 * ConfigError naming the config field), build one with {@link createAgent}.
 */
export { AGENT_ROLES, MODEL_ROLE_OF } from "./roles.ts";
export type { AgentRole, AgentOf, AgentContext } from "./roles.ts";
export { AgentSpecSchema, type AgentSpec } from "./spec.ts";
export {
  validateAgentSpec,
  createAgent,
  registerAgentKind,
  agentKinds,
  agentKindOf,
  isSimulatedSpec,
} from "./registry.ts";
export type { AgentKind, ValidAgentSpec } from "./kind.ts";
export {
  ModelAgentSpecSchema,
  MODEL_FORMATS,
  MODEL_BACKENDS,
  DEFAULT_MODEL_TIMEOUT_MS,
  DEFAULT_MODEL_RETRIES,
  backendOf,
  modelRoleProblem,
} from "./model-spec.ts";
export type { ModelAgentSpec } from "./model-spec.ts";
export { ModelMeter, CostLedger, type RoleCalls } from "./meter.ts";
export { chatModelFor, apiKeyOf, type ModelCallSettings } from "./model-client.ts";
export { fillModelDefaults, type ModelDefaults } from "./fill.ts";
export { preflightEndpoints, type Endpoint } from "./preflight.ts";
export { SIM_DEFAULT_PROFILE, simOptionsOf, errorMinusOneSelector } from "./sim.ts";
