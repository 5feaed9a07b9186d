/**
 * `retrace-cua`: the runtime a user wraps an agent with, and nothing else (at most 80 names): the
 * recovery graph (packages/graphs/src/) and the provider-neutral core (packages/core/src/, packages/core/src/prompts/): types, errors, options,
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
} from "@retrace-cua/core/errors";
export type { RetraceErrorCode } from "@retrace-cua/core/errors";
export { ActionSchema, MOUSE_BUTTONS, isTerminal, formatAction } from "@retrace-cua/core/action";
export type { Action, ActionType, MouseButton } from "@retrace-cua/core/action";
export { BlobStore } from "@retrace-cua/core/blob-store";
export type { BlobRef, BlobReader, BlobStoreOptions } from "@retrace-cua/core/blob-store";
export type { Observation, AxNode } from "@retrace-cua/core/observation";
export type { Task, TaskSpec, Evaluation } from "@retrace-cua/core/task";
export type {
  Environment,
  EnvironmentCapabilities,
  EnvironmentFactory,
  EnvironmentSnapshot,
  StepOutcome,
} from "@retrace-cua/core/environment";
export type {
  ForwardPolicy,
  PolicyInput,
  PolicyDecision,
  PolicyFailure,
  HistoryEntry,
  JsonValue,
} from "@retrace-cua/core/policy";
export { noDetection } from "@retrace-cua/core/detector";
export type { ErrorDetector, Detection, DetectorInput } from "@retrace-cua/core/detector";
export { RECOVERY_STEP_STRATEGIES } from "@retrace-cua/core/selector";
export type { RecoveryStepSelector, RecoveryStepStrategy, Selection, SelectorInput } from "@retrace-cua/core/selector";
export { RECOVERY_CONTEXTS, RESTORATION_MODES } from "@retrace-cua/core/recovery";
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
} from "@retrace-cua/core/recovery";
export { STEP_ROLES } from "@retrace-cua/core/trajectory";
export type { Trajectory, StepRecord, StepRole, TrajectoryEvent } from "@retrace-cua/core/trajectory";
export { MODEL_ROLES, CACHE_PRICING, billedTokens, tokenSplit } from "@retrace-cua/core/usage";
export type { ModelUsage, ModelRole, CachePricing, CacheProvider, TokenSplit } from "@retrace-cua/core/usage";
export { definePrompt, renderPrompt, promptRef } from "@retrace-cua/core/prompt";
export type { PromptTemplate } from "@retrace-cua/core/prompt";
export { createRng } from "@retrace-cua/core/rng";
export type { Rng } from "@retrace-cua/core/rng";
export { sha256Hex, stableStringify, hashValue } from "@retrace-cua/core/hash";
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
export type { LazyCheckpointSaver } from "@retrace-cua/core/store/lazy-checkpointer";
export { transitionNotice, TRANSITION_PROMPT } from "./transition-notice.ts";
export { RecoveryOptionsSchema } from "@retrace-cua/core/episode";
export type {
  RecoveryOptions,
  RecoveryOptionsInput,
  EpisodeComponents,
  EpisodeResult,
  EpisodeAccounting,
  RoleUsage,
  StopReason,
} from "@retrace-cua/core/episode";
export { resolveRecoveryOptions } from "@retrace-cua/core/runtime/options";
export { EpisodeEvents, EPISODE_EVENT_NAMES } from "@retrace-cua/core/runtime/events";
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
} from "@retrace-cua/core/runtime/events";
export { detectorGate, consumeFrozenStep, startFreeze, initialFreezeState } from "@retrace-cua/core/runtime/freeze";
export type { FreezeState, DetectorGate } from "@retrace-cua/core/runtime/freeze";
export { truncateHistory, recoveryContextHistory } from "@retrace-cua/core/runtime/history";
export { emptyAccounting, addUsage, withoutTiming, tokenSplits } from "@retrace-cua/core/runtime/accounting";
export type { TokensByRole } from "@retrace-cua/core/runtime/accounting";
export { guardedDetect } from "@retrace-cua/core/runtime/detection";
export { createStepSelector, guardedSelect } from "@retrace-cua/core/selectors/index";
export { createZeroSelector } from "@retrace-cua/core/selectors/zero";
export { createErrorMinusOneSelector } from "@retrace-cua/core/selectors/error-minus-1";
export { createErrorRandomSelector, errorRandomStep } from "@retrace-cua/core/selectors/error-random";
export {
  createStagnationDetector,
  createLoopDetector,
  createCascadeDetector,
  parseCascadeGates,
  CascadeGateSpecSchema,
  DEFAULT_CASCADE_GATES,
} from "@retrace-cua/core/detectors/index";
export type {
  StagnationDetectorOptions,
  LoopDetectorOptions,
  CascadeDetectorOptions,
  CascadeGateSpec,
} from "@retrace-cua/core/detectors/index";
// Prompts (one file per prompt; the LLM-backed components that render them are in retrace/adapters).
export { ALL_PROMPTS } from "@retrace-cua/core/prompts/index";
export { writeEpisodeOutput, trajLine } from "@retrace-cua/core/store/episode-output";
export type { EpisodeOutputOptions, EpisodeOutputSummary } from "@retrace-cua/core/store/episode-output";
