/**
 * Anthropic computer use as a forward policy, through the official SDK (@anthropic-ai/sdk 1.14.0,
 * pinned; it runs on Node 20) and the beta `computer` tool. The Messages API is stateless, so the
 * conversation is rebuilt from the history each step: the first user turn carries the task and
 * o_0; each past step contributes its assistant content (kept in the entry's memo) and a user
 * turn with the tool results, whose screenshot is the next observation (only the last N carry the
 * image). A truncated history therefore truncates the model's context as well. The notice goes
 * into the last user turn, after the tool results. An answer without a tool call ends the task
 * (DONE), as in Anthropic's reference loop. Calls use the SDK's retries and timeout and an
 * optional record/replay cache keyed by the request with screenshots as hashes. Under a
 * {@link PromptFraming} (recovery, perturbation) the system prefix goes before the system prompt,
 * the instruction prefix before the task, and the preamble opens the first user turn.
 * An optional call observer (`observe`, packages/models/src/models/call-observer.ts) is told of each call
 * (the request as chat messages with screenshots by reference, the reply, usage or error), which
 * is how the experiments' call log puts these calls on their steps.
 */
import { importOptional, lazy } from "@retrace-cua/core/optional-import";
import { formatAction, type Action } from "@retrace-cua/core/action";
import { AdapterError, ConfigError, ModelBehaviorError } from "@retrace-cua/core/errors";
import type { ChatContentPart } from "@retrace-cua/core/model";
import type { HistoryEntry, JsonValue, PolicyDecision, PolicyFailure, PolicyInput } from "@retrace-cua/core/policy";
import { runtimeSettings, type RuntimeSettings } from "@retrace-cua/core/settings";
import { anthropicComputerInputToActions, type AnthropicComputerInput } from "../../actions/anthropic/convert.ts";
import { toPolicyFailure, unparseable } from "../../actions/errors.ts";
import { anthropicRequestMessages, type ModelCallObserver } from "../../models/call-observer.ts";
import { createRecordReplay, recordedCall, type CacheOptions, type RecordedCall } from "../../models/cache.ts";
import type { DrawScope } from "../../models/draws.ts";
import { hashValue } from "@retrace-cua/core/hash";
import { blobUrl, materializeBlobUrls } from "../../models/content.ts";
import { abortError, toAdapterError } from "../../models/errors.ts";
import { anthropicUsage } from "../../models/provider-usage.ts";
import { callUsage, type PriceTable } from "../../models/pricing.ts";
import { prefixed, type ChatPolicyStats, type FramablePolicy, type PromptFraming } from "../framing.ts";
import { awaitEndpointSlot } from "@retrace-cua/core/runtime/endpoint-limit";
import { registerSecret } from "@retrace-cua/core/secrets";
import { withCallSignal } from "@retrace-cua/core/call-signal";
import { countingAttempts, deadlineFetch } from "../../models/deadline-fetch.ts";
import { exceedsNesting, MAX_NESTING } from "@retrace-cua/core/bounds";

