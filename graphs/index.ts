/**
 * `retrace`: the runtime a user wraps an agent with. The recovery graph (graphs/) and the
 * provider-neutral core (src/, prompts/): types, errors, detectors, selectors, recovery options,
 * events, probes, oracle, replay, datasets, metrics. It loads no vendor SDK: models, action formats
 * and environments are in `retrace-cua/adapters`, scripted servers in `retrace-cua/testing`, the experiment
 * runner in `retrace-cua/experiments`. Explicit named exports only; library modules never import an
 * entry (they import the module that defines a thing). Pinned by test/public-api.test.ts.
 */
export { RetraceError, ConfigError, AdapterError, ModelBehaviorError, EnvironmentError, StepTimeoutError, describeError } from "../src/errors.ts";
export { ActionSchema, MOUSE_BUTTONS, isTerminal, formatAction } from "../src/action.ts";
export type { Action, ActionType, MouseButton } from "../src/action.ts";
export { BlobStore } from "../src/blob-store.ts";
export type { BlobRef, BlobReader, BlobStoreOptions } from "../src/blob-store.ts";
export type { Observation, AxNode } from "../src/observation.ts";
export type { Task, TaskSpec, Evaluation } from "../src/task.ts";
export type { Environment, EnvironmentCapabilities, EnvironmentFactory, EnvironmentSnapshot, StepOutcome } from "../src/environment.ts";
export type { ForwardPolicy, PolicyInput, PolicyDecision, PolicyFailure, HistoryEntry, JsonValue } from "../src/policy.ts";
export { noDetection } from "../src/detector.ts";
export type { ErrorDetector, Detection, DetectorInput } from "../src/detector.ts";
export { RECOVERY_STEP_STRATEGIES } from "../src/selector.ts";
export type { RecoveryStepSelector, RecoveryStepStrategy, Selection, SelectorInput } from "../src/selector.ts";
export { RECOVERY_CONTEXTS, RESTORATION_MODES } from "../src/recovery.ts";
export type { RecoveryPolicy, RecoveryInput, RecoveryDecision, RecoveryContext, RecoveryContextKind, RestorationMode, Summarizer, StateVerifier, VerifierVerdict, VerifyInput } from "../src/recovery.ts";
// State probes (attested evidence beyond the screenshot) and the probe verifier.
export { makeProbeReport, storeProbeReport, loadProbeReport } from "../src/probes/report.ts";
export type { ProbeReport, Probeable } from "../src/probes/report.ts";
export { compareProbeReports, DEFAULT_PROBE_IGNORE } from "../src/probes/compare.ts";
export type { ProbeComparison, ProbeDifference } from "../src/probes/compare.ts";
export { withProbes } from "../src/probes/with-probes.ts";
export type { WithProbesOptions } from "../src/probes/with-probes.ts";
export { createProbeVerifier, probeVerifierFromSpec, ProbeVerifierSpecSchema } from "../src/probes/verifier.ts";
export type { ProbeVerifier, ProbeVerifierOptions, ProbeVerifierSpec, ProbeVerification } from "../src/probes/verifier.ts";
export { STEP_ROLES } from "../src/trajectory.ts";
export type { Trajectory, StepRecord, StepRole, TrajectoryEvent } from "../src/trajectory.ts";
export { MODEL_ROLES } from "../src/usage.ts";
export type { ModelUsage, ModelRole } from "../src/usage.ts";
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
export type { RecoveryOptions, RecoveryOptionsInput, EpisodeComponents, EpisodeResult, EpisodeAccounting, RoleUsage, StopReason } from "../src/episode.ts";
export { resolveRecoveryOptions } from "../src/runtime/options.ts";
export { EpisodeEvents, EPISODE_EVENT_NAMES } from "../src/runtime/events.ts";
export type { EpisodeEventMap, EpisodeEventName, StepEvent, DetectionEvent, FreezeEvent, SelectionEvent, RecoveryStartEvent, RecoveryStepEvent, RecoveryEndEvent, TruncateEvent, EpisodeEndEvent } from "../src/runtime/events.ts";
export { detectorGate, consumeFrozenStep, startFreeze, initialFreezeState } from "../src/runtime/freeze.ts";
export type { FreezeState, DetectorGate } from "../src/runtime/freeze.ts";
export { truncateHistory, recoveryContextHistory } from "../src/runtime/history.ts";
export { emptyAccounting, addUsage, withoutTiming } from "../src/runtime/accounting.ts";
export { guardedDetect } from "../src/runtime/detection.ts";
export { createStepSelector, guardedSelect } from "../src/selectors/index.ts";
export { createZeroSelector } from "../src/selectors/zero.ts";
export { createErrorMinusOneSelector } from "../src/selectors/error-minus-1.ts";
export { createErrorRandomSelector, errorRandomStep } from "../src/selectors/error-random.ts";
export { createStagnationDetector, createLoopDetector, createCascadeDetector, parseCascadeGates, CascadeGateSpecSchema, DEFAULT_CASCADE_GATES } from "../src/detectors/index.ts";
export type { StagnationDetectorOptions, LoopDetectorOptions, CascadeDetectorOptions, CascadeGateSpec } from "../src/detectors/index.ts";
// Prompts (one file per prompt; the LLM-backed components that render them are in retrace/adapters).
export { ALL_PROMPTS } from "../prompts/index.ts";
export { writeEpisodeOutput, trajLine } from "../src/store/episode-output.ts";
export type { EpisodeOutputOptions, EpisodeOutputSummary } from "../src/store/episode-output.ts";
// Recovery evaluation: fast SSIM, replay, the R_O/R_TC oracle, datasets, implicit/explicit recovery runs.
export { screenshotSsim, screenshotsMatch, maskedScreenshotSsim, DEFAULT_SSIM_THRESHOLD } from "../src/image/similarity.ts";
export type { MaskedSsim, MaskedSsimOptions } from "../src/image/similarity.ts";
export { learnDynamicMask, dilateMask, unionMasks, maskFraction, saveMask, loadMask } from "../src/oracle/dynamic-mask.ts";
export type { DynamicMask } from "../src/oracle/dynamic-mask.ts";
export { createStateCheck, observationSsim } from "../src/replay/state-check.ts";
export type { StateCheck, StateCheckOptions, StateCheckResult, ExpectedState } from "../src/replay/state-check.ts";
export { replayFromReset, executeStep, executeSteps } from "../src/replay/replay.ts";
export type { ReplayOptions, ReplayResult, ReplayStep, CheckpointResult } from "../src/replay/replay.ts";
export { checkTransitionConsistency, retention } from "../src/replay/transition-consistency.ts";
export type { TransitionConsistencyOptions, TransitionConsistencyResult, ReplayOutcome } from "../src/replay/transition-consistency.ts";
export { judgeRecovery, observationOracle, maskedObservationOracle, transitionOracle, DEFAULT_LOCAL_FLOOR, DEFAULT_LOCAL_BLOCK } from "../src/oracle/recovery-oracle.ts";
export type { RecoveryVerdict, ObservationVerdict, MaskedObservationVerdict, TransitionVerdict, RecoveryOracleOptions, LocalFloorOptions } from "../src/oracle/recovery-oracle.ts";
export { buildRecoveryDataset, resolveBuildSettings } from "../src/dataset/build.ts";
export type { DatasetBuildOptions, DatasetBuildResult, DatasetBuildSettings } from "../src/dataset/build.ts";
export { saveRecoveryDataset, loadRecoveryDataset } from "../src/dataset/store.ts";
export type { SaveDatasetOptions } from "../src/dataset/store.ts";
export { rolloutPolicy, perturb } from "../src/dataset/rollout.ts";
export { RECOVERY_DATASET_SCHEMA } from "../src/dataset/types.ts";
export type { RecoverySample, RecoveryDataset, RecoveryDatasetManifest, GroundTruthTrajectory, RecordedStep, RecordedState, SampleStageCounts, TrajectoryStageCounts } from "../src/dataset/types.ts";
export { evaluateRecovery } from "../src/eval/run.ts";
export type { RecoveryVariant, RecoveryEvalOptions, RecoveryRun } from "../src/eval/run.ts";
export { keywordIntent, episodeIntent } from "../src/eval/intent.ts";
export type { IntentClassifier } from "../src/eval/intent.ts";
export { scoreRationales, recoveryReference } from "../src/eval/rationale.ts";
export type { RationaleScorer, RationaleScore, TextEmbedder } from "../src/eval/rationale.ts";
export { recoveryTable, oracleAgreement } from "../src/eval/summary.ts";
export type { RecoveryTableRow, OracleAgreement } from "../src/eval/summary.ts";
export { wilsonInterval, proportionOf, twoProportionPValue, Z95 } from "../src/metrics/wilson.ts";
export type { Proportion } from "../src/metrics/wilson.ts";
export { successAtK, successAtKCurve, passAtK } from "../src/metrics/success-at-k.ts";
export { stabilityOf, summarizeStability } from "../src/metrics/stability.ts";
export type { StabilityMetrics, StabilitySummary, StepLabel, LabelSource } from "../src/metrics/stability.ts";
export { detectorLabels, detectorStability, groundTruthStability } from "../src/metrics/trajectory-labels.ts";
export { recommend } from "../src/metrics/compare.ts";
export type { Candidate, Recommendation } from "../src/metrics/compare.ts";
