/**
 * `agentForwardPolicy(agent)`: an OpenAI Agents SDK `Agent` as retrace's ForwardPolicy, so the
 * LangGraph runtime (and every experiment: `forward: { kind: openai-agents, module, export }`)
 * can drive it one step at a time. Each `propose` is one call of the agent's own model (its
 * `Model`, or the SDK's OpenAI provider for a model name) with the agent's system prompt, model
 * settings and computer tool, on an input the SDK itself would send: the task, then per history
 * step its `computer_call` and the screenshot after it (`computer_call_result`), then the
 * post-restoration notice where the runtime gave it (kept until a later cut). The runtime owns
 * the loop, so its truncation is the agent's context. Departure from `run()`: only the computer
 * tool is offered (function tools, handoffs and guardrails do not run in this mode; use
 * `runWithRecovery` for those), and nothing is traced.
 */
import {
  NoopTrace,
  OpenAIProvider,
  RunContext,
  withTrace,
  type Agent,
  type AgentInputItem,
  type Model,
} from "@openai/agents";
import { agentsUsage, withBilled } from "@retrace-cua/models/models/provider-usage";
import type { Action } from "@retrace-cua/core/action";
import type { ForwardPolicy, JsonValue, PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import type { ModelUsage } from "@retrace-cua/core/usage";
import { describeError } from "@retrace-cua/core/errors";
import {
  openAIComputerActionToActions,
  type OpenAIComputerAction,
} from "@retrace-cua/models/actions/openai-cua/convert";
import { withCallSignal } from "@retrace-cua/core/call-signal";

/** The memo of one step: the model's computer call as sent, to rebuild the input next time. */
interface StepMemo {
  callId: string;
  action?: OpenAIComputerAction;
  actions?: OpenAIComputerAction[];
  /** The post-restoration notice this step was proposed after (kept in the context until cut). */
  notice?: string;
}

/** Options of {@link agentForwardPolicy}. */
export interface AgentForwardPolicyOptions {
  /**
   * Resolves a model name (when `agent.model` is a string). @default a new OpenAIProvider (OPENAI_API_KEY /
   * OPENAI_BASE_URL)
   */
  provider?: { getModel(name?: string): Model | Promise<Model> };
}

function isModel(m: unknown): m is Model {
  return !!m && typeof m === "object" && typeof (m as Model).getResponse === "function";
}

/** Wrap an Agents SDK agent (with a computer tool) as a ForwardPolicy. */
export function agentForwardPolicy(agent: Agent<any, any>, options: AgentForwardPolicyOptions = {}): ForwardPolicy {
  let model: Promise<Model> | undefined;
  const getModel = () =>
    (model ??= isModel(agent.model)
      ? Promise.resolve(agent.model)
      : Promise.resolve((options.provider ?? new OpenAIProvider()).getModel(agent.model || undefined)));
  const modelName = typeof agent.model === "string" && agent.model ? agent.model : agent.name;

  return {
    name: `openai-agents:${agent.name}`,
    async propose(input: PolicyInput): Promise<PolicyDecision> {
      const items = await buildInput(input);
      const computerTool = agent.tools.find((t) => t.type === "computer") as
        { name: string; computer: { environment?: string; dimensions?: [number, number] } } | undefined;
      const tools = computerTool
        ? [
            {
              type: "computer",
              name: computerTool.name,
              environment: computerTool.computer?.environment ?? "ubuntu",
              dimensions: [input.observation.width, input.observation.height],
            },
          ]
        : [];
      const started = Date.now();
      let response;
      try {
        const m = await getModel();
        const systemInstructions = await agent.getSystemPrompt(new RunContext());
        // The SDK's models open spans; a NoopTrace gives them a context without exporting anything.
        response = await withCallSignal(input.signal, (signal) =>
          withTrace(new NoopTrace(), () =>
            m.getResponse({
              systemInstructions,
              input: items,
              modelSettings: agent.modelSettings ?? {},
              tools: tools as never,
              outputType: "text",
              handoffs: [],
              tracing: false,
              ...(signal && { signal }),
            }),
          ),
        );
      } catch (err) {
        if (input.signal?.aborted) throw err;
        return { actions: [], failure: { kind: "model-error", message: describeError(err) } };
      }
      const usage: ModelUsage[] = [
        {
          role: "policy",
          model: modelName,
          ...withBilled(agentsUsage(response.usage)),
          latencyMs: Date.now() - started,
        },
      ];
      const output = response.output as Array<{
        type?: string;
        callId?: string;
        action?: OpenAIComputerAction;
        actions?: OpenAIComputerAction[];
        role?: string;
        content?: Array<{ type: string; text?: string }>;
      }>;
      const text = output
        .flatMap((i) =>
          i.role === "assistant" && Array.isArray(i.content)
            ? i.content.filter((c) => c.type === "output_text").map((c) => c.text ?? "")
            : [],
        )
        .join("\n");
      const call = output.find((i) => i.type === "computer_call");
      const notice: Record<string, JsonValue> = input.notice ? { notice: input.notice } : {};
      if (!call) {
        if (!text.trim())
          return {
            actions: [],
            usage,
            memo: notice,
            failure: { kind: "empty", message: "the response has neither a computer call nor text" },
          };
        return { actions: [{ type: "DONE" }], response: text, usage, memo: notice };
      }
      const memo: StepMemo = {
        callId: call.callId ?? `call_${input.step}`,
        ...(call.action && { action: call.action }),
        ...(call.actions && { actions: call.actions }),
        ...notice,
      };
      const raw = call.actions?.length ? call.actions : call.action ? [call.action] : [];
      const response_ = `computer_call(${JSON.stringify(call.actions ?? call.action ?? {})})`;
      try {
        const actions: Action[] = raw.flatMap((a) => openAIComputerActionToActions(a));
        return { actions, response: response_, usage, memo: memo as unknown as JsonValue };
      } catch (err) {
        return {
          actions: [],
          response: response_,
          usage,
          memo: memo as unknown as JsonValue,
          failure: { kind: "unparseable", message: describeError(err) },
        };
      }
    },
  };
}

/** The SDK-shaped input for a step: task, each step's call and the screenshot after it, the notice. */
async function buildInput(input: PolicyInput): Promise<AgentInputItem[]> {
  const items: AgentInputItem[] = [{ role: "user", content: input.task.instruction }];
  const { history } = input;
  for (let i = 0; i < history.length; i++) {
    const memo = history[i].memo as unknown as Partial<StepMemo> | undefined;
    if (memo?.notice) items.push({ role: "user", content: memo.notice });
    if (!memo?.callId) {
      items.push({
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: history[i].response ?? "(no action)" }],
      } as AgentInputItem);
      continue;
    }
    const after = history[i + 1]?.observation ?? input.observation;
    const png = (await input.blobs.get(after.screenshot)).toString("base64");
    items.push({
      type: "computer_call",
      callId: memo.callId,
      status: "completed",
      ...(memo.actions ? { actions: memo.actions } : { action: memo.action }),
    } as AgentInputItem);
    items.push({
      type: "computer_call_result",
      callId: memo.callId,
      output: { type: "computer_screenshot", data: `data:image/png;base64,${png}` },
    } as AgentInputItem);
  }
  if (input.notice) items.push({ role: "user", content: input.notice });
  return items;
}

/** The OpenAI Agents SDK's `Agent`, for code above adapters/ that must name it without importing the SDK. */
export type OpenAIAgent = Agent<any, any>;
