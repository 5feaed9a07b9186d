/**
 * `aiSdkForwardPolicy(settings)`: a Vercel AI SDK computer-use agent, given as the settings a team
 * passes to `generateText` (`{ model, tools, system }`), as retrace's ForwardPolicy, so the
 * LangGraph runtime and every experiment (`forward: { kind: ai-sdk, module, export }`) can drive it
 * one step at a time. Each `propose` is one `generateText` step with the agent's model, system
 * prompt and tools (their `execute` removed: the runtime executes the actions on its
 * environment), on the messages the SDK loop itself would send: the task, then per history step
 * its computer tool call and the screenshot after it as the tool result, with the
 * post-restoration notice where the runtime gave it (kept until a later cut).
 */
import { generateText, stepCountIs, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import { aiSdkUsage, withBilled } from "@retrace-cua/models/models/provider-usage";
import type { Action } from "@retrace-cua/core/action";
import type { ForwardPolicy, JsonValue, PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import type { ModelUsage } from "@retrace-cua/core/usage";
import { describeError } from "@retrace-cua/core/errors";
import {
  anthropicComputerInputToActions,
  type AnthropicComputerInput,
} from "@retrace-cua/models/actions/anthropic/convert";
import { toolResultImage } from "./tool-result-image.ts";

/** The agent as `generateText` settings. */
export interface AiSdkAgentSettings {
  model: LanguageModel;
  tools: ToolSet;
  system?: string;
  /** The key of the computer tool in `tools`. @default "computer" */
  computerTool?: string;
  /** Maps the computer tool's input to Actions. @default Anthropic's computer tool input */
  toActions?: (input: unknown) => Action[];
}

interface StepMemo {
  toolCallId?: string;
  toolName?: string;
  input?: JsonValue;
  notice?: string;
}

/** Wrap AI SDK agent settings as a ForwardPolicy. */
export function aiSdkForwardPolicy(settings: AiSdkAgentSettings): ForwardPolicy {
  const toolName = settings.computerTool ?? "computer";
  const toActions =
    settings.toActions ??
    ((i: unknown) =>
      (i as AnthropicComputerInput)?.action === "screenshot"
        ? []
        : anthropicComputerInputToActions(i as AnthropicComputerInput));
  // The runtime executes actions: offer the tools without their execute functions.
  const tools = Object.fromEntries(
    Object.entries(settings.tools).map(([k, t]) => [k, { ...t, execute: undefined }]),
  ) as ToolSet;
  const modelName = typeof settings.model === "string" ? settings.model : settings.model.modelId;

  return {
    name: `ai-sdk:${modelName}`,
    async propose(input: PolicyInput): Promise<PolicyDecision> {
      const messages = await buildMessages(input);
      const started = Date.now();
      let result;
      try {
        result = await generateText({
          model: settings.model,
          tools,
          ...(settings.system !== undefined && { system: settings.system }),
          messages,
          stopWhen: stepCountIs(1),
          ...(input.signal && { abortSignal: input.signal }),
        });
      } catch (err) {
        if (input.signal?.aborted) throw err;
        return { actions: [], failure: { kind: "model-error", message: describeError(err) } };
      }
      const usage: ModelUsage[] = [
        { role: "policy", model: modelName, ...withBilled(aiSdkUsage(result.usage)), latencyMs: Date.now() - started },
      ];
      const notice: StepMemo = input.notice ? { notice: input.notice } : {};
      const call = result.toolCalls.find((c) => c.toolName === toolName);
      if (!call) {
        if (!result.text.trim())
          return {
            actions: [],
            usage,
            memo: notice as unknown as JsonValue,
            failure: { kind: "empty", message: "the response has neither a computer tool call nor text" },
          };
        return { actions: [{ type: "DONE" }], response: result.text, usage, memo: notice as unknown as JsonValue };
      }
      const memo: StepMemo = {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.input as JsonValue,
        ...notice,
      };
      const response = `${call.toolName}(${JSON.stringify(call.input ?? {})})`;
      try {
        return { actions: toActions(call.input), response, usage, memo: memo as unknown as JsonValue };
      } catch (err) {
        return {
          actions: [],
          response,
          usage,
          memo: memo as unknown as JsonValue,
          failure: { kind: "unparseable", message: describeError(err) },
        };
      }
    },
  };
}

/** The messages of a step: task, each step's tool call and the screenshot after it, the notice. */
async function buildMessages(input: PolicyInput): Promise<ModelMessage[]> {
  const out: ModelMessage[] = [{ role: "user", content: input.task.instruction }];
  const { history } = input;
  for (let i = 0; i < history.length; i++) {
    const memo = (history[i].memo ?? {}) as StepMemo;
    if (memo.notice) out.push({ role: "user", content: memo.notice });
    if (!memo.toolCallId || !memo.toolName) {
      out.push({ role: "assistant", content: history[i].response ?? "(no action)" });
      continue;
    }
    const after = history[i + 1]?.observation ?? input.observation;
    const data = (await input.blobs.get(after.screenshot)).toString("base64");
    out.push({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: memo.toolCallId, toolName: memo.toolName, input: memo.input ?? {} }],
    });
    out.push({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: memo.toolCallId,
          toolName: memo.toolName,
          output: { type: "content", value: [toolResultImage(data)] },
        },
      ],
    });
  }
  if (input.notice) out.push({ role: "user", content: input.notice });
  return out;
}
