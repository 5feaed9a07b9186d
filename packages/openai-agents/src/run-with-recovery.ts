/**
 * `runWithRecovery(agent, input, options)`: sugar over {@link createAgentsRecovery} for a run
 * from start to end in one call: it runs the SDK's own `run()` with the recovery's run config,
 * then `recovery.finish(result)`. With `runOptions.stream: true` the run is streamed and awaited to
 * completion (to consume its events as they come, call `run()` yourself with
 * `createAgentsRecovery`). Server-kept conversations are refused: only the delta would be sent
 * each turn, so there would be no history to cut at R.
 */
import {
  run,
  type Agent,
  type AgentInputItem,
  type CallModelInputFilter,
  type RunConfig,
  type RunResult,
  type StreamedRunResult,
} from "@openai/agents";
import { ConfigError } from "@retrace-cua/core/errors";
import type { SdkRecoveryOptions } from "@retrace-cua/sdk-shared/options";
import type { SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
import { createAgentsRecovery } from "./recovery.ts";

/** Options of {@link runWithRecovery}: the shared SDK options plus what is handed to `run()`. */
export interface RunWithRecoveryOptions extends SdkRecoveryOptions {
  /**
   * Passed to the SDK's `run()` (`maxTurns`, `context`, `stream`, ...); its `callModelInputFilter`, if any, runs on
   * retrace's output.
   */
  runOptions?: Partial<RunConfig> & {
    maxTurns?: number;
    context?: unknown;
    stream?: boolean;
    callModelInputFilter?: CallModelInputFilter;
  };
}

/**
 * Run `agent` on `input` with retrace's recovery. The agent's computer tool must act on
 * `options.env` (e.g. `computerTool({ computer: retraceComputer({ env, blobs }) })`).
 */
export async function runWithRecovery<A extends Agent<any, any>>(
  agent: A,
  input: string | AgentInputItem[],
  options: RunWithRecoveryOptions,
): Promise<SdkEpisodeResult<RunResult<any, A> | StreamedRunResult<any, A> | undefined>> {
  const { runOptions, ...rest } = options ?? ({} as RunWithRecoveryOptions);
  for (const key of ["previousResponseId", "conversationId", "session"] as const) {
    if ((runOptions as Record<string, unknown> | undefined)?.[key] !== undefined)
      throw new ConfigError(
        `runWithRecovery: option "runOptions.${key}" is not supported (the history must be sent each turn to be cut at R)`,
        { field: `runOptions.${key}` },
      );
  }
  const { callModelInputFilter, ...sdkOptions } = runOptions ?? {};
  const recovery = createAgentsRecovery({
    ...rest,
    ...(callModelInputFilter && { callModelInputFilter }),
    ...(rest.task === undefined && {
      task: { id: "sdk-task", instruction: typeof input === "string" ? input : JSON.stringify(input) },
    }),
  });
  let outcome: RunResult<any, A> | StreamedRunResult<any, A> | Error;
  try {
    outcome = await run<A, any>(agent, input, {
      ...(sdkOptions as object),
      ...recovery.runConfig,
      ...(rest.signal && { signal: rest.signal }),
    } as never);
  } catch (err) {
    outcome = err instanceof Error ? err : new Error(String(err));
  }
  return recovery.finish(outcome);
}
