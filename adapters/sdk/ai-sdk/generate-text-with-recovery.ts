/**
 * `generateTextWithRecovery(params, options)`: retrace's online recovery for a Vercel AI SDK
 * agent loop (`generateText` with a computer tool and `stopWhen`), the call left as it is. It
 * runs the SDK's own `generateText` and intercepts in its per-step hook `prepareStep`, which the
 * SDK calls before every model call with the whole message list (initial messages plus every
 * response message): each new assistant message with computer tool calls is one agent step; the
 * step core (../shared/step-recovery.ts) records it, consults the detector outside the freeze
 * window, picks R, runs the recovery sub-agent and returns the cut. The hook keeps its own view
 * of the conversation: the messages before step R's assistant message, the transition string as
 * a user message, then what the loop generates afterwards. Cut messages are never sent again.
 * A `prepareStep` of the caller runs after retrace's, on the cut messages.
 */
import { generateText, type ModelMessage, type PrepareStepFunction, type ToolSet } from "ai";
import type { StopReason } from "../../../src/episode.ts";
import type { TaskSpec } from "../../../src/task.ts";
import type { Action } from "../../../src/action.ts";
import { anthropicComputerInputToActions, type AnthropicComputerInput } from "../../actions/anthropic/convert.ts";
import { resolveSdkOptions, type SdkRecoveryOptions } from "../shared/options.ts";
import { StepRecovery, type CompletedStep } from "../shared/step-recovery.ts";
import { buildSdkResult, type SdkEpisodeResult } from "../shared/result.ts";

/** Options of {@link generateTextWithRecovery}. */
export interface GenerateTextWithRecoveryOptions extends SdkRecoveryOptions {
  /** Names (keys in `tools`) of the computer tools whose calls are agent steps. @default ["computer"] */
  computerTools?: string[];
  /** Maps one tool call's input to Actions, for the detector's history. @default Anthropic's computer tool input */
  toActions?: (input: unknown, toolName: string) => Action[];
}

type GenerateTextParams<TOOLS extends ToolSet> = Parameters<typeof generateText<TOOLS>>[0];
type Part = { type: string; toolName?: string; input?: unknown };

function defaultToActions(input: unknown): Action[] {
  try {
    const i = input as AnthropicComputerInput;
    return i?.action === "screenshot" ? [] : anthropicComputerInputToActions(i);
  } catch {
    return []; // unusable model output: a recorded step without actions
  }
}

function stepCalls(m: ModelMessage, names: readonly string[]): Part[] {
  if (m.role !== "assistant" || typeof m.content === "string") return [];
  return (m.content as Part[]).filter((p) => p.type === "tool-call" && names.includes(p.toolName ?? ""));
}

/** Run `generateText(params)` with retrace's recovery; the computer tool must act on `options.env`. */
export async function generateTextWithRecovery<TOOLS extends ToolSet>(
  params: GenerateTextParams<TOOLS>,
  options: GenerateTextWithRecoveryOptions,
): Promise<SdkEpisodeResult<Awaited<ReturnType<typeof generateText<TOOLS>>>>> {
  const { computerTools = ["computer"], toActions = defaultToActions, ...rest } = options ?? ({} as GenerateTextWithRecoveryOptions);
  const o = resolveSdkOptions("generateTextWithRecovery", rest);
  const instruction = typeof params.prompt === "string" ? params.prompt : JSON.stringify(params.prompt ?? params.messages ?? "");
  const task: TaskSpec = o.task ?? { id: "sdk-task", instruction };
  const recovery = new StepRecovery(o, task);
  const started = Date.now();
  const envMs0 = o.meter.ms;
  recovery.start(await o.meter.observe()); // fresh: the environment may have been reset since the meter last saw it

  let view: ModelMessage[] = [];
  let consumed = 0;
  const userPrepare = params.prepareStep as PrepareStepFunction<TOOLS> | undefined;
  const prepareStep: PrepareStepFunction<TOOLS> = async (args) => {
    const fresh = args.messages.slice(consumed);
    consumed = args.messages.length;
    view = view.concat(fresh);
    const steps: CompletedStep[] = fresh
      .map((m) => stepCalls(m, computerTools))
      .filter((calls) => calls.length > 0)
      .map((calls) => ({ actions: calls.flatMap((c) => toActions(c.input, c.toolName!)), response: calls.map((c) => `${c.toolName}(${JSON.stringify(c.input ?? {})})`).join("; ") }));
    if (steps.length > 0) {
      // The screen after the last tool call, as the tool recorded it (observed only when it recorded none).
      const cut = await recovery.afterSteps(steps, await o.meter.current(), o.signal);
      if (cut) {
        let seen = 0;
        const at = view.findIndex((m) => stepCalls(m, computerTools).length > 0 && seen++ === cut.step);
        view = [...view.slice(0, at < 0 ? view.length : at), { role: "user", content: cut.notice }];
      }
    }
    const messages = structuredClone(view);
    if (!userPrepare) return { messages };
    const theirs = await userPrepare({ ...args, messages });
    return { messages, ...(theirs ?? {}) };
  };

  const result = await generateText({ ...params, prepareStep, ...(o.signal && !params.abortSignal && { abortSignal: o.signal }) } as GenerateTextParams<TOOLS>);
  const stopReason: StopReason = result.finishReason === "tool-calls" ? "max-steps" : "done";
  return buildSdkResult(o, recovery, { result, finalOutput: result.text, stopReason, wallMs: Date.now() - started, envMs: o.meter.ms - envMs0 });
}

export { retraceComputerTool } from "./computer-tool.ts";
export type { SdkEpisodeResult } from "../shared/result.ts";
