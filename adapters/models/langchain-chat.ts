/**
 * Any LangChain chat model (a `BaseChatModel`: ChatOpenAI, ChatAnthropic, ChatOllama, ...) as a
 * retrace {@link ChatModel}. Screenshots become `image_url` content parts with data URLs (the
 * form LangChain's providers translate); usage comes from `usage_metadata`; the per-call timeout
 * and AbortSignal go through the runnable config. Retries are the LangChain model's own
 * (`maxRetries` on the model you pass), following the "configure the SDK's retry" rule; so are
 * sampling settings (temperature, max tokens): a request's `temperature`/`maxTokens`/`json` are
 * not forwarded, configure them on the LangChain model.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { BlobReader } from "../../src/blob-store.ts";
import { ConfigError } from "../../src/errors.ts";
import type { ChatModel, ChatRequest, ChatResponse } from "../../src/model.ts";
import { toOpenAIMessages } from "./content.ts";
import { abortError, toAdapterError } from "./errors.ts";
import { langchainUsage } from "./provider-usage.ts";
import { callUsage, type PriceTable } from "./pricing.ts";
import type { ParameterizedChatModel } from "./openai-chat.ts";
import { withCallSignal } from "../../src/call-signal.ts";

/** Options for {@link createLangChainChatModel}. */
export interface LangChainChatModelOptions {
  /** The LangChain chat model to call (configure its retries, key and base URL on it). */
  chatModel: BaseChatModel;
  /** Where screenshots referenced in messages are read from. */
  blobs: BlobReader;
  /** Model name for usage records and cache keys. @default the model's `model`/`modelName` field, else its LangChain type */
  modelName?: string;
  /** Per-call timeout in ms. @default 120000 */
  timeoutMs?: number;
  /** Retries the LangChain model itself is configured with, for error messages only. @default 0 */
  maxRetries?: number;
  /** Prices for costUsd in usage records. @default none */
  prices?: PriceTable;
  /** Secrets to keep out of error messages (e.g. the key you gave the LangChain model). @default [] */
  secrets?: string[];
  /** Pass a request's draw identity as the `seed` call option (ChatOpenAI honours it; others ignore it). @default true */
  sendSeed?: boolean;
}

/** Create a ChatModel backed by a LangChain chat model. */
export function createLangChainChatModel(options: LangChainChatModelOptions): ParameterizedChatModel {
  const lc = options.chatModel;
  if (!lc || typeof (lc as { invoke?: unknown }).invoke !== "function") throw new ConfigError("chatModel: pass a LangChain chat model (BaseChatModel)", { field: "chatModel" });
  const named = lc as unknown as { model?: unknown; modelName?: unknown };
  const model = options.modelName ?? (typeof named.model === "string" ? named.model : typeof named.modelName === "string" ? named.modelName : lc._llmType());
  const timeoutMs = options.timeoutMs ?? 120_000;
  const sendSeed = options.sendSeed ?? true;

  return {
    model,
    requestParams: { backend: "langchain", type: lc._llmType(), ...(!sendSeed && { sendSeed: false }) },
    async complete(request: ChatRequest): Promise<ChatResponse> {
      if (request.signal?.aborted) throw abortError(request.signal);
      const messages = toLangChainMessages(await toOpenAIMessages(request.messages, options.blobs));
      const started = performance.now();
      let reply: BaseMessage;
      try {
        const seed = request.draw && sendSeed ? { seed: request.draw.requestSeed } : {};
        reply = await withCallSignal(request.signal, (signal) => lc.invoke(messages, { signal, timeout: timeoutMs, ...seed } as Parameters<BaseChatModel["invoke"]>[1]));
      } catch (err) {
        if (request.signal?.aborted) throw abortError(request.signal);
        throw toAdapterError(err, { what: `LangChain ${lc._llmType()} call to ${model}`, timeoutMs, maxRetries: options.maxRetries ?? 0, secrets: options.secrets ?? [] });
      }
      const usageMeta = (reply as AIMessage).usage_metadata;
      const usage = callUsage({ role: request.role, model, prompt: request.prompt, ...langchainUsage(usageMeta), startedMs: started, prices: options.prices });
      return { text: messageText(reply), usage };
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
  if (Array.isArray(c)) return c.map((p) => (typeof p === "string" ? p : p && typeof p === "object" && (p as { type?: string }).type === "text" ? String((p as { text?: unknown }).text ?? "") : "")).join("");
  return "";
}
