/**
 * OpenAI computer use as a forward policy: the Responses API with the `computer_use_preview`
 * tool. The conversation lives on the server and is chained with `previous_response_id`; each
 * history entry's memo keeps the response id and the pending call ids, so after a recovery
 * truncates the history to steps 0..R-1 the next call continues from entry R-1's response and
 * answers its computer_call with the restored screenshot (o_R): the server-side context is
 * truncated exactly like ours. Without such a memo (empty history, or steps made by another
 * policy) the conversation starts afresh with the task, a text summary of past steps and the
 * screenshot. Calls go through the openai SDK (its retries and timeout) and an optional
 * record/replay cache keyed by the request with screenshots as hashes. Under a
 * {@link PromptFraming} (recovery, perturbation) the system prefix is sent as `instructions` on
 * every call (the API does not carry it across `previous_response_id`), the instruction prefix
 * goes before the task and the preamble before it in the first user turn; a framed call that
 * continues a conversation restates the instruction prefix after the call outputs.
 * An optional call observer (`observe`, packages/models/src/models/call-observer.ts) is told of each call
 * (the request as chat messages with screenshots by reference, the reply, usage or error), which
 * is how the experiments' call log puts these calls on their steps.
 */
import { importOptional, lazy } from "@retrace-cua/core/optional-import";
import { formatAction, type Action } from "@retrace-cua/core/action";
import { AdapterError, ConfigError, ModelBehaviorError } from "@retrace-cua/core/errors";
import type { ChatContentPart } from "@retrace-cua/core/model";
import type { JsonValue, PolicyDecision, PolicyFailure, PolicyInput } from "@retrace-cua/core/policy";
import { runtimeSettings, type RuntimeSettings } from "@retrace-cua/core/settings";
import { openAIComputerActionToActions, type OpenAIComputerAction } from "../../actions/openai-cua/convert.ts";
import { toPolicyFailure, unparseable } from "../../actions/errors.ts";
import { responsesRequestMessages, type ModelCallObserver } from "../../models/call-observer.ts";
import { createRecordReplay, recordedCall, type CacheOptions, type RecordedCall } from "../../models/cache.ts";
import type { DrawScope } from "../../models/draws.ts";
import { hashValue } from "@retrace-cua/core/hash";
import { blobUrl, materializeBlobUrls } from "../../models/content.ts";
import { abortError, toAdapterError } from "../../models/errors.ts";
import { responsesUsage } from "../../models/provider-usage.ts";
import { callUsage, type PriceTable } from "../../models/pricing.ts";
import { prefixed, type ChatPolicyStats, type FramablePolicy, type PromptFraming } from "../framing.ts";
import { awaitEndpointSlot } from "@retrace-cua/core/runtime/endpoint-limit";
import { registerSecret } from "@retrace-cua/core/secrets";
import { withCallSignal } from "@retrace-cua/core/call-signal";
import { countingAttempts, deadlineFetch } from "../../models/deadline-fetch.ts";
import { exceedsNesting, MAX_NESTING } from "@retrace-cua/core/bounds";

/** Options for {@link createOpenAICuaPolicy}. */
export interface OpenAICuaPolicyOptions {
  /** @default "computer-use-preview" */
  model?: string;
  /** @default settings.baseUrl, else OpenAI's */
  baseURL?: string;
  /** @default settings.apiKey */
  apiKey?: string;
  /** The `environment` of the computer tool. @default "linux" */
  environment?: "linux" | "windows" | "mac" | "browser" | "ubuntu";
  /** SDK retries on 429/5xx/timeouts. @default 3 */
  maxRetries?: number;
  /** Per-attempt timeout in ms. @default 120000 */
  timeoutMs?: number;
  /**
   * What to do when the model raises safety checks: acknowledge them on the next call and go on,
   * or record a refused step (the next step then starts a fresh conversation). @default "fail"
   */
  onSafetyCheck?: "acknowledge" | "fail";
  /** Ask for reasoning summaries (kept in the step's response text). @default "concise" */
  reasoningSummary?: "auto" | "concise" | "detailed" | "none";
  /** Record/replay cache of the calls. @default none */
  cache?: CacheOptions;
  /** The episode's draws: each call's identity keys the cache (these APIs take no seed). @default none */
  draws?: DrawScope;
  /** Prices for cost accounting. @default none */
  prices?: PriceTable;
  /** Told of every call (what was sent, the reply, usage or error), e.g. the experiments' call log. @default none */
  observe?: ModelCallObserver;
  /** Pixels per wheel click when converting scroll amounts. @default 100 */
  scrollPixelsPerClick?: number;
  /** Name in records. @default "openai-cua:<model>" */
  name?: string;
  /** Settings to fall back on. @default runtimeSettings() */
  settings?: RuntimeSettings;
}

/** What a step remembers to continue the server-side conversation. */
interface CuaMemo {
  responseId: string;
  callIds: string[];
  safety: { id: string; code?: string; message?: string }[];
}

