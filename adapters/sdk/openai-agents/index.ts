/**
 * `retrace-cua/openai-agents`: drop-in recovery for agents built on the OpenAI Agents SDK
 * (`@openai/agents`). Its own entry so that users of the other SDKs never load this one.
 */
export { runWithRecovery, type RunWithRecoveryOptions } from "./run-with-recovery.ts";
export { retraceComputer, RetraceComputer, type RetraceComputerOptions, type ComputerLogEntry } from "./computer.ts";
export { agentForwardPolicy, type AgentForwardPolicyOptions, type OpenAIAgent } from "./forward-policy.ts";
export type { SdkRecoveryOptions } from "../shared/options.ts";
export type { SdkEpisodeResult } from "../shared/result.ts";