/** Options for {@link createAnthropicPolicy}. */
export interface AnthropicPolicyOptions {
  /** @default "claude-sonnet-4-6" */
  model?: string;
  /** API origin (without /v1). @default the SDK's (api.anthropic.com) */
  baseURL?: string;
  /** @default settings.anthropicApiKey (ANTHROPIC_API_KEY) */
  apiKey?: string;
  /**
   * Computer tool version and the beta flag it needs. @default { tool: "computer_20250124", beta:
   * "computer-use-2025-01-24" }
   */
  toolVersion?: { tool: "computer_20251124" | "computer_20250124" | "computer_20241022"; beta: string };
  /**
   * Screen size the model is shown (screenshots resized, coordinates scaled back): "auto" shrinks
   * screens above the API's image limits (1568 px long edge, 1.15 megapixels) so the model's
   * coordinates match what it sees; "native" never resizes; or an explicit size. @default "auto"
   */
  display?: "auto" | "native" | { width: number; height: number };
  /** Screenshots of the last this-many steps are sent as images; older tool results as text. @default 3 */
  historyImages?: number;
  /** @default 1024 */
  maxTokens?: number;
  /** @default 0.7 */
  temperature?: number;
  /** System prompt. @default a short instruction to operate the computer with the tool */
  system?: string;
  /** SDK retries on 429/5xx/timeouts. @default 3 */
  maxRetries?: number;
  /** Per-attempt timeout in ms. @default 120000 */
  timeoutMs?: number;
  /** Record/replay cache of the calls. @default none */
  cache?: CacheOptions;
  /** The episode's draws: each call's identity keys the cache (these APIs take no seed). @default none */
  draws?: DrawScope;
  /** Prices for cost accounting. @default none */
  prices?: PriceTable;
  /** Told of every call (what was sent, the reply, usage or error), e.g. the experiments' call log. @default none */
  observe?: ModelCallObserver;
  /** Name in records. @default "anthropic-cua:<model>" */
  name?: string;
  /** Settings to fall back on. @default runtimeSettings() */
  settings?: RuntimeSettings;
}

/** What a step remembers: the assistant content blocks, to rebuild the conversation. */
interface AnthropicMemo {
  content: any[];
}

const DEFAULT_SYSTEM =
  "You operate a Linux desktop through the computer tool to carry out the user's task. After each action you receive a new screenshot. When the task is complete, say so without calling the tool.";

