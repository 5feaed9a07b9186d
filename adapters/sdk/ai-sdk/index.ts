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
export type { SdkRecoveryOptions } from "../shared/options.ts";
export type { SdkEpisodeResult } from "../shared/result.ts";
export type { RecoveryReport } from "../../../src/runtime/recovery-report.ts";
export type { UnconfirmedRestoration } from "../../../src/episode.ts";
