/**
 * `retrace-cua/stagehand`: drop-in recovery for a Stagehand agent (`@browserbasehq/stagehand` 3.x,
 * hybrid or DOM mode) acting on retrace's browser environment, and `stagehandForwardPolicy`, a
 * hybrid agent's config as a ForwardPolicy that the runtime drives (experiments' `kind: stagehand`).
 * Its own entry so that users of the other SDKs never load Stagehand; Stagehand is an optional
 * peer dependency.
 */
export { executeWithRecovery, type ExecuteWithRecoveryOptions, type StagehandAgent } from "./execute-with-recovery.ts";
export { stagehandToolCallToActions, STAGEHAND_READ_ONLY_TOOLS } from "./convert.ts";
export { stagehandForwardPolicy } from "./forward-policy.ts";
export type { StagehandAgentConfig } from "./config.ts";
export type { SdkRecoveryOptions } from "@retrace-cua/sdk-shared/options";
export type { SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
