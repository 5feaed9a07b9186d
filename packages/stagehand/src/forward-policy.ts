/**
 * `stagehandForwardPolicy(config)`: a Stagehand hybrid agent (`@browserbasehq/stagehand` 3.7),
 * given as the `AgentConfig` a team passes to `stagehand.agent(config)`, as retrace's
 * ForwardPolicy, so the LangGraph runtime and every experiment
 * (`forward: { kind: stagehand, module, export }`) drive it one step at a time on retrace's
 * environment. Each model call is one call of the agent's own model (Stagehand resolves it from
 * `config.model` exactly as for the agent: a Stagehand instance, never initialised, serves as
 * Stagehand's model resolver), with Stagehand's own system prompt (`buildAgentSystemPrompt`:
 * hybrid mode, the episode's start URL, `config.systemPrompt`) and its own hybrid tool
 * definitions (`createAgentTools`) with their `execute` removed, on the messages Stagehand's
 * loop itself would send: the instruction, then per history step its assistant turns and the tool
 * results (./tool-results.ts), compressed by Stagehand's own `processMessages`. The runtime owns
 * the loop, so its truncation is the agent's context; the acting tool calls become retrace
 * Actions (./convert.ts) that the environment executes.
 *
 * Where this departs from Stagehand's own loop (`agent.execute`):
 * - Only the coordinate tools act (click, type, keys, scroll, dragAndDrop, clickAndHold,
 *   fillFormVision, wait); `act`, `fillForm`, `extract`, `goto`, `navback` and `search` act
 *   through Stagehand's DOM pipeline or a URL, which retrace's Actions cannot express: they are
 *   not offered (and the system prompt omits them, via Stagehand's `excludeTools`). The agent's
 *   custom and MCP tools (`config.tools`, `integrations`) are not offered either. DOM-mode and
 *   CUA-mode agents are refused (use `executeWithRecovery` for those).
 * - Read-only calls (`screenshot`, `ariaTree`, `think`) are answered inside the step from the
 *   current observation (the environment's screenshot and accessibility tree) and the model is
 *   called again, at most {@link MAX_ANSWERED} times; only acting calls are steps, as in
 *   `executeWithRecovery`. So one step may take more than one model call.
 * - A reply without a tool call ends the episode (DONE); Stagehand's closing forced `done` call
 *   is not made. Of the provider options Stagehand adds per request, Anthropic adaptive thinking
 *   is not sent (thinking blocks would have to be kept across steps for tool use; the memo keeps
 *   none); the others are, from Stagehand's own helpers. Nothing is logged to Stagehand's flow
 *   logger or cache.
 */