/** The subset of a Responses API answer we read (it is what the cache stores). */
interface CuaResponse {
  id: string;
  output: any[];
  usage?: { input_tokens?: number; output_tokens?: number; cached_input_tokens?: number };
  /** Recorded with the cache entry for the report's viewer (absent in older entries). */
  meta?: RecordedCall;
}

/** Create an OpenAI computer-use policy. */
export function createOpenAICuaPolicy(options: OpenAICuaPolicyOptions = {}): FramablePolicy {
  const settings = options.settings ?? runtimeSettings();
  const model = options.model ?? "computer-use-preview";
  const baseURL = options.baseURL ?? settings.baseUrl;
  const apiKey = options.apiKey ?? settings.apiKey;
  if (!apiKey && !baseURL)
    throw new ConfigError("apiKey: set OPENAI_API_KEY (or RETRACE_API_KEY) or pass apiKey for OpenAI computer use", {
      field: "apiKey",
    });
  const maxRetries = options.maxRetries ?? 3;
  const timeoutMs = options.timeoutMs ?? 120_000;
  registerSecret(apiKey);
  const client = lazy(
    async () =>
      new (await importOptional("openai", "createOpenAICuaPolicy", () => import("openai"))).default({
        apiKey: apiKey ?? "no-key",
        ...(baseURL && { baseURL }),
        maxRetries,
        timeout: timeoutMs,
        fetch: deadlineFetch(timeoutMs),
        logLevel: "off",
      }),
  );
  const cache = createRecordReplay(options.cache ?? { dir: "", mode: "off" });
  const stats: ChatPolicyStats = { calls: 0, failures: {} };
  const fail = (failure: PolicyFailure, rest: Partial<PolicyDecision> = {}): PolicyDecision => {
    stats.failures[failure.kind] = (stats.failures[failure.kind] ?? 0) + 1;
    return { actions: [], failure, ...rest };
  };

  const requestFor = (input: PolicyInput, framing?: PromptFraming): Record<string, unknown> => {
    const tool = {
      type: "computer_use_preview",
      display_width: input.observation.width,
      display_height: input.observation.height,
      environment: options.environment ?? "linux",
    };
    const screenshot = blobUrl(input.observation.screenshot);
    const notice = input.notice ? [{ role: "user", content: [{ type: "input_text", text: input.notice }] }] : [];
    const summary = options.reasoningSummary ?? "concise";
    const base = {
      model,
      tools: [tool],
      truncation: "auto",
      ...(summary !== "none" && { reasoning: { summary } }),
      ...(framing?.systemPrefix && { instructions: framing.systemPrefix }),
    };
    const last = input.history[input.history.length - 1];
    const memo = asMemo(last?.memo);
    if (memo) {
      const outputs = memo.callIds.map((call_id) => ({
        type: "computer_call_output",
        call_id,
        output: { type: "computer_screenshot", image_url: screenshot },
        ...(memo.safety.length && { acknowledged_safety_checks: memo.safety }),
      }));
      const look = memo.callIds.length
        ? []
        : [
            {
              role: "user",
              content: [
                { type: "input_text", text: "Continue with the task. Here is the current screen." },
                { type: "input_image", image_url: screenshot },
              ],
            },
          ];
      // A framed call continuing a conversation (e.g. a perturbation step after forward steps) restates the instruction
      // prefix.
      const framed = framing?.instructionPrefix
        ? [{ role: "user", content: [{ type: "input_text", text: framing.instructionPrefix }] }]
        : [];
      return { ...base, previous_response_id: memo.responseId, input: [...notice, ...outputs, ...framed, ...look] };
    }
    const past = input.history.length
      ? `\n\nSteps already taken:\n${input.history.map((e) => `Step ${e.step}: ${e.actions.map(formatAction).join("; ") || "(no usable action)"}`).join("\n")}`
      : "";
    return {
      ...base,
      input: [
        ...notice,
        {
          role: "user",
          content: [
            ...(framing?.preamble ?? []).map((p: ChatContentPart) =>
              p.type === "text"
                ? { type: "input_text", text: p.text }
                : { type: "input_image", image_url: blobUrl(p.blob) },
            ),
            { type: "input_text", text: `${prefixed(framing?.instructionPrefix, input.task.instruction)}${past}` },
            { type: "input_image", image_url: screenshot },
          ],
        },
      ],
    };
  };

  return {
    name: options.name ?? `openai-cua:${model}`,
    stats,
    async propose(input: PolicyInput, framing?: PromptFraming): Promise<PolicyDecision> {
      if (input.signal?.aborted) throw abortError(input.signal);
      const request = requestFor(input, framing);
      const draw = options.draws?.next(framing?.role ?? "policy", hashValue(request));
      stats.calls++;
      const started = performance.now();
      const observed = options.observe?.({
        model,
        ...(framing?.prompt && { prompt: framing.prompt }),
        ...(draw && { draw }),
        messages: responsesRequestMessages(request),
      });
      let res: CuaResponse;
      let cached: boolean;
      /** HTTP retries of the live call (absent on a cache replay: no request was sent). */
      let retries: number | undefined;
      let attempts = 0;
      const sdk = await client();
      try {
        ({ value: res, cached } = await cache.run(
          request,
          async (): Promise<CuaResponse> => {
            const body = await materializeBlobUrls(request, input.blobs);
            await awaitEndpointSlot(baseURL ?? "https://api.openai.com/v1");
            const t0 = performance.now();
            // The SDK's retries (bounded by maxRetries, stopped by an abort) are counted per call (usage.retries).
            const out = await countingAttempts(() =>
              withCallSignal(input.signal, (signal) => sdk.responses.create(body as never, { signal })),
            );
            attempts = out.attempts;
            if ("error" in out) throw out.error;
            retries = Math.max(0, out.attempts - 1);
            const r = out.value as unknown as CuaResponse;
            // Model output is untrusted: one nested too deep would overflow the stack in every later walk (cache, hash,
            // redaction).
            if (exceedsNesting(r.output))
              throw unparseable(`the answer's output is nested more than ${MAX_NESTING} levels deep`);
            const n = responsesUsage(r.usage);
            const tokens = {
              input_tokens: n.inputTokens,
              output_tokens: n.outputTokens,
              ...(n.cachedInputTokens && { cached_input_tokens: n.cachedInputTokens }),
            };
            const live = callUsage({
              role: framing?.role ?? "policy",
              ...(framing?.prompt && { prompt: framing.prompt }),
              model,
              ...n,
              startedMs: t0,
              prices: options.prices,
            });
            return { id: r.id, output: r.output, usage: tokens, meta: recordedCall(live) };
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
                what: `OpenAI computer use (${model})`,
                timeoutMs,
                maxRetries,
                secrets: [apiKey],
                ...(attempts > 0 && { attempts }),
              })
          ).message,
        });
      }
      // `retries`: the client's retries of the live call (0 on a first-try answer), in the usage record.
      const usage = {
        ...callUsage({
          role: framing?.role ?? "policy",
          ...(framing?.prompt && { prompt: framing.prompt }),
          model,
          inputTokens: res.usage?.input_tokens ?? 0,
          outputTokens: res.usage?.output_tokens ?? 0,
          cachedInputTokens: res.usage?.cached_input_tokens,
          startedMs: started,
          cached,
          prices: options.prices,
        }),
        ...(retries !== undefined && { retries }),
      };
      const calls = (res.output ?? []).filter((o) => o?.type === "computer_call");
      const text = describeOutput(res.output ?? []);
      observed?.done(text, usage);
      const safety = calls.flatMap((c) => (Array.isArray(c.pending_safety_checks) ? c.pending_safety_checks : []));
      const memo: CuaMemo = { responseId: res.id, callIds: calls.map((c) => String(c.call_id)), safety };
      if (safety.length && (options.onSafetyCheck ?? "fail") === "fail") {
        return fail(
          {
            kind: "refused",
            message: `the model raised safety checks: ${safety.map((s: { code?: string }) => s.code ?? "unknown").join(", ")} (set onSafetyCheck: "acknowledge" to continue)`,
          },
          { response: text, usage: [usage] },
        );
      }
      if (!calls.length) {
        // Like OpenAI's reference loop: an answer without a computer call ends the task.
        if (!text.trim())
          return fail(
            { kind: "empty", message: "the response has neither a computer call nor text" },
            { usage: [usage], memo: memo as unknown as JsonValue },
          );
        return { actions: [{ type: "DONE" }], response: text, usage: [usage], memo: memo as unknown as JsonValue };
      }
      try {
        const actions: Action[] = calls.flatMap((c) =>
          openAIComputerActionToActions(c.action as OpenAIComputerAction, {
            scrollPixelsPerClick: options.scrollPixelsPerClick,
          }),
        );
        return { actions, response: text, usage: [usage], memo: memo as unknown as JsonValue };
      } catch (err) {
        return fail(toPolicyFailure(err), { response: text, usage: [usage], memo: memo as unknown as JsonValue });
      }
    },
  };
}

function asMemo(v: unknown): CuaMemo | undefined {
  const m = v as Partial<CuaMemo> | undefined;
  if (!m || typeof m !== "object" || typeof m.responseId !== "string" || !Array.isArray(m.callIds)) return undefined;
  return { responseId: m.responseId, callIds: m.callIds.map(String), safety: Array.isArray(m.safety) ? m.safety : [] };
}

/** Reasoning summaries, message text and the calls, as the step's response text. */
function describeOutput(output: any[]): string {
  const lines: string[] = [];
  for (const o of output) {
    if (o?.type === "reasoning")
      for (const s of o.summary ?? []) if (typeof s?.text === "string") lines.push(`Reasoning: ${s.text}`);
    if (o?.type === "message") for (const c of o.content ?? []) if (typeof c?.text === "string") lines.push(c.text);
    if (o?.type === "computer_call") lines.push(`computer_call ${JSON.stringify(o.action)}`);
  }
  return lines.join("\n");
}
