/**
 * `retrace-cua/adapters`: what talks to the outside world. Model clients (OpenAI-compatible chat,
 * LangChain, embeddings, the record/replay cache, pricing), action formats and their converters
 * (pyautogui, UI-TARS, OpenAI computer use, Anthropic), policies, the LLM-backed detector,
 * selector, recoverer, summarizer and verifiers, the LangChain middleware, and environments
 * (SimDesk, seeded simulated agents, X11, containers, OSWorld). The only layer that imports vendor
 * SDKs. Explicit named exports only. Pinned by test/public-api.test.ts.
 */
export { createOpenAIChatModel } from "./models/openai-chat.ts";
export { createOpenAIEmbeddings } from "./models/openai-embeddings.ts";
export type { OpenAIEmbeddingsOptions } from "./models/openai-embeddings.ts";
export type { OpenAIChatModelOptions, ParameterizedChatModel } from "./models/openai-chat.ts";
export { createLangChainChatModel } from "./models/langchain-chat.ts";
export type { LangChainChatModelOptions } from "./models/langchain-chat.ts";
export { withCache, parseCacheMode, CACHE_MODES } from "./models/cache.ts";
export type { CacheOptions, CacheMode, CacheStats, CachedChatModel } from "./models/cache.ts";
export { costUsd, priceFor } from "./models/pricing.ts";
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
export type { ChatPolicy, ChatPolicyFormat, ChatPolicyOptions, ChatPolicyStats } from "./policies/openai/chat-policy.ts";
export { createPyautoguiPolicy } from "./policies/openai/pyautogui-policy.ts";
export type { PyautoguiPolicyOptions } from "./policies/openai/pyautogui-policy.ts";
export { createUiTarsPolicy } from "./policies/uitars/uitars-policy.ts";
export type { UiTarsPolicyOptions } from "./policies/uitars/uitars-policy.ts";
export { createOpenAICuaPolicy } from "./policies/openai-cua/openai-cua-policy.ts";
export type { OpenAICuaPolicyOptions } from "./policies/openai-cua/openai-cua-policy.ts";
export { createAnthropicPolicy } from "./policies/anthropic/anthropic-policy.ts";
export type { AnthropicPolicyOptions } from "./policies/anthropic/anthropic-policy.ts";
export { createLangChainPolicy } from "./policies/langchain/langchain-policy.ts";
export type { LangChainPolicyOptions } from "./policies/langchain/langchain-policy.ts";
export { ACTION_FORMATS, createFormatPolicy } from "./policies/format.ts";
export type { ActionFormat, AgentFormatSpec } from "./policies/format.ts";
export type { FramablePolicy, PromptFraming } from "./policies/framing.ts";
// LLM-backed components: detector, selector, recoverer, summarizer, verifiers, recovery judge, perturber.
export { createLlmErrorDetector, DetectorReplySchema, createLlmStepSelector, SelectorReplySchema, createLlmRecoveryPolicy, RESTORED_TOKEN, createLlmSummarizer, createLlmStateVerifier, createAgenticLlmVerifier, createLlmRecoveryJudge, createLlmPerturbationPolicy } from "./llm/index.ts";
export type { LlmErrorDetectorOptions, DetectorReply, LlmStepSelectorOptions, LlmRecoveryPolicyOptions, LlmSummarizerOptions, LlmStateVerifier, LlmStateVerifierOptions, LlmVerification, AgenticLlmVerifier, AgenticLlmVerifierOptions, AgenticVerification, ProbeStepRecord, LlmRecoveryJudge, LlmRecoveryJudgeOptions, RecoveryJudgeInput, RecoveryJudgement, LlmPerturbationPolicyOptions, ActionParser } from "./llm/index.ts";
export { recoveryMiddleware, RECOVERY_EVENT } from "./langchain/recovery-middleware.ts";
export type { RecoveryReport } from "../src/runtime/recovery-report.ts";
export { recoverWithPolicy } from "../src/runtime/recover-with-policy.ts";
export type { RecoverWithPolicyOptions } from "../src/runtime/recover-with-policy.ts";
export type { RecoveryTrack } from "./langchain/recovery-middleware.ts";
export type { RecoveryMiddlewareOptions, RestoreRequest, RestoreResult } from "./langchain/options.ts";
export { createSimDesk, SimDesk, SIMDESK_TASKS, getSimDeskTask } from "./environments/simdesk/index.ts";
export type { SimDeskOptions, SimDeskTask, SimGroundTruth, SimDeskSetup, SimDeskEvaluator } from "./environments/simdesk/index.ts";
// Seeded simulated agents for SimDesk (labelled "simulated" in every output).
export {
  createSimForwardPolicy,
  createSimRecoveryPolicy,
  createSimPerturbationPolicy,
  createSimDetector,
  createSimStepSelector,
  createSimAgents,
  describeSimulated,
  SIM_PROFILES,
  SIM_RECOVERER_SKILLED,
  SIM_RECOVERER_WEAK,
  SIM_RECOVERER_FLAILING,
  DEFAULT_SLIP_MIX,
  trajectoryTruth,
  correctRecoveryStep,
} from "./policies/simulated/index.ts";
export type {
  SimForwardPolicy,
  SimForwardPolicyOptions,
  SimRecoveryPolicy,
  SimRecoveryPolicyOptions,
  SimPerturbationPolicy,
  SimPerturbationPolicyOptions,
  SimDetector,
  SimDetectorOptions,
  SimStepSelector,
  SimStepSelectorOptions,
  SimAgents,
  SimAgentsOptions,
  SlipMix,
  TrajectoryTruth,
} from "./policies/simulated/index.ts";
// Real desktops: X11 on the host, containers through dockerode, OSWorld (adapters/environments).
export { createEnvironmentFactory, tasksForEnvironment, isEnvironmentKind, ENVIRONMENT_KINDS } from "./environments/registry.ts";
export type { EnvironmentFactoryOptions, EnvironmentKind } from "./environments/registry.ts";
export { createX11Desktop } from "./environments/x11/create.ts";
export type { X11DesktopOptions } from "./environments/x11/create.ts";
export { DesktopEnvironment } from "./environments/x11/desktop-environment.ts";
export type { DesktopEnvironmentOptions, DesktopStepTimings } from "./environments/x11/desktop-environment.ts";
export { createDockerDesktop } from "./environments/docker/create.ts";
export type { DockerDesktopOptions } from "./environments/docker/create.ts";
export { createDockerClient, removeManagedContainers, MANAGED_LABEL, RUN_LABEL } from "./environments/docker/engine.ts";
export { DESKTOP_TASKS, desktopTask } from "./environments/desktop-tasks/tasks.ts";
export type { DesktopTask, DesktopCheck, DesktopSetup, DesktopEvaluator } from "./environments/desktop-tasks/types.ts";
export { createPlanDivergenceDetector } from "./environments/desktop-tasks/plan-detector.ts";
export { OsworldClient } from "./environments/osworld/client.ts";
export type { OsworldClientOptions, OsworldExecResult } from "./environments/osworld/client.ts";
export { startOsworldControlServer } from "./environments/osworld/control-server.ts";
export type { OsworldControlServer, OsworldControlServerOptions } from "./environments/osworld/control-server.ts";
export { OsworldEnvironment, actionToPyautogui } from "./environments/osworld/environment.ts";
export type { OsworldEnvironmentOptions } from "./environments/osworld/environment.ts";
export { startOsworldVm, osworldContainerSpec, allocateOsworldPorts, releaseOsworldPorts, detectKvm } from "./environments/osworld/provider.ts";
export type { OsworldVm, OsworldPorts, StartOsworldVmOptions } from "./environments/osworld/provider.ts";
export { loadOsworldTasks, parseOsworldTask } from "./environments/osworld/tasks.ts";
export type { OsworldTask, OsworldSupport, OsworldLoadReport, OsworldRejection } from "./environments/osworld/tasks.ts";
export { runOsworldSetup, evaluateOsworldNative, osworldResultDir, writeOsworldResult } from "./environments/osworld/runner.ts";
export { OsworldPythonBridge } from "./environments/osworld/python-bridge.ts";
// A headless Chromium on three built-in web apps (webmail, shop, admin), with server-state checks.
export { createBrowserEnvironment, BrowserEnvironment, BROWSER_TASKS, loadBrowserTaskFile, startAppServer } from "./environments/browser/index.ts";
export type { CreateBrowserOptions, BrowserEnvironmentOptions, BrowserTask, BrowserChecker, AppServer } from "./environments/browser/index.ts";
