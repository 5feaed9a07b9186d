/**
 * `runWithRecovery(agent, input, options)`: retrace's online recovery for an agent built with the
 * OpenAI Agents SDK, the agent left as it is. It runs the SDK's own `run()` loop and intercepts in
 * `RunConfig.callModelInputFilter`, which the SDK calls before every model call with the whole
 * turn input (the user's input plus every generated item): each new `computer_call` item is one
 * agent step; the step core (../shared/step-recovery.ts) records it, consults the detector outside
 * the freeze window, picks R, runs the recovery sub-agent on the environment and returns the cut.
 * The filter keeps its own view of the conversation: the items before step R's `computer_call`
 * (and the reasoning items that led to it), the transition string as a user message, then
 * whatever the run generates afterwards. Items cut once are never sent again.
 */
import { MaxTurnsExceededError, run, type Agent, type AgentInputItem, type CallModelInputFilter, type RunConfig, type RunResult } from "@openai/agents";
import type { Observation } from "../../../src/observation.ts";
import type { StopReason } from "../../../src/episode.ts";
import type { TaskSpec } from "../../../src/task.ts";
import type { Action } from "../../../src/action.ts";
import { ConfigError } from "../../../src/errors.ts";
import { openAIComputerActionToActions, type OpenAIComputerAction } from "../../actions/openai-cua/convert.ts";
import { resolveSdkOptions, type SdkRecoveryOptions } from "../shared/options.ts";
import { StepRecovery, type CompletedStep } from "../shared/step-recovery.ts";
import { buildSdkResult, type SdkEpisodeResult } from "../shared/result.ts";

/** Options of {@link runWithRecovery}: the shared SDK options plus what is handed to `run()`. */
export interface RunWithRecoveryOptions extends SdkRecoveryOptions {
  /** Passed to the SDK's `run()` (`maxTurns`, `context`, ...); its `callModelInputFilter`, if any, runs on retrace's output. */
  runOptions?: Partial<RunConfig> & { maxTurns?: number; context?: unknown; callModelInputFilter?: CallModelInputFilter };
}

type Item = AgentInputItem & { type?: string; action?: OpenAIComputerAction; actions?: OpenAIComputerAction[] };

/** The actions of one `computer_call` item (unusable model output maps to none: a recorded, counted mistake). */
function itemActions(item: Item): Action[] {
  const raw = Array.isArray(item.actions) && item.actions.length > 0 ? item.actions : item.action ? [item.action] : [];
  return raw.flatMap((a) => {
    try {
      return openAIComputerActionToActions(a);
    } catch {
      return [];
    }
  });
}

function isCall(item: Item): boolean {
  return item.type === "computer_call";
}

/** Index in `view` of the item that starts step `step` (its computer_call, after the reasoning that led to it). */
function stepBoundary(view: readonly Item[], step: number): number {
  let seen = 0;
  for (let i = 0; i < view.length; i++) {
    if (!isCall(view[i])) continue;
    if (seen++ === step) {
      let j = i;
      while (j > 0 && view[j - 1].type === "reasoning") j--;
      return j;
    }
  }
  return view.length;
}

/**
 * Run `agent` on `input` with retrace's recovery. The agent's computer tool must act on
 * `options.env` (e.g. `computerTool({ computer: retraceComputer({ env, blobs }) })`).
 */
export async function runWithRecovery<A extends Agent<any, any>>(agent: A, input: string | AgentInputItem[], options: RunWithRecoveryOptions): Promise<SdkEpisodeResult<RunResult<any, A> | undefined>> {
  const { runOptions, ...rest } = options ?? ({} as RunWithRecoveryOptions);
  const o = resolveSdkOptions("runWithRecovery", rest);
  for (const key of ["previousResponseId", "conversationId", "session"] as const) {
    // A server-managed conversation sends only the delta each turn: there is no history to cut.
    if ((runOptions as Record<string, unknown> | undefined)?.[key] !== undefined)
      throw new ConfigError(`runWithRecovery: option "runOptions.${key}" is not supported (the history must be sent each turn to be cut at R)`, { field: `runOptions.${key}` });
  }
  const task: TaskSpec = o.task ?? { id: "sdk-task", instruction: typeof input === "string" ? input : JSON.stringify(input) };
  const recovery = new StepRecovery(o, task);
  const started = Date.now();
  const envMs0 = o.meter.ms;
  recovery.start(await o.meter.observe()); // fresh: the environment may have been reset since the meter last saw it

  let view: Item[] = [];
  let consumed = 0;
  const filter: CallModelInputFilter = async (args) => {
    const all = args.modelData.input as Item[];
    const fresh = all.slice(consumed);
    consumed = all.length;
    view = view.concat(fresh);
    const steps: CompletedStep[] = fresh.filter(isCall).map((item) => ({ actions: itemActions(item), response: `computer_call(${JSON.stringify(item.actions ?? item.action ?? {})})` }));
    if (steps.length > 0) {
      // The screen after the last action, as the computer recorded it (observed only when it recorded none).
      const current: Observation = await o.meter.current();
      const cut = await recovery.afterSteps(steps, current, o.signal);
      if (cut) view = [...(cut.cut ? view.slice(0, stepBoundary(view, cut.step)) : view), { role: "user", content: cut.notice } as Item];
    }
    const out = { input: structuredClone(view) as AgentInputItem[], ...(args.modelData.instructions !== undefined && { instructions: args.modelData.instructions }) };
    return runOptions?.callModelInputFilter ? runOptions.callModelInputFilter({ ...args, modelData: out }) : out;
  };

  let stopReason: StopReason = "done";
  let result: RunResult<any, A> | undefined;
  try {
    result = await run<A, any>(agent, input, { ...(runOptions as object), callModelInputFilter: filter, ...(o.signal && { signal: o.signal }) } as never);
  } catch (err) {
    if (err instanceof MaxTurnsExceededError) stopReason = "max-steps";
    else if (o.signal?.aborted) stopReason = "aborted";
    else throw err;
  }
  const finalOutput = typeof result?.finalOutput === "string" ? result.finalOutput : undefined;
  return buildSdkResult(o, recovery, { result, ...(finalOutput !== undefined && { finalOutput }), stopReason, wallMs: Date.now() - started, envMs: o.meter.ms - envMs0 });
}

export { retraceComputer, RetraceComputer } from "./computer.ts";
export type { SdkEpisodeResult } from "../shared/result.ts";