import { Stagehand, type AgentConfig } from "@browserbasehq/stagehand";
import { createAgentTools } from "@browserbasehq/stagehand/lib/v3/agent/tools/index.js";
import { buildAgentSystemPrompt } from "@browserbasehq/stagehand/lib/v3/agent/prompts/agentSystemPrompt.js";
import { processMessages } from "@browserbasehq/stagehand/lib/v3/agent/utils/messageProcessing.js";
import {
  isGoogleProvider,
  normalizeGoogleCoordinates,
} from "@browserbasehq/stagehand/lib/v3/agent/utils/coordinateNormalization.js";
import { HYBRID_CAPABLE_MODEL_PATTERNS } from "@browserbasehq/stagehand/lib/v3/types/private/agent.js";
import { anthropicFallbacksOptions } from "@browserbasehq/stagehand/lib/v3/llm/anthropicOptions.js";
import { openAIStoreProviderOptions } from "@browserbasehq/stagehand/lib/v3/llm/providerOptions.js";
import type { Action } from "@retrace-cua/core/action";
import { ConfigError, describeError } from "@retrace-cua/core/errors";
import type { Observation } from "@retrace-cua/core/observation";
import type { ForwardPolicy, JsonValue, PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import type { ModelUsage } from "@retrace-cua/core/usage";
import { stagehandConfigProblem, stagehandModelName } from "./config.ts";
import { stagehandToolCallToActions } from "./convert.ts";
import {
  STAGEHAND_ACTING_TOOLS,
  STAGEHAND_ANSWERED_TOOLS,
  observedUrl,
  toolOutput,
  type ToolWithOutput,
} from "./tool-results.ts";
import { screenshotBase64 } from "@retrace-cua/sdk-shared/screenshot";

/** Read-only calls answered inside one step before the step counts as a failure. */
export const MAX_ANSWERED = 4;

/** Hybrid-mode tools the policy does not offer (they act outside retrace's Actions). */
const NOT_OFFERED = ["act", "fillForm", "extract", "goto", "navback", "search"];

/** One model reply: its text and tool calls, as the model sent them. */
interface Turn {
  text?: string;
  calls: Array<{ id: string; name: string; input: JsonValue }>;
}

/** The memo of one step: its replies (answered ones, then the acting one) and the notice before it. */
interface StepMemo {
  turns: Turn[];
  notice?: string;
}

/** An AI SDK 5 message (Stagehand's `ai`), built here as plain data. */
type Message = { role: string; content: unknown; providerOptions?: unknown };

/** Wrap a Stagehand hybrid agent's config as a ForwardPolicy. */
export function stagehandForwardPolicy(config: AgentConfig): ForwardPolicy {
  const problem = stagehandConfigProblem(config);
  if (problem) throw new ConfigError(`stagehandForwardPolicy: ${problem}`, { field: "agent" });
  const modelName = stagehandModelName(config)!;
  // Without a mode, Stagehand picks one from the model name; only hybrid agents can be driven.
  if (config.mode === undefined && !HYBRID_CAPABLE_MODEL_PATTERNS.some((p) => modelName.includes(p)))
    throw new ConfigError(
      `stagehandForwardPolicy: Stagehand runs ${modelName} agents in "dom" mode, whose tools act through its own page pipeline; set mode: "hybrid", or use executeWithRecovery`,
      { field: "mode" },
    );
  // Stagehand's own model resolution (provider/model name, apiKey/baseURL or the provider's env var).
  const stagehand = new Stagehand({
    env: "LOCAL",
    model: config.model,
    verbose: 0,
    disablePino: true,
    logger: () => undefined,
  });
  const llm = stagehand.llmClient;
  const model = llm.getLanguageModel!();
  const tools = createAgentTools(stagehand, { mode: "hybrid", provider: model.provider, excludeTools: NOT_OFFERED });
  // The runtime executes actions: offer the tools without their execute functions.
  const offered = Object.fromEntries(Object.entries(tools).map(([k, t]) => [k, { ...t, execute: undefined }]));
  const google = isGoogleProvider(model.provider);
  // As Stagehand's agent loop sets them, but for Anthropic adaptive thinking (see the module comment).
  const fallbacks = anthropicFallbacksOptions(model.modelId);
  const providerOptions = {
    google: { mediaResolution: "MEDIA_RESOLUTION_HIGH" },
    ...openAIStoreProviderOptions(model.provider),
    ...(fallbacks && { anthropic: fallbacks }),
  };

  return {
    name: `stagehand:${modelName}`,
    async propose(input: PolicyInput): Promise<PolicyDecision> {
      // Stagehand names the page the run started on; the episode's first observation (shared policy: no state here).
      const system = buildAgentSystemPrompt({
        url: observedUrl(input.history[0]?.observation ?? input.observation),
        executionInstruction: input.task.instruction,
        mode: "hybrid",
        systemInstructions: config.systemPrompt,
        excludeTools: NOT_OFFERED,
      });
      const notice = input.notice ? { notice: input.notice } : {};
      const turns: Turn[] = [];
      const usage: ModelUsage[] = [];
      const memo = () => ({ turns, ...notice }) as unknown as JsonValue;
      for (;;) {
        const messages = await buildMessages(input, tools, turns);
        processMessages(messages as never);
        const started = Date.now();
        let result;
        try {
          result = await llm.generateText({
            model,
            messages: [
              {
                role: "system",
                content: system,
                providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
              },
              ...messages,
            ] as never,
            allowSystemInMessages: true,
            tools: offered as never,
            toolChoice: "auto",
            providerOptions,
            ...(input.signal && { abortSignal: input.signal }),
          } as never);
        } catch (err) {
          if (input.signal?.aborted) throw err;
          return { actions: [], usage, memo: memo(), failure: { kind: "model-error", message: describeError(err) } };
        }
        usage.push({
          role: "policy",
          model: modelName,
          inputTokens: result.usage?.inputTokens ?? 0,
          outputTokens: result.usage?.outputTokens ?? 0,
          latencyMs: Date.now() - started,
        });
        const text = result.text?.trim() ? result.text : undefined;
        const calls = (result.toolCalls ?? []).map((c: { toolCallId: string; toolName: string; input: unknown }) => ({
          id: c.toolCallId,
          name: c.toolName,
          input: (c.input ?? {}) as JsonValue,
        }));
        if (calls.length === 0) {
          if (!text)
            return {
              actions: [],
              usage,
              memo: memo(),
              failure: { kind: "empty", message: "the reply has neither a tool call nor text" },
            };
          return { actions: [{ type: "DONE" }], response: text, usage, memo: memo() };
        }
        turns.push({ ...(text && { text }), calls });
        const response = [text, calls.map((c) => `${c.name}(${JSON.stringify(c.input)})`).join("; ")]
          .filter(Boolean)
          .join("\n");
        const unknown = calls.find(
          (c) => !STAGEHAND_ACTING_TOOLS.includes(c.name) && !STAGEHAND_ANSWERED_TOOLS.includes(c.name),
        );
        if (unknown)
          return {
            actions: [],
            response,
            usage,
            memo: memo(),
            failure: {
              kind: "unparseable",
              message: `the agent called ${unknown.name}, which is not offered when retrace drives it`,
            },
          };
        const acting = calls.filter((c) => STAGEHAND_ACTING_TOOLS.includes(c.name));
        if (acting.length === 0) {
          if (turns.length > MAX_ANSWERED)
            return {
              actions: [],
              response,
              usage,
              memo: memo(),
              failure: {
                kind: "empty",
                message: `${turns.length} read-only calls (screenshot, ariaTree, think) without an action`,
              },
            };
          continue;
        }
        const size = { width: input.observation.width, height: input.observation.height };
        const actions: Action[] = acting.flatMap((c) =>
          toActions(c.name, google ? normalizeGoogle(c.input, size) : c.input),
        );
        if (actions.length === 0)
          return {
            actions: [],
            response,
            usage,
            memo: memo(),
            failure: {
              kind: "unparseable",
              message: `no action in ${acting.map((c) => c.name).join(", ")} (coordinates missing or malformed)`,
            },
          };
        return { actions, response, usage, memo: memo() };
      }
    },
  };
}

/** Stagehand's tool call as Actions (`wait`, read-only for the wrapper, is a WAIT here). */
function toActions(name: string, input: unknown): Action[] {
  if (name !== "wait") return stagehandToolCallToActions(name, input);
  const ms = (input as { timeMs?: unknown })?.timeMs;
  return [{ type: "WAIT", seconds: typeof ms === "number" && ms >= 0 ? Math.min(ms, 30_000) / 1000 : 1 }];
}

/** Google models give coordinates on a 0-1000 grid; Stagehand scales them to the viewport before acting. */
function normalizeGoogle(input: JsonValue, size: { width: number; height: number }): unknown {
  const scale = (v: unknown): unknown => {
    if (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "number") {
      const p = normalizeGoogleCoordinates(v[0], v[1], size);
      return [p.x, p.y];
    }
    if (
      v &&
      typeof v === "object" &&
      typeof (v as { x?: unknown }).x === "number" &&
      typeof (v as { y?: unknown }).y === "number"
    )
      return normalizeGoogleCoordinates((v as { x: number }).x, (v as { y: number }).y, size);
    return v;
  };
  const i = { ...(input as Record<string, unknown>) };
  for (const k of ["coordinates", "startCoordinates", "endCoordinates"]) if (k in i) i[k] = scale(i[k]);
  if (Array.isArray(i.fields))
    i.fields = i.fields.map((f) =>
      f && typeof f === "object"
        ? { ...(f as object), coordinates: scale((f as { coordinates?: unknown }).coordinates) }
        : f,
    );
  return i;
}

/**
 * Stagehand's messages for a step: the instruction, then per history step its notice, its turns and
 * their tool results (read-only calls answered with the step's own observation, acting calls with
 * the one after the step), then the current notice and this step's answered turns so far.
 */
async function buildMessages(
  input: PolicyInput,
  tools: Record<string, ToolWithOutput>,
  current: readonly Turn[],
): Promise<Message[]> {
  const out: Message[] = [{ role: "user", content: input.task.instruction }];
  const png = (obs: Observation) => screenshotBase64(input.blobs, obs, "environment.step()/observe()"); // 0 bytes or no image: one line, not sent
  const pushTurn = async (turn: Turn, before: Observation, after: Observation) => {
    out.push({
      role: "assistant",
      content: [
        ...(turn.text ? [{ type: "text", text: turn.text }] : []),
        ...turn.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.input })),
      ],
    });
    const results = [];
    for (const c of turn.calls) {
      const obs = STAGEHAND_ACTING_TOOLS.includes(c.name) ? after : before;
      results.push({
        type: "tool-result",
        toolCallId: c.id,
        toolName: c.name,
        output: toolOutput(tools[c.name], c.name, c.input, await png(obs), obs),
      });
    }
    out.push({ role: "tool", content: results });
  };
  const { history } = input;
  for (let i = 0; i < history.length; i++) {
    const memo = (history[i].memo ?? {}) as Partial<StepMemo>;
    if (memo.notice) out.push({ role: "user", content: memo.notice });
    if (!memo.turns?.length) {
      out.push({ role: "assistant", content: history[i].response ?? "(no action)" });
      continue;
    }
    const after = history[i + 1]?.observation ?? input.observation;
    for (const turn of memo.turns) await pushTurn(turn, history[i].observation, after);
  }
  if (input.notice) out.push({ role: "user", content: input.notice });
  for (const turn of current) await pushTurn(turn, input.observation, input.observation);
  return out;
}
