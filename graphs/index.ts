/**
 * `retrace-cua`: the runtime a user wraps an agent with, and nothing else (at most 80 names): the
 * recovery graph (graphs/) and the provider-neutral core (src/, prompts/): types, errors, options,
 * events, checkpointers, detectors, selectors. It loads no vendor SDK and no LangGraph at import.
 * Evaluation tools (oracle, replay, datasets, metrics, probes) are in `retrace-cua/evaluation`;
 * model clients and LLM-backed components in `retrace-cua/models`; SimDesk in `retrace-cua/simdesk`;
 * real environments in `retrace-cua/adapters`; LangChain in `retrace-cua/langchain`. Explicit named
 * exports only; library modules never import an entry. Pinned by test/public-api.test.ts.
 */
export {
  RetraceError,
  ConfigError,
  AdapterError,
  ModelBehaviorError,
  EnvironmentError,
  ReplayDesyncError,
  ServiceUnavailableError,
  DetectorUnavailableError,
  StepTimeoutError,
  DataError,
  RunFailedError,
  InternalError,
  describeError,
} from "../src/errors.ts";
export type { RetraceErrorCode } from "../src/errors.ts";
export { ActionSchema, MOUSE_BUTTONS, isTerminal, formatAction } from "../src/action.ts";
export type { Action, ActionType, MouseButton } from "../src/action.ts";
export { BlobStore } from "../src/blob-store.ts";
export type { BlobRef, BlobReader, BlobStoreOptions } from "../src/blob-store.ts";
export type { Observation, AxNode } from "../src/observation.ts";
export type { Task, TaskSpec, Evaluation } from "../src/task.ts";
export type {
  Environment,
  EnvironmentCapabilities,
  EnvironmentFactory,
  EnvironmentSnapshot,
  StepOutcome,
} from "../src/environment.ts";
export type {
  ForwardPolicy,
  PolicyInput,
  PolicyDecision,
  PolicyFailure,
  HistoryEntry,
  JsonValue,
} from "../src/policy.ts";
export { noDetection } from "../src/detector.ts";
export type { ErrorDetector, Detection, DetectorInput } from "../src/detector.ts";
export { RECOVERY_STEP_STRATEGIES } from "../src/selector.ts";
export type { RecoveryStepSelector, RecoveryStepStrategy, Selection, SelectorInput } from "../src/selector.ts";
export { RECOVERY_CONTEXTS, RESTORATION_MODES } from "../src/recovery.ts";
export type {
  RecoveryPolicy,
  RecoveryInput,
  RecoveryDecision,
  RecoveryContext,
  RecoveryContextKind,
  RestorationMode,
  Summarizer,
  StateVerifier,
  VerifierVerdict,
  VerifyInput,
} from "../src/recovery.ts";
export { STEP_ROLES } from "../src/trajectory.ts";
export type { Trajectory, StepRecord, StepRole, TrajectoryEvent } from "../src/trajectory.ts";
export { MODEL_ROLES, CACHE_PRICING, billedTokens, tokenSplit } from "../src/usage.ts";
export type { ModelUsage, ModelRole, CachePricing, CacheProvider, TokenSplit } from "../src/usage.ts";
export { definePrompt, renderPrompt, promptRef } from "../src/prompt.ts";
export type { PromptTemplate } from "../src/prompt.ts";
export { createRng } from "../src/rng.ts";
export type { Rng } from "../src/rng.ts";
export { sha256Hex, stableStringify, hashValue } from "../src/hash.ts";
// The recovery runtime: the graph, episodes, events, selectors, heuristic detectors.
export { runEpisode } from "./run-episode.ts";
export type { RunEpisodeArgs } from "./run-episode.ts";
export { withRecovery } from "./with-recovery.ts";
export type { WithRecoveryOptions, RecoveryAgent, RecoveryAgentRunArgs } from "./with-recovery.ts";
// The graph loads on first use (async builders, lazy checkpointers): importing this entry loads no LangGraph.
export { createRecoveryGraph, createRecoverySubgraph } from "./load-graph.ts";
export type { CreateRecoveryGraphArgs, RecoveryGraph } from "./recovery-graph.ts";
export type { RecoverySubgraph } from "./recovery-subgraph.ts";
export { recursionLimitFor } from "./recursion-limit.ts";
export { createSqliteCheckpointer, createMemoryCheckpointer } from "./checkpointers.ts";
export type { LazyCheckpointSaver } from "../src/store/lazy-checkpointer.ts";
export { transitionNotice, TRANSITION_PROMPT } from "./transition-notice.ts";
export { RecoveryOptionsSchema } from "../src/episode.ts";
export type {
  RecoveryOptions,
  RecoveryOptionsInput,
  EpisodeComponents,
  EpisodeResult,
  EpisodeAccounting,
  RoleUsage,
  StopReason,
} from "../src/episode.ts";
export { resolveRecoveryOptions } from "../src/runtime/options.ts";
export { EpisodeEvents, EPISODE_EVENT_NAMES } from "../src/runtime/events.ts";
export type {
  EpisodeEventMap,
  EpisodeEventName,
  StepEvent,
  DetectionEvent,
  FreezeEvent,
  SelectionEvent,
  RecoveryStartEvent,
  RecoveryStepEvent,
  RecoveryEndEvent,
  TruncateEvent,
  EpisodeEndEvent,
} from "../src/runtime/events.ts";
export { detectorGate, consumeFrozenStep, startFreeze, initialFreezeState } from "../src/runtime/freeze.ts";
export type { FreezeState, DetectorGate } from "../src/runtime/freeze.ts";
export { truncateHistory, recoveryContextHistory } from "../src/runtime/history.ts";
export { emptyAccounting, addUsage, withoutTiming, tokenSplits } from "../src/runtime/accounting.ts";
export type { TokensByRole } from "../src/runtime/accounting.ts";
export { guardedDetect } from "../src/runtime/detection.ts";
export { createStepSelector, guardedSelect } from "../src/selectors/index.ts";
export { createZeroSelector } from "../src/selectors/zero.ts";
export { createErrorMinusOneSelector } from "../src/selectors/error-minus-1.ts";
export { createErrorRandomSelector, errorRandomStep } from "../src/selectors/error-random.ts";
export {
  createStagnationDetector,
  createLoopDetector,
  createCascadeDetector,
  parseCascadeGates,
  CascadeGateSpecSchema,
  DEFAULT_CASCADE_GATES,
} from "../src/detectors/index.ts";
export type {
  StagnationDetectorOptions,
  LoopDetectorOptions,
  CascadeDetectorOptions,
  CascadeGateSpec,
} from "../src/detectors/index.ts";
// Prompts (one file per prompt; the LLM-backed components that render them are in retrace/adapters).
export { ALL_PROMPTS } from "../prompts/index.ts";
export { writeEpisodeOutput, trajLine } from "../src/store/episode-output.ts";
export type { EpisodeOutputOptions, EpisodeOutputSummary } from "../src/store/episode-output.ts";
