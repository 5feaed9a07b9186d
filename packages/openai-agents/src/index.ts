/**
 * `retrace-cua/openai-agents`: recovery for agents built on the OpenAI Agents SDK (`@openai/agents`),
 * plugged into the SDK's own `run()` / `Runner` (`createAgentsRecovery`), or in one call
 * (`runWithRecovery`). Its own entry so that users of the other SDKs never load this one.
 */
export {
  createAgentsRecovery,
  AgentsRecovery,
  type AgentsRecoveryOptions,
  type AgentsRecoveryRunConfig,
  type AgentsRunResult,
} from "./recovery.ts";
export { runWithRecovery, type RunWithRecoveryOptions } from "./run-with-recovery.ts";
export { RECOVERY_SPAN_NAME } from "./tracing.ts";
export { retraceComputer, RetraceComputer, type RetraceComputerOptions, type ComputerLogEntry } from "./computer.ts";
export { agentForwardPolicy, type AgentForwardPolicyOptions, type OpenAIAgent } from "./forward-policy.ts";
export type { SdkRecoveryOptions } from "@retrace-cua/sdk-shared/options";
export type { SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
