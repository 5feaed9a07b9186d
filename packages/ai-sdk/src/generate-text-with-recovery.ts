/**
 * `generateTextWithRecovery(params, options)`: sugar over {@link createRecovery} for one
 * `generateText` call: it builds the recovery, composes it with the call's own `prepareStep`
 * (retrace's runs first, the caller's after it on the messages retrace decided on), runs the
 * SDK's `generateText` and returns the EpisodeResult with the SDK's result as `sdkResult`.
 * `streamText` and `ToolLoopAgent` take `recovery.prepareStep` directly (./recovery.ts).
 */
import { generateText, type ToolSet } from "ai";
import { createRecovery, type AiSdkRecoveryOptions } from "./recovery.ts";
import type { SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";

/** Options of {@link generateTextWithRecovery}. */
export type GenerateTextWithRecoveryOptions = AiSdkRecoveryOptions;

type GenerateTextParams<TOOLS extends ToolSet> = Parameters<typeof generateText<TOOLS>>[0];

/** Run `generateText(params)` with retrace's recovery; the computer tool must act on `options.env`. */
export async function generateTextWithRecovery<TOOLS extends ToolSet>(
  params: GenerateTextParams<TOOLS>,
  options: GenerateTextWithRecoveryOptions,
): Promise<SdkEpisodeResult<Awaited<ReturnType<typeof generateText<TOOLS>>>>> {
  const recovery = createRecovery(options);
  const signal = options?.signal;
  const result = await generateText({
    ...params,
    prepareStep: recovery.compose(params.prepareStep),
    ...(signal && !params.abortSignal && { abortSignal: signal }),
  } as GenerateTextParams<TOOLS>);
  return recovery.finish(result);
}

export { retraceComputerTool } from "./computer-tool.ts";
export type { SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