/** Create an Anthropic computer-use policy. */
export function createAnthropicPolicy(options: AnthropicPolicyOptions = {}): FramablePolicy {
  const settings = options.settings ?? runtimeSettings();
  const apiKey = options.apiKey ?? settings.anthropicApiKey;
  if (!apiKey && !options.baseURL)
    throw new ConfigError("apiKey: set ANTHROPIC_API_KEY or pass apiKey for Anthropic computer use", {
      field: "apiKey",
    });
  const model = options.model ?? "claude-sonnet-4-6";
  const maxRetries = options.maxRetries ?? 3;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const version = options.toolVersion ?? { tool: "computer_20250124", beta: "computer-use-2025-01-24" };
  registerSecret(apiKey);
  const client = lazy(
    async () =>
      new (
        await importOptional("@anthropic-ai/sdk", "createAnthropicPolicy", () => import("@anthropic-ai/sdk"))
      ).default({
        apiKey: apiKey ?? "no-key",
        ...(options.baseURL && { baseURL: options.baseURL }),
        maxRetries,
        timeout: timeoutMs,
        fetch: deadlineFetch(timeoutMs),
        logLevel: "off",
      }),
  );
  const cache = createRecordReplay(options.cache ?? { dir: "", mode: "off" });
  const historyImages = options.historyImages ?? 3;
  const stats: ChatPolicyStats = { calls: 0, failures: {} };
  const fail = (failure: PolicyFailure, rest: Partial<PolicyDecision> = {}): PolicyDecision => {
    stats.failures[failure.kind] = (stats.failures[failure.kind] ?? 0) + 1;
    return { actions: [], failure, ...rest };
  };

  const displayFor = (w: number, h: number) => {
    const d = options.display ?? "auto";
    if (d === "native") return { width: w, height: h };
    if (d !== "auto") return d;
    const f = Math.min(1, 1568 / Math.max(w, h), Math.sqrt(1_150_000 / (w * h)));
    return { width: Math.floor(w * f), height: Math.floor(h * f) };
  };

  const requestFor = (input: PolicyInput, framing?: PromptFraming): Record<string, unknown> => {
    const display = displayFor(input.observation.width, input.observation.height);
    const h = input.history;
    const observations = [...h.map((e) => e.observation), input.observation];
    const withImage = (i: number) => i >= observations.length - 1 - historyImages;
    const image = (i: number) => {
      const o = observations[i];
      const resized = o.width !== display.width || o.height !== display.height;
      return {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: blobUrl(o.screenshot, resized ? display : undefined) },
      };
    };
    const messages: { role: "user" | "assistant"; content: any[] }[] = [];
    const preamble = (framing?.preamble ?? []).map((p: ChatContentPart) =>
      p.type === "text"
        ? { type: "text", text: p.text }
        : { type: "image", source: { type: "base64", media_type: "image/png", data: blobUrl(p.blob) } },
    );
    const task = prefixed(framing?.instructionPrefix, input.task.instruction);
    messages.push({
      role: "user",
      content: [
        ...preamble,
        { type: "text", text: task },
        ...(withImage(0) ? [image(0)] : [{ type: "text", text: "(screenshot omitted)" }]),
      ],
    });
    h.forEach((entry, i) => {
      const memo = asMemo(entry.memo);
      const next = i + 1;
      const shot = withImage(next) ? [image(next)] : [{ type: "text", text: "(screenshot omitted)" }];
      const toolUses = memo ? memo.content.filter((b) => b?.type === "tool_use") : [];
      messages.push({
        role: "assistant",
        content: memo && memo.content.length ? memo.content : [{ type: "text", text: describe(entry) }],
      });
      messages.push({
        role: "user",
        content: toolUses.length
          ? toolUses.map((t, k) => ({
              type: "tool_result",
              tool_use_id: t.id,
              content: k === toolUses.length - 1 ? shot : [{ type: "text", text: "done" }],
            }))
          : shot,
      });
    });
    if (input.notice) messages[messages.length - 1].content.push({ type: "text", text: input.notice });
    return {
      model,
      max_tokens: options.maxTokens ?? 1024,
      temperature: options.temperature ?? 0.7,
      system: prefixed(framing?.systemPrefix, options.system ?? DEFAULT_SYSTEM),
      tools: [
        {
          type: version.tool,
          name: "computer",
          display_width_px: display.width,
          display_height_px: display.height,
          display_number: 1,
        },
      ],
      betas: [version.beta],
      messages,
    };
  };

  return {
    name: options.name ?? `anthropic-cua:${model}`,
    stats,
    async propose(input: PolicyInput, framing?: PromptFraming): Promise<PolicyDecision> {
      if (input.signal?.aborted) throw abortError(input.signal);
      const request = requestFor(input, framing);
      const draw = options.draws?.next(framing?.role ?? "policy", hashValue(request));
      const display = displayFor(input.observation.width, input.observation.height);
      stats.calls++;
      const started = performance.now();
      const observed = options.observe?.({
        model,
        ...(framing?.prompt && { prompt: framing.prompt }),
        ...(draw && { draw }),
        messages: anthropicRequestMessages(request),
      });
      let res: {
        content: any[];
        usage: {
          input_tokens: number;
          output_tokens: number;
          cached_input_tokens?: number;
          cache_write_input_tokens?: number;
        };
        meta?: RecordedCall;
      };
      let cached: boolean;
      /** HTTP retries of the live call (absent on a cache replay: no request was sent). */
      let retries: number | undefined;
      let attempts = 0;
      const sdk = await client();
      try {
        ({ value: res, cached } = await cache.run(
          request,
          async () => {
            const body = await materializeBlobUrls(request, input.blobs, "base64");
            await awaitEndpointSlot(options.baseURL ?? "https://api.anthropic.com");
            const t0 = performance.now();
            // The SDK's retries (bounded by maxRetries, stopped by an abort) are counted per call (usage.retries).
            const out = await countingAttempts(() =>
              withCallSignal(input.signal, (signal) => sdk.beta.messages.create(body as never, { signal })),
            );
            attempts = out.attempts;
            if ("error" in out) throw out.error;
            retries = Math.max(0, out.attempts - 1);
            const r = out.value;
            const msg = r as unknown as { content: any[]; usage?: unknown };
            // Model output is untrusted: one nested too deep would overflow the stack in every later walk (cache, hash,
            // redaction).
            if (exceedsNesting(msg.content))
              throw unparseable(`the answer's content is nested more than ${MAX_NESTING} levels deep`);
            // Normalised: input_tokens counts every prompt token, cache reads and writes included
            // (packages/models/src/models/provider-usage.ts).
            const n = anthropicUsage(msg.usage);
            const tokens = {
              input_tokens: n.inputTokens,
              output_tokens: n.outputTokens,
              ...(n.cachedInputTokens && { cached_input_tokens: n.cachedInputTokens }),
              ...(n.cacheWriteInputTokens && { cache_write_input_tokens: n.cacheWriteInputTokens }),
            };
            const live = callUsage({
              role: framing?.role ?? "policy",
              ...(framing?.prompt && { prompt: framing.prompt }),
              model,
              ...n,
              provider: "anthropic",
              startedMs: t0,
              prices: options.prices,
            });
            // meta: recorded with the cache entry for the report's viewer (absent in older entries)
            return { content: msg.content, usage: tokens, meta: recordedCall(live) };
          },
          draw,
        ));
      } catch (err) {
        observed?.failed(err);
        if (input.signal?.aborted) throw abortError(input.signal);
        if (err instanceof ConfigError) throw err;
        if (err instanceof ModelBehaviorError) return fail(toPolicyFailure(err));
        return fail({
          kind: "model-error",
          message: (err instanceof AdapterError
            ? err
            : toAdapterError(err, {
                what: `Anthropic computer use (${model})`,
                timeoutMs,
                maxRetries,
                secrets: [apiKey],
                ...(attempts > 0 && { attempts }),
              })
          ).message,
        });
      }
      const {
        input_tokens: inputTokens,
        output_tokens: outputTokens,
        cached_input_tokens: cachedInputTokens,
        cache_write_input_tokens: cacheWriteInputTokens,
      } = res.usage;
      // `retries`: the client's retries of the live call (0 on a first-try answer), in the usage record.
      const usage = {
        ...callUsage({
          role: framing?.role ?? "policy",
          model,
          inputTokens,
          outputTokens,
          cachedInputTokens,
          cacheWriteInputTokens,
          provider: "anthropic",
          startedMs: started,
          cached,
          prices: options.prices,
          ...(framing?.prompt && { prompt: framing.prompt }),
        }),
        ...(retries !== undefined && { retries }),
      };
      const content = Array.isArray(res.content) ? res.content : [];
      const text = content
        .map((b) => (b?.type === "text" ? b.text : b?.type === "tool_use" ? `tool_use ${JSON.stringify(b.input)}` : ""))
        .filter(Boolean)
        .join("\n");
      observed?.done(text, usage);
      const memo = { content } as unknown as JsonValue;
      const uses = content.filter((b) => b?.type === "tool_use");
      if (!uses.length) {
        if (!text.trim())
          return fail({ kind: "empty", message: "the response has neither a tool call nor text" }, { usage: [usage] });
        return { actions: [{ type: "DONE" }], response: text, usage: [usage], memo };
      }
      try {
        const actions: Action[] = uses.flatMap((u) => {
          if (u.name !== "computer")
            throw unparseable(`the model called tool "${String(u.name)}", but only "computer" is offered`);
          return anthropicComputerInputToActions(u.input as AnthropicComputerInput, {
            scaleX: input.observation.width / display.width,
            scaleY: input.observation.height / display.height,
          });
        });
        return { actions, response: text, usage: [usage], memo };
      } catch (err) {
        // no memo: its unanswerable tool calls would poison the rebuilt conversation
        return fail(toPolicyFailure(err), { response: text, usage: [usage] });
      }
    },
  };
}

function asMemo(v: unknown): AnthropicMemo | undefined {
  const m = v as Partial<AnthropicMemo> | undefined;
  return m && typeof m === "object" && Array.isArray(m.content) ? { content: m.content } : undefined;
}

function describe(e: HistoryEntry): string {
  return e.actions.length ? `Actions taken: ${e.actions.map(formatAction).join("; ")}` : "(no usable action)";
}
