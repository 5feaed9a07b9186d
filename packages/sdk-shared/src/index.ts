/**
 * @retrace-cua/sdk-shared: What retrace's SDK integrations share: options, message views, peer guard, results.
 * Explicit named exports only: the names the other entries re-export from it.
 */
export type { SdkRecoveryOptions } from "./options.ts";
export type { SdkEpisodeResult } from "./result.ts";
