/**
 * `generateTextWithRecovery(params, options)`: retrace's online recovery for a Vercel AI SDK
 * agent loop (`generateText` with a computer tool and `stopWhen`), the call left as it is. It
 * runs the SDK's own `generateText` and intercepts in its per-step hook `prepareStep`, which the
 * SDK calls before every model call with the whole message list (initial messages plus every
 * response message): each new assistant message with computer tool calls is one agent step; the
 * step core (../shared/step-recovery.ts) records it, consults the detector outside the freeze
 * window, picks R, runs the recovery sub-agent and returns the cut. The hook keeps its own view
 * of the conversation (../shared/message-view.ts): the messages before step R's assistant
 * message, the transition string as a user message, then what the loop generates afterwards.
 * Cut messages are never sent again.
 * A `prepareStep` of the caller runs after retrace's, on the cut messages.
 */
import { generateText, type ModelMessage, type PrepareStepFunction, type ToolSet } from "ai";
import type { StopReason } from "../../../src/episode.ts";
import type { TaskSpec } from "../../../src/task.ts";
import type { Action } from "../../../src/action.ts";
import { anthropicComputerInputToActions, type AnthropicComputerInput } from "../../actions/anthropic/convert.ts";
import { resolveSdkOptions, type SdkRecoveryOptions } from "../shared/options.ts";
import { StepRecovery, type CompletedStep } from "../shared/step-recovery.ts";
import { MessageView, describeCalls } from "../shared/message-view.ts";
import { buildSdkResult, type SdkEpisodeResult } from "../shared/result.ts";

/** Options of {@link generateTextWithRecovery}. */
export interface GenerateTextWithRecoveryOptions extends SdkRecoveryOptions {
  /** Names (keys in `tools`) of the computer tools whose calls are agent steps. @default ["computer"] */
  computerTools?: string[];
  /** Maps one tool call's input to Actions, for the detector's history. @default Anthropic's computer tool input */
  toActions?: (input: unknown, toolName: string) => Action[];
}

type GenerateTextParams<TOOLS extends ToolSet> = Parameters<typeof generateText<TOOLS>>[0];

function defaultToActions(input: unknown): Action[] {
  try {
    const i = input as AnthropicComputerInput;
    return i?.action === "screenshot" ? [] : anthropicComputerInputToActions(i);
  } catch {
    return []; // unusable model output: a recorded step without actions
  }
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

  const view = new MessageView<ModelMessage>((name) => computerTools.includes(name));
  const userPrepare = params.prepareStep as PrepareStepFunction<TOOLS> | undefined;
  const prepareStep: PrepareStepFunction<TOOLS> = async (args) => {
    const steps: CompletedStep[] = view.absorb(args.messages).map((calls) => ({ actions: calls.flatMap((c) => toActions(c.input, c.toolName)), response: describeCalls(calls) }));
    if (steps.length > 0) {
      // The screen after the last tool call, as the tool recorded it (observed only when it recorded none).
      const cut = await recovery.afterSteps(steps, await o.meter.current(), o.signal);
      if (cut) view.cut(cut.step, cut.notice);
    }
    const messages = view.messages();
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
