/**
 * `retrace-cua/ai-sdk`: drop-in recovery for a Vercel AI SDK (`ai`) `generateText` loop with
 * Anthropic's computer tool. Its own entry so that users of the other SDKs never load this one.
 */
export { generateTextWithRecovery, type GenerateTextWithRecoveryOptions } from "./generate-text-with-recovery.ts";
export { retraceComputerTool, type RetraceComputerToolOptions, type ComputerToolLogEntry, type ComputerToolOutput } from "./computer-tool.ts";
export { aiSdkForwardPolicy, type AiSdkAgentSettings } from "./forward-policy.ts";
export type { SdkRecoveryOptions } from "../shared/options.ts";
export type { SdkEpisodeResult } from "../shared/result.ts";
