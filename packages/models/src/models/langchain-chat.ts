/**
 * Any LangChain chat model (a `BaseChatModel`: ChatOpenAI, ChatAnthropic, ChatOllama, ...) as a
 * retrace {@link ChatModel}. Screenshots become `image_url` content parts with data URLs (the
 * form LangChain's providers translate); usage comes from `usage_metadata`; the per-call timeout
 * and AbortSignal go through the runnable config. Retries are the LangChain model's own
 * (`maxRetries` on the model you pass; LangChain's default is 6), following the "configure the
 * SDK's retry" rule, and counted: each call's usage record carries `retries`, the failed attempts
 * the model's AsyncCaller retried (see {@link countLangChainRetries}); so are
 * sampling settings (temperature, max tokens): a request's `temperature`/`maxTokens`/`json` are
 * not forwarded, configure them on the LangChain model.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel, ChatRequest, ChatResponse } from "@retrace-cua/core/model";
import { toOpenAIMessages } from "./content.ts";
import { abortError, toAdapterError } from "./errors.ts";
import { langchainUsage } from "./provider-usage.ts";
import { callUsage, type PriceTable } from "./pricing.ts";
import type { ParameterizedChatModel } from "./openai-chat.ts";
import { withCallSignal } from "@retrace-cua/core/call-signal";

/** Options for {@link createLangChainChatModel}. */
export interface LangChainChatModelOptions {
  /** The LangChain chat model to call (configure its retries, key and base URL on it). */
  chatModel: BaseChatModel;
  /** Where screenshots referenced in messages are read from. */
  blobs: BlobReader;
  /**
   * Model name for usage records and cache keys. @default the model's `model`/`modelName` field, else its LangChain
   * type
   */
  modelName?: string;
  /** Per-call timeout in ms. @default 120000 */
  timeoutMs?: number;
  /** Retries the LangChain model itself is configured with, for error messages only. @default 0 */
  maxRetries?: number;
  /** Prices for costUsd in usage records. @default none */
  prices?: PriceTable;
  /** Secrets to keep out of error messages (e.g. the key you gave the LangChain model). @default [] */
  secrets?: string[];
  /**
   * Pass a request's draw identity as the `seed` call option (ChatOpenAI honours it; others ignore it). @default true
   */
  sendSeed?: boolean;
}

/** The failed attempts of the call running in this async context (see {@link countLangChainRetries}). */
const attempts = new AsyncLocalStorage<{ failed: number }>();
/** AsyncCallers already counting. */
const counting = new WeakSet<object>();

/**
 * Make a LangChain model's retries observable: its `caller` (the AsyncCaller every LangChain model
 * makes its provider calls through, retrying them with p-retry) calls `onFailedAttempt` once per
 * failed attempt; retrace wraps that handler once per model, the model's own handler still
 * deciding (a handler that throws stops the retries), and counts the attempts that were retried
 * against the call running in the same async context. False when the model has no AsyncCaller
 * (a custom model that retries some other way): its calls then carry no `retries`.
 */
export function countLangChainRetries(lc: BaseChatModel): boolean {
  const caller = (lc as unknown as { caller?: { onFailedAttempt?: (error: unknown) => unknown } }).caller;
  if (!caller || typeof caller !== "object") return false;
  if (counting.has(caller)) return true;
  const own = caller.onFailedAttempt;
  caller.onFailedAttempt = (error: unknown) => {
    const out = own?.call(caller, error); // throws when it stops the retries: not a retry, not counted
    const call = attempts.getStore();
    if (call) call.failed++;
    return out;
  };
  counting.add(caller);
  return true;
}

/** Create a ChatModel backed by a LangChain chat model. */
export function createLangChainChatModel(options: LangChainChatModelOptions): ParameterizedChatModel {
  const lc = options.chatModel;
  if (!lc || typeof (lc as { invoke?: unknown }).invoke !== "function")
    throw new ConfigError("chatModel: pass a LangChain chat model (BaseChatModel)", { field: "chatModel" });
  const named = lc as unknown as { model?: unknown; modelName?: unknown };
  const model =
    options.modelName ??
    (typeof named.model === "string"
      ? named.model
      : typeof named.modelName === "string"
        ? named.modelName
        : lc._llmType());
  const timeoutMs = options.timeoutMs ?? 120_000;
  const sendSeed = options.sendSeed ?? true;
  const counted = countLangChainRetries(lc);

  return {
    model,
    requestParams: { backend: "langchain", type: lc._llmType(), ...(!sendSeed && { sendSeed: false }) },
    async complete(request: ChatRequest): Promise<ChatResponse> {
      if (request.signal?.aborted) throw abortError(request.signal);
      const messages = toLangChainMessages(await toOpenAIMessages(request.messages, options.blobs));
      const started = performance.now();
      let reply: BaseMessage;
      const call = { failed: 0 };
      try {
        const seed = request.draw && sendSeed ? { seed: request.draw.requestSeed } : {};
        reply = await attempts.run(call, () =>
          withCallSignal(request.signal, (signal) =>
            lc.invoke(messages, { signal, timeout: timeoutMs, ...seed } as Parameters<BaseChatModel["invoke"]>[1]),
          ),
        );
      } catch (err) {
        if (request.signal?.aborted) throw abortError(request.signal);
        throw toAdapterError(err, {
          what: `LangChain ${lc._llmType()} call to ${model}`,
          timeoutMs,
          maxRetries: options.maxRetries ?? 0,
          secrets: options.secrets ?? [],
        });
      }
      const usageMeta = (reply as AIMessage).usage_metadata;
      const usage = callUsage({
        role: request.role,
        model,
        prompt: request.prompt,
        ...langchainUsage(usageMeta),
        startedMs: started,
        prices: options.prices,
      });
      // the attempts the model's AsyncCaller retried before this answer (0 on a first-try answer)
      return { text: messageText(reply), usage: counted ? { ...usage, retries: call.failed } : usage };
    },
  };
}

function toLangChainMessages(wire: Awaited<ReturnType<typeof toOpenAIMessages>>): BaseMessage[] {
  return wire.map((m) => {
    if (m.role === "system") return new SystemMessage(m.content);
    if (m.role === "assistant") return new AIMessage(m.content);
    return new HumanMessage({ content: m.content as never });
  });
}

/** The text of a LangChain reply, whether its content is a string or content blocks. */
export function messageText(message: BaseMessage): string {
  const c = message.content as unknown;
  if (typeof c === "string") return c;
  if (Array.isArray(c))
    return c
      .map((p) =>
        typeof p === "string"
          ? p
          : p && typeof p === "object" && (p as { type?: string }).type === "text"
            ? String((p as { text?: unknown }).text ?? "")
            : "",
      )
      .join("");
  return "";
}
