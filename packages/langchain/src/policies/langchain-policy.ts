/**
 * Any LangChain chat model as a forward policy: the model is wrapped as a retrace ChatModel
 * (createLangChainChatModel) and driven by the pyautogui or UI-TARS agent loop.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel } from "@retrace-cua/core/model";
import { withCache, type CacheOptions } from "@retrace-cua/models/models/cache";
import { createLangChainChatModel } from "@retrace-cua/models/models/langchain-chat";
import type { PriceTable } from "@retrace-cua/models/models/pricing";
import type { ChatPolicy, ChatPolicyOptions } from "@retrace-cua/models/policies/openai/chat-policy";
import { createPyautoguiPolicy } from "@retrace-cua/models/policies/openai/pyautogui-policy";
import { createUiTarsPolicy, type UiTarsPolicyOptions } from "@retrace-cua/models/policies/uitars/uitars-policy";

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
