/**
 * `retrace-cua/ai-sdk`: online recovery for the Vercel AI SDK (`ai` 6 and 7) through its own
 * `prepareStep` hook: `generateText`, `streamText` and `ToolLoopAgent` take
 * `createRecovery(...).prepareStep` (or `.compose(yourPrepareStep)`). Its own entry so that users
 * of the other SDKs never load this one.
 */
export {
  createRecovery,
  AiSdkRecovery,
  type AiSdkRecoveryOptions,
  type PrepareStepArgs,
  type FinishInput,
} from "./recovery.ts";
export { RECOVERY_SPAN, recoverySpanAttributes, type RecoveryTelemetry, type TracerLike } from "./telemetry.ts";
export { generateTextWithRecovery, type GenerateTextWithRecoveryOptions } from "./generate-text-with-recovery.ts";
export {
  retraceComputerTool,
  type RetraceComputerToolOptions,
  type ComputerToolLogEntry,
  type ComputerToolOutput,
} from "./computer-tool.ts";
export { aiSdkForwardPolicy, type AiSdkAgentSettings } from "./forward-policy.ts";
export type { SdkRecoveryOptions } from "@retrace-cua/sdk-shared/options";
export type { SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
export type { RecoveryReport } from "@retrace-cua/core/runtime/recovery-report";
export type { UnconfirmedRestoration } from "@retrace-cua/core/episode";
