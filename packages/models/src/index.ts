/**
 * `retrace-cua/models`: what talks to models. Model clients (OpenAI-compatible chat, embeddings,
 * the record/replay cache, pricing, secret redaction), action formats and their converters
 * (pyautogui, UI-TARS, OpenAI computer use, Anthropic), forward policies, and the LLM-backed
 * detector, selector, recoverer, summarizer, verifiers, recovery judge and perturber. Light: it
 * loads no vendor SDK at import (each client loads its optional peer on first use) and no
 * LangChain or LangGraph (the LangChain chat model and policy are in `retrace-cua/langchain`).
 * Explicit named exports only. Pinned by test/public-api.test.ts.
 */
export { createOpenAIChatModel } from "./models/openai-chat.ts";
export { createOpenAIEmbeddings } from "./models/openai-embeddings.ts";
export type { OpenAIEmbeddingsOptions } from "./models/openai-embeddings.ts";
export type { OpenAIChatModelOptions, ParameterizedChatModel } from "./models/openai-chat.ts";
export { withCache, parseCacheMode, CACHE_MODES } from "./models/cache.ts";
export type { CacheOptions, CacheMode, CacheStats, CachedChatModel } from "./models/cache.ts";
export { cachePricingFor, costUsd, priceFor } from "./models/pricing.ts";
export type { PriceTable, ModelPrice } from "./models/pricing.ts";
export { redactSecrets } from "./models/redact.ts";
export { parsePyautogui, pyautoguiResponseToActions, extractCodeBlocks } from "./actions/pyautogui/convert.ts";
export type { PyautoguiParseOptions } from "./actions/pyautogui/convert.ts";
export { ActionFormatError } from "./actions/errors.ts";
export { uiTarsToActions } from "./actions/uitars/convert.ts";
export type { UiTarsParseOptions, UiTarsCoordinates, UiTarsParsed } from "./actions/uitars/convert.ts";
export { openAIComputerActionToActions } from "./actions/openai-cua/convert.ts";
export type { OpenAIComputerAction, OpenAIComputerConvertOptions } from "./actions/openai-cua/convert.ts";
export { anthropicComputerInputToActions, xdotoolKeysToActions } from "./actions/anthropic/convert.ts";
export type { AnthropicComputerInput, AnthropicConvertOptions } from "./actions/anthropic/convert.ts";
export { createRecordReplay } from "./models/cache.ts";
export type { RecordReplay } from "./models/cache.ts";
export { createChatPolicy } from "./policies/openai/chat-policy.ts";
export type {
  ChatPolicy,
  ChatPolicyFormat,
  ChatPolicyOptions,
  ChatPolicyStats,
} from "./policies/openai/chat-policy.ts";
export { createPyautoguiPolicy } from "./policies/openai/pyautogui-policy.ts";
export type { PyautoguiPolicyOptions } from "./policies/openai/pyautogui-policy.ts";
export { createUiTarsPolicy } from "./policies/uitars/uitars-policy.ts";
export type { UiTarsPolicyOptions } from "./policies/uitars/uitars-policy.ts";
export { createOpenAICuaPolicy } from "./policies/openai-cua/openai-cua-policy.ts";
export type { OpenAICuaPolicyOptions } from "./policies/openai-cua/openai-cua-policy.ts";
export { createAnthropicPolicy } from "./policies/anthropic/anthropic-policy.ts";
export type { AnthropicPolicyOptions } from "./policies/anthropic/anthropic-policy.ts";
export { ACTION_FORMATS, createFormatPolicy } from "./policies/format.ts";
export type { ActionFormat, AgentFormatSpec } from "./policies/format.ts";
export type { FramablePolicy, PromptFraming } from "./policies/framing.ts";
export {
  createLlmErrorDetector,
  DetectorReplySchema,
  createDetectionPreset,
  DETECTION_PRESETS,
  PRODUCTION_DETECTION,
  PRODUCTION_GATES,
  PRODUCTION_RECOVERY,
  createLlmStepSelector,
  SelectorReplySchema,
  createLlmRecoveryPolicy,
  RESTORED_TOKEN,
  createLlmSummarizer,
  createLlmStateVerifier,
  createAgenticLlmVerifier,
  createLlmRecoveryJudge,
  createLlmPerturbationPolicy,
} from "./llm/index.ts";
export type {
  LlmErrorDetectorOptions,
  DetectorReply,
  DetectionPreset,
  DetectionPresetOptions,
  LlmStepSelectorOptions,
  LlmRecoveryPolicyOptions,
  LlmSummarizerOptions,
  LlmStateVerifier,
  LlmStateVerifierOptions,
  LlmVerification,
  AgenticLlmVerifier,
  AgenticLlmVerifierOptions,
  AgenticVerification,
  ProbeStepRecord,
  LlmRecoveryJudge,
  LlmRecoveryJudgeOptions,
  RecoveryJudgeInput,
  RecoveryJudgement,
  LlmPerturbationPolicyOptions,
  ActionParser,
} from "./llm/index.ts";
export type { RecoveryReport } from "@retrace-cua/core/runtime/recovery-report";
