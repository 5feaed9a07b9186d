/**
 * `retrace-cua/evaluation`: the tools that measure recovery rather than perform it. Fast and
 * masked SSIM, learned dynamic masks, action replay and the transition-consistency check, the
 * R_O / R_TC oracles, recovery datasets and the implicit/explicit recovery runs, intent and
 * rationale scoring, metrics (Wilson intervals, Success@K, stability, recommendations) and state
 * probes with the probe verifier. Provider-neutral (packages/core/src/ only); loads no vendor SDK and no
 * LangGraph. Explicit named exports only. Pinned by test/public-api.test.ts.
 */
export { makeProbeReport, storeProbeReport, loadProbeReport } from "@retrace-cua/core/probes/report";
export type { ProbeReport, Probeable } from "@retrace-cua/core/probes/report";
export { compareProbeReports, DEFAULT_PROBE_IGNORE } from "./probes/compare.ts";
export type { ProbeComparison, ProbeDifference } from "./probes/compare.ts";
export { withProbes } from "./probes/with-probes.ts";
export type { WithProbesOptions } from "./probes/with-probes.ts";
export { createProbeVerifier, probeVerifierFromSpec, ProbeVerifierSpecSchema } from "./probes/verifier.ts";
export type { ProbeVerifier, ProbeVerifierOptions, ProbeVerifierSpec, ProbeVerification } from "./probes/verifier.ts";
export {
  screenshotSsim,
  screenshotsMatch,
  maskedScreenshotSsim,
  DEFAULT_SSIM_THRESHOLD,
} from "@retrace-cua/core/image/similarity";
export type { MaskedSsim, MaskedSsimOptions } from "@retrace-cua/core/image/similarity";
export { learnDynamicMask, dilateMask, unionMasks, maskFraction, saveMask, loadMask } from "./oracle/dynamic-mask.ts";
export type { DynamicMask } from "./oracle/dynamic-mask.ts";
export { createStateCheck, observationSsim } from "@retrace-cua/core/replay/state-check";
export type {
  StateCheck,
  StateCheckOptions,
  StateCheckResult,
  ExpectedState,
} from "@retrace-cua/core/replay/state-check";
export { replayFromReset, executeStep, executeSteps } from "./replay/replay.ts";
export type { ReplayOptions, ReplayResult, ReplayStep, CheckpointResult } from "./replay/replay.ts";
export { checkTransitionConsistency, retention } from "./replay/transition-consistency.ts";
export type {
  TransitionConsistencyOptions,
  TransitionConsistencyResult,
  ReplayOutcome,
} from "./replay/transition-consistency.ts";
export {
  judgeRecovery,
  observationOracle,
  maskedObservationOracle,
  transitionOracle,
  DEFAULT_LOCAL_FLOOR,
  DEFAULT_LOCAL_BLOCK,
} from "./oracle/recovery-oracle.ts";
export type {
  RecoveryVerdict,
  ObservationVerdict,
  MaskedObservationVerdict,
  TransitionVerdict,
  RecoveryOracleOptions,
  LocalFloorOptions,
} from "./oracle/recovery-oracle.ts";
export { buildRecoveryDataset, resolveBuildSettings } from "./dataset/build.ts";
export type { DatasetBuildOptions, DatasetBuildResult, DatasetBuildSettings } from "./dataset/build.ts";
export { saveRecoveryDataset, loadRecoveryDataset } from "./dataset/store.ts";
export type { SaveDatasetOptions } from "./dataset/store.ts";
export { rolloutPolicy, perturb } from "./dataset/rollout.ts";
export { RECOVERY_DATASET_SCHEMA } from "./dataset/types.ts";
export type {
  RecoverySample,
  RecoveryDataset,
  RecoveryDatasetManifest,
  GroundTruthTrajectory,
  RecordedStep,
  RecordedState,
  SampleStageCounts,
  TrajectoryStageCounts,
} from "./dataset/types.ts";
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
