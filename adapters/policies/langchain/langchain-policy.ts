/**
 * Any LangChain chat model as a forward policy: the model is wrapped as a retrace ChatModel
 * (createLangChainChatModel) and driven by the pyautogui or UI-TARS agent loop.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BlobReader } from "../../../src/blob-store.ts";
import { ConfigError } from "../../../src/errors.ts";
import type { ChatModel } from "../../../src/model.ts";
import { withCache, type CacheOptions } from "../../models/cache.ts";
import { createLangChainChatModel } from "../../models/langchain-chat.ts";
import type { PriceTable } from "../../models/pricing.ts";
import type { ChatPolicy, ChatPolicyOptions } from "../openai/chat-policy.ts";
import { createPyautoguiPolicy } from "../openai/pyautogui-policy.ts";
import { createUiTarsPolicy, type UiTarsPolicyOptions } from "../uitars/uitars-policy.ts";

/** Options for {@link createLangChainPolicy}. */
export interface LangChainPolicyOptions
  extends Omit<ChatPolicyOptions, "model">, Pick<UiTarsPolicyOptions, "coordinates" | "language"> {
  /** The LangChain chat model (a vision model). */
  chatModel: BaseChatModel;
  /** Where screenshots are read from when building requests. */
  blobs: BlobReader;
  /** Answer format the model is prompted for. @default "pyautogui" */
  format?: "pyautogui" | "uitars";
  /** Model name for records. @default the LangChain model's own */
  modelName?: string;
  /** Per-call timeout in ms. @default 120000 */
  timeoutMs?: number;
  /** Prices for cost accounting. @default none */
  prices?: PriceTable;
  /** Record/replay cache of the model calls. @default none */
  cache?: CacheOptions;
}

/** Create a forward policy backed by a LangChain chat model. */
export function createLangChainPolicy(options: LangChainPolicyOptions): ChatPolicy {
  const { chatModel, blobs, format = "pyautogui", modelName, timeoutMs, prices, cache, ...rest } = options;
  const backend = createLangChainChatModel({ chatModel, blobs, modelName, timeoutMs, prices });
  const model: ChatModel = cache ? withCache(backend, cache) : backend;
  if (format === "pyautogui")
    return createPyautoguiPolicy({ ...rest, model, name: rest.name ?? `langchain-pyautogui:${model.model}` });
  if (format === "uitars")
    return createUiTarsPolicy({ ...rest, model, name: rest.name ?? `langchain-uitars:${model.model}` });
  throw new ConfigError(`format: "${format}" is not a LangChain policy format; use "pyautogui" or "uitars"`, {
    field: "format",
  });
}
