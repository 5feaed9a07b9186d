/**
 * @retrace-cua/core: retrace's provider-neutral core: types, errors, detectors, selectors, the recovery loop, blob store. No vendor SDK.
 * Explicit named exports only: the names the other entries re-export from it.
 */
export { ActionSchema, MOUSE_BUTTONS, formatAction, isTerminal } from "./action.ts";
export type { Action, ActionType, MouseButton } from "./action.ts";
export { BlobStore } from "./blob-store.ts";
export type { BlobReader, BlobRef, BlobStoreOptions } from "./blob-store.ts";
export { noDetection } from "./detector.ts";
export type { Detection, DetectorInput, ErrorDetector } from "./detector.ts";
export {
  CascadeGateSpecSchema,
  DEFAULT_CASCADE_GATES,
  createCascadeDetector,
  createLoopDetector,
  createStagnationDetector,
  parseCascadeGates,
} from "./detectors/index.ts";
export type {
  CascadeDetectorOptions,
  CascadeGateSpec,
  LoopDetectorOptions,
  StagnationDetectorOptions,
} from "./detectors/index.ts";
export type {
  Environment,
  EnvironmentCapabilities,
  EnvironmentFactory,
  EnvironmentSnapshot,
  StepOutcome,
} from "./environment.ts";
export { RecoveryOptionsSchema } from "./episode.ts";
export type {
  EpisodeAccounting,
  EpisodeComponents,
  EpisodeResult,
  RecoveryOptions,
  RecoveryOptionsInput,
  RoleUsage,
  StopReason,
  UnconfirmedRestoration,
} from "./episode.ts";
export {
  AdapterError,
  ConfigError,
  DataError,
  DetectorUnavailableError,
  EnvironmentError,
  InternalError,
  ModelBehaviorError,
  ReplayDesyncError,
  RetraceError,
  RunFailedError,
  ServiceUnavailableError,
  StepTimeoutError,
  describeError,
} from "./errors.ts";
export type { RetraceErrorCode } from "./errors.ts";
export { hashValue, sha256Hex, stableStringify } from "./hash.ts";
export { DEFAULT_SSIM_THRESHOLD, maskedScreenshotSsim, screenshotSsim, screenshotsMatch } from "./image/similarity.ts";
export type { MaskedSsim, MaskedSsimOptions } from "./image/similarity.ts";
export type { AxNode, Observation } from "./observation.ts";
export type { ForwardPolicy, HistoryEntry, JsonValue, PolicyDecision, PolicyFailure, PolicyInput } from "./policy.ts";
export { loadProbeReport, makeProbeReport, storeProbeReport } from "./probes/report.ts";
export type { ProbeReport, Probeable } from "./probes/report.ts";
export { definePrompt, promptRef, renderPrompt } from "./prompt.ts";
export type { PromptTemplate } from "./prompt.ts";
export { ALL_PROMPTS } from "./prompts/index.ts";
export { RECOVERY_CONTEXTS, RESTORATION_MODES } from "./recovery.ts";
export type {
  RecoveryContext,
  RecoveryContextKind,
  RecoveryDecision,
  RecoveryInput,
  RecoveryPolicy,
  RestorationMode,
  StateVerifier,
  Summarizer,
  VerifierVerdict,
  VerifyInput,
} from "./recovery.ts";
export { createStateCheck, observationSsim } from "./replay/state-check.ts";
export type { ExpectedState, StateCheck, StateCheckOptions, StateCheckResult } from "./replay/state-check.ts";
export { createRng } from "./rng.ts";
export type { Rng } from "./rng.ts";
export { addUsage, emptyAccounting, tokenSplits, withoutTiming } from "./runtime/accounting.ts";
export type { TokensByRole } from "./runtime/accounting.ts";
export { guardedDetect } from "./runtime/detection.ts";
export { EPISODE_EVENT_NAMES, EpisodeEvents } from "./runtime/events.ts";
export type {
  DetectionEvent,
  EpisodeEndEvent,
  EpisodeEventMap,
  EpisodeEventName,
  FreezeEvent,
  RecoveryEndEvent,
  RecoveryStartEvent,
  RecoveryStepEvent,
  SelectionEvent,
  StepEvent,
  TruncateEvent,
} from "./runtime/events.ts";
export { consumeFrozenStep, detectorGate, initialFreezeState, startFreeze } from "./runtime/freeze.ts";
export type { DetectorGate, FreezeState } from "./runtime/freeze.ts";
export { recoveryContextHistory, truncateHistory } from "./runtime/history.ts";
export { resolveRecoveryOptions } from "./runtime/options.ts";
export { recoverWithPolicy } from "./runtime/recover-with-policy.ts";
export type { RecoverWithPolicyOptions } from "./runtime/recover-with-policy.ts";
export type { RecoveryReport } from "./runtime/recovery-report.ts";
export { RECOVERY_STEP_STRATEGIES } from "./selector.ts";
export type { RecoveryStepSelector, RecoveryStepStrategy, Selection, SelectorInput } from "./selector.ts";
export { createErrorMinusOneSelector } from "./selectors/error-minus-1.ts";
export { createErrorRandomSelector, errorRandomStep } from "./selectors/error-random.ts";
export { createStepSelector, guardedSelect } from "./selectors/index.ts";
export { createZeroSelector } from "./selectors/zero.ts";
export { trajLine, writeEpisodeOutput } from "./store/episode-output.ts";
export type { EpisodeOutputOptions, EpisodeOutputSummary } from "./store/episode-output.ts";
export type { LazyCheckpointSaver } from "./store/lazy-checkpointer.ts";
export type { Evaluation, Task, TaskSpec } from "./task.ts";
export { STEP_ROLES } from "./trajectory.ts";
export type { StepRecord, StepRole, Trajectory, TrajectoryEvent } from "./trajectory.ts";
export { CACHE_PRICING, MODEL_ROLES, billedTokens, tokenSplit } from "./usage.ts";
export type { CachePricing, CacheProvider, ModelRole, ModelUsage, TokenSplit } from "./usage.ts";
