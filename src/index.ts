/**
 * The public API of retrace. Explicit named exports only; internal modules never import this
 * file (they import the module that defines a thing). Pinned by test/public-api.test.ts.
 */
export { RetraceError, ConfigError, AdapterError, ModelBehaviorError, EnvironmentError, BudgetExhaustedError, StepTimeoutError, describeError } from "./errors.ts";
export { ActionSchema, MOUSE_BUTTONS, isTerminal, formatAction } from "./action.ts";
export type { Action, ActionType, MouseButton } from "./action.ts";
export { BlobStore } from "./blob-store.ts";
export type { BlobRef, BlobReader, BlobStoreOptions } from "./blob-store.ts";
export type { Observation, AxNode } from "./observation.ts";
export type { Task, TaskSpec, Evaluation } from "./task.ts";
export type { Environment, EnvironmentCapabilities, EnvironmentFactory, EnvironmentSnapshot, StepOutcome } from "./environment.ts";
export type { ForwardPolicy, PolicyInput, PolicyDecision, PolicyFailure, HistoryEntry, JsonValue } from "./policy.ts";
export { noDetection } from "./detector.ts";
export type { ErrorDetector, Detection, DetectorInput } from "./detector.ts";
export { RECOVERY_STEP_STRATEGIES } from "./selector.ts";
export type { RecoveryStepSelector, RecoveryStepStrategy, Selection, SelectorInput } from "./selector.ts";
export { RECOVERY_CONTEXTS, RESTORATION_MODES } from "./recovery.ts";
export type { RecoveryPolicy, RecoveryInput, RecoveryDecision, RecoveryContext, RecoveryContextKind, RestorationMode, Summarizer, StateVerifier, VerifierVerdict, VerifyInput } from "./recovery.ts";
// State probes (attested evidence beyond the screenshot) and the probe verifier.
export { makeProbeReport, storeProbeReport, loadProbeReport } from "./probes/report.ts";
export type { ProbeReport, Probeable } from "./probes/report.ts";
export { compareProbeReports, DEFAULT_PROBE_IGNORE } from "./probes/compare.ts";
export type { ProbeComparison, ProbeDifference } from "./probes/compare.ts";
export { withProbes } from "./probes/with-probes.ts";
export type { WithProbesOptions } from "./probes/with-probes.ts";
export { createProbeVerifier, probeVerifierFromSpec, ProbeVerifierSpecSchema } from "./probes/verifier.ts";
export type { ProbeVerifier, ProbeVerifierOptions, ProbeVerifierSpec, ProbeVerification } from "./probes/verifier.ts";
export { STEP_ROLES } from "./trajectory.ts";
export type { Trajectory, StepRecord, StepRole, TrajectoryEvent } from "./trajectory.ts";
export { MODEL_ROLES } from "./usage.ts";
export type { ModelUsage, ModelRole } from "./usage.ts";
export { definePrompt, renderPrompt, promptRef } from "./prompt.ts";
export type { PromptTemplate } from "./prompt.ts";
export { createRng } from "./rng.ts";
export type { Rng } from "./rng.ts";
export { sha256Hex, stableStringify, hashValue } from "./hash.ts";
export { createOpenAIChatModel } from "../adapters/models/openai-chat.ts";
export { createOpenAIEmbeddings } from "../adapters/models/openai-embeddings.ts";
export type { OpenAIEmbeddingsOptions } from "../adapters/models/openai-embeddings.ts";
export type { OpenAIChatModelOptions, ParameterizedChatModel } from "../adapters/models/openai-chat.ts";
export { createLangChainChatModel } from "../adapters/models/langchain-chat.ts";
export type { LangChainChatModelOptions } from "../adapters/models/langchain-chat.ts";
export { withCache, parseCacheMode, CACHE_MODES } from "../adapters/models/cache.ts";
export type { CacheOptions, CacheMode, CacheStats, CachedChatModel } from "../adapters/models/cache.ts";
export { costUsd, priceFor } from "../adapters/models/pricing.ts";
export type { PriceTable, ModelPrice } from "../adapters/models/pricing.ts";
export { redactSecrets } from "../adapters/models/redact.ts";
export { parsePyautogui, pyautoguiResponseToActions, extractCodeBlocks } from "../adapters/actions/pyautogui/convert.ts";
export type { PyautoguiParseOptions } from "../adapters/actions/pyautogui/convert.ts";
export { ActionFormatError } from "../adapters/actions/errors.ts";
export { uiTarsToActions } from "../adapters/actions/uitars/convert.ts";
export type { UiTarsParseOptions, UiTarsCoordinates, UiTarsParsed } from "../adapters/actions/uitars/convert.ts";
export { openAIComputerActionToActions } from "../adapters/actions/openai-cua/convert.ts";
export type { OpenAIComputerAction, OpenAIComputerConvertOptions } from "../adapters/actions/openai-cua/convert.ts";
export { anthropicComputerInputToActions, xdotoolKeysToActions } from "../adapters/actions/anthropic/convert.ts";
export type { AnthropicComputerInput, AnthropicConvertOptions } from "../adapters/actions/anthropic/convert.ts";
export { createRecordReplay } from "../adapters/models/cache.ts";
export type { RecordReplay } from "../adapters/models/cache.ts";
export { createChatPolicy } from "../adapters/policies/openai/chat-policy.ts";
export type { ChatPolicy, ChatPolicyFormat, ChatPolicyOptions, ChatPolicyStats } from "../adapters/policies/openai/chat-policy.ts";
export { createPyautoguiPolicy } from "../adapters/policies/openai/pyautogui-policy.ts";
export type { PyautoguiPolicyOptions } from "../adapters/policies/openai/pyautogui-policy.ts";
export { createUiTarsPolicy } from "../adapters/policies/uitars/uitars-policy.ts";
export type { UiTarsPolicyOptions } from "../adapters/policies/uitars/uitars-policy.ts";
export { createOpenAICuaPolicy } from "../adapters/policies/openai-cua/openai-cua-policy.ts";
export type { OpenAICuaPolicyOptions } from "../adapters/policies/openai-cua/openai-cua-policy.ts";
export { createAnthropicPolicy } from "../adapters/policies/anthropic/anthropic-policy.ts";
export type { AnthropicPolicyOptions } from "../adapters/policies/anthropic/anthropic-policy.ts";
export { createLangChainPolicy } from "../adapters/policies/langchain/langchain-policy.ts";
export type { LangChainPolicyOptions } from "../adapters/policies/langchain/langchain-policy.ts";
export { ACTION_FORMATS, createFormatPolicy } from "../adapters/policies/format.ts";
export type { ActionFormat, AgentFormatSpec } from "../adapters/policies/format.ts";
export type { FramablePolicy, PromptFraming } from "../adapters/policies/framing.ts";
// Recovery runtime (issue 3): the graph, episodes, events, selectors, heuristic detectors.
export { runEpisode } from "../graphs/run-episode.ts";
export type { RunEpisodeArgs } from "../graphs/run-episode.ts";
export { withRecovery } from "../graphs/with-recovery.ts";
export type { WithRecoveryOptions, RecoveryAgent, RecoveryAgentRunArgs } from "../graphs/with-recovery.ts";
export { createRecoveryGraph, recursionLimitFor } from "../graphs/recovery-graph.ts";
export type { CreateRecoveryGraphArgs } from "../graphs/recovery-graph.ts";
export { createRecoverySubgraph } from "../graphs/recovery-subgraph.ts";
export { createSqliteCheckpointer, createMemoryCheckpointer } from "../graphs/checkpointers.ts";
export { transitionNotice, TRANSITION_PROMPT } from "../graphs/nodes/restore-context.ts";
export { RecoveryOptionsSchema } from "./episode.ts";
export type { RecoveryOptions, RecoveryOptionsInput, EpisodeComponents, EpisodeResult, EpisodeAccounting, RoleUsage, StopReason } from "./episode.ts";
export { resolveRecoveryOptions } from "./runtime/options.ts";
export { EpisodeEvents, EPISODE_EVENT_NAMES } from "./runtime/events.ts";
export type { EpisodeEventMap, EpisodeEventName, StepEvent, DetectionEvent, FreezeEvent, SelectionEvent, RecoveryStartEvent, RecoveryStepEvent, RecoveryEndEvent, TruncateEvent, EpisodeEndEvent } from "./runtime/events.ts";
export { detectorGate, consumeFrozenStep, startFreeze, initialFreezeState } from "./runtime/freeze.ts";
export type { FreezeState, DetectorGate } from "./runtime/freeze.ts";
export { truncateHistory, recoveryContextHistory } from "./runtime/history.ts";
export { emptyAccounting, addUsage, withoutTiming } from "./runtime/accounting.ts";
export { guardedDetect } from "./runtime/detection.ts";
export { createStepSelector, guardedSelect } from "./selectors/index.ts";
export { createZeroSelector } from "./selectors/zero.ts";
export { createErrorMinusOneSelector } from "./selectors/error-minus-1.ts";
export { createErrorRandomSelector, errorRandomStep } from "./selectors/error-random.ts";
export { createStagnationDetector, createLoopDetector, createCascadeDetector, parseCascadeGates, CascadeGateSpecSchema, DEFAULT_CASCADE_GATES } from "./detectors/index.ts";
export type { StagnationDetectorOptions, LoopDetectorOptions, CascadeDetectorOptions, CascadeGateSpec } from "./detectors/index.ts";
// Prompts and LLM-backed components (issue 4): detector, selector, recoverer, summarizer, verifier, perturber; the LangChain v1 middleware.
export { ALL_PROMPTS } from "../prompts/index.ts";
export { createLlmErrorDetector, DetectorReplySchema } from "../adapters/llm/detector.ts";
export type { LlmErrorDetectorOptions, DetectorReply } from "../adapters/llm/detector.ts";
export { createLlmStepSelector, SelectorReplySchema } from "../adapters/llm/selector.ts";
export type { LlmStepSelectorOptions } from "../adapters/llm/selector.ts";
export { createLlmRecoveryPolicy, RESTORED_TOKEN } from "../adapters/llm/recoverer.ts";
export type { LlmRecoveryPolicyOptions } from "../adapters/llm/recoverer.ts";
export { createLlmSummarizer } from "../adapters/llm/summarizer.ts";
export type { LlmSummarizerOptions } from "../adapters/llm/summarizer.ts";
export { createLlmStateVerifier } from "../adapters/llm/verifier.ts";
export type { LlmStateVerifier, LlmStateVerifierOptions, LlmVerification } from "../adapters/llm/verifier.ts";
export { createAgenticLlmVerifier } from "../adapters/llm/agentic-verifier.ts";
export type { AgenticLlmVerifier, AgenticLlmVerifierOptions, AgenticVerification, ProbeStepRecord } from "../adapters/llm/agentic-verifier.ts";
export { createLlmPerturbationPolicy } from "../adapters/llm/perturber.ts";
export type { LlmPerturbationPolicyOptions } from "../adapters/llm/perturber.ts";
export type { ActionParser } from "../adapters/llm/reply-actions.ts";
export { recoveryMiddleware } from "../adapters/langchain/recovery-middleware.ts";
export { recoverWithPolicy } from "../adapters/langchain/recover-with-policy.ts";
export type { RecoverWithPolicyOptions } from "../adapters/langchain/recover-with-policy.ts";
export type { RecoveryTrack } from "../adapters/langchain/recovery-middleware.ts";
export type { RecoveryMiddlewareOptions, RestoreRequest, RestoreResult } from "../adapters/langchain/options.ts";
export { writeEpisodeOutput, trajLine } from "./store/episode-output.ts";
export type { EpisodeOutputOptions, EpisodeOutputSummary } from "./store/episode-output.ts";
export { createSimDesk, SimDesk, SIMDESK_TASKS, getSimDeskTask } from "../adapters/environments/simdesk/index.ts";
export type { SimDeskOptions, SimDeskTask, SimGroundTruth, SimDeskSetup, SimDeskEvaluator } from "../adapters/environments/simdesk/index.ts";
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
} from "../adapters/policies/simulated/index.ts";
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
} from "../adapters/policies/simulated/index.ts";
// Recovery evaluation: fast SSIM, replay, the R_O/R_TC oracle, datasets, implicit/explicit recovery runs.
export { screenshotSsim, screenshotsMatch, maskedScreenshotSsim, DEFAULT_SSIM_THRESHOLD } from "./image/similarity.ts";
export type { MaskedSsim, MaskedSsimOptions } from "./image/similarity.ts";
export { learnDynamicMask, dilateMask, unionMasks, maskFraction, saveMask, loadMask } from "./oracle/dynamic-mask.ts";
export type { DynamicMask } from "./oracle/dynamic-mask.ts";
export { createStateCheck, observationSsim } from "./replay/state-check.ts";
export type { StateCheck, StateCheckOptions, StateCheckResult, ExpectedState } from "./replay/state-check.ts";
export { replayFromReset, executeStep, executeSteps } from "./replay/replay.ts";
export type { ReplayOptions, ReplayResult, ReplayStep, CheckpointResult } from "./replay/replay.ts";
export { checkTransitionConsistency, retention } from "./replay/transition-consistency.ts";
export type { TransitionConsistencyOptions, TransitionConsistencyResult, ReplayOutcome } from "./replay/transition-consistency.ts";
export { judgeRecovery, observationOracle, maskedObservationOracle, transitionOracle, DEFAULT_LOCAL_FLOOR, DEFAULT_LOCAL_BLOCK } from "./oracle/recovery-oracle.ts";
export type { RecoveryVerdict, ObservationVerdict, MaskedObservationVerdict, TransitionVerdict, RecoveryOracleOptions, LocalFloorOptions } from "./oracle/recovery-oracle.ts";
export { buildRecoveryDataset, resolveBuildSettings } from "./dataset/build.ts";
export type { DatasetBuildOptions, DatasetBuildResult, DatasetBuildSettings } from "./dataset/build.ts";
export { saveRecoveryDataset, loadRecoveryDataset } from "./dataset/store.ts";
export type { SaveDatasetOptions } from "./dataset/store.ts";
export { rolloutPolicy, perturb } from "./dataset/rollout.ts";
export { RECOVERY_DATASET_SCHEMA } from "./dataset/types.ts";
export type { RecoverySample, RecoveryDataset, RecoveryDatasetManifest, GroundTruthTrajectory, RecordedStep, RecordedState, SampleStageCounts, TrajectoryStageCounts } from "./dataset/types.ts";
export { evaluateRecovery } from "./eval/run.ts";
export type { RecoveryVariant, RecoveryEvalOptions, RecoveryRun } from "./eval/run.ts";
export { keywordIntent, episodeIntent } from "./eval/intent.ts";
export type { IntentClassifier } from "./eval/intent.ts";
export { scoreRationales, recoveryReference } from "./eval/rationale.ts";
export type { RationaleScorer, RationaleScore, TextEmbedder } from "./eval/rationale.ts";
export { recoveryTable, oracleAgreement } from "./eval/summary.ts";
export type { RecoveryTableRow, OracleAgreement } from "./eval/summary.ts";
export { wilsonInterval, proportionOf, twoProportionPValue, Z95 } from "./metrics/wilson.ts";
export type { Proportion } from "./metrics/wilson.ts";
export { successAtK, successAtKCurve, passAtK } from "./metrics/success-at-k.ts";
export { stabilityOf, summarizeStability } from "./metrics/stability.ts";
export type { StabilityMetrics, StabilitySummary, StepLabel, LabelSource } from "./metrics/stability.ts";
export { detectorLabels, detectorStability, groundTruthStability } from "./metrics/trajectory-labels.ts";
export { recommend } from "./metrics/compare.ts";
export type { Candidate, Recommendation } from "./metrics/compare.ts";
// Real desktops: X11 on the host, containers through dockerode, OSWorld (adapters/environments).
export { createEnvironmentFactory, tasksForEnvironment, isEnvironmentKind, ENVIRONMENT_KINDS } from "../adapters/environments/registry.ts";
export type { EnvironmentFactoryOptions, EnvironmentKind } from "../adapters/environments/registry.ts";
export { createX11Desktop } from "../adapters/environments/x11/create.ts";
export type { X11DesktopOptions } from "../adapters/environments/x11/create.ts";
export { DesktopEnvironment } from "../adapters/environments/x11/desktop-environment.ts";
export type { DesktopEnvironmentOptions, DesktopStepTimings } from "../adapters/environments/x11/desktop-environment.ts";
export { createDockerDesktop } from "../adapters/environments/docker/create.ts";
export type { DockerDesktopOptions } from "../adapters/environments/docker/create.ts";
export { createDockerClient, removeManagedContainers, MANAGED_LABEL, RUN_LABEL } from "../adapters/environments/docker/engine.ts";
export { DESKTOP_TASKS, desktopTask } from "../adapters/environments/desktop-tasks/tasks.ts";
export type { DesktopTask, DesktopCheck, DesktopSetup, DesktopEvaluator } from "../adapters/environments/desktop-tasks/types.ts";
export { createPlanDivergenceDetector } from "../adapters/environments/desktop-tasks/plan-detector.ts";
export { OsworldClient } from "../adapters/environments/osworld/client.ts";
export type { OsworldClientOptions, OsworldExecResult } from "../adapters/environments/osworld/client.ts";
export { startOsworldControlServer } from "../adapters/environments/osworld/control-server.ts";
export type { OsworldControlServer, OsworldControlServerOptions } from "../adapters/environments/osworld/control-server.ts";
export { OsworldEnvironment, actionToPyautogui } from "../adapters/environments/osworld/environment.ts";
export type { OsworldEnvironmentOptions } from "../adapters/environments/osworld/environment.ts";
export { startOsworldVm, osworldContainerSpec, allocateOsworldPorts, releaseOsworldPorts, detectKvm } from "../adapters/environments/osworld/provider.ts";
export type { OsworldVm, OsworldPorts, StartOsworldVmOptions } from "../adapters/environments/osworld/provider.ts";
export { loadOsworldTasks, parseOsworldTask } from "../adapters/environments/osworld/tasks.ts";
export type { OsworldTask, OsworldSupport, OsworldLoadReport, OsworldRejection } from "../adapters/environments/osworld/tasks.ts";
export { runOsworldSetup, evaluateOsworldNative, osworldResultDir, writeOsworldResult } from "../adapters/environments/osworld/runner.ts";
export { OsworldPythonBridge } from "../adapters/environments/osworld/python-bridge.ts";
