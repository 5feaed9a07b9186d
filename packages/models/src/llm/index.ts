/** LLM-backed components of retrace: detector, selector, recoverer, summarizer, verifier, perturber, recovery judge. */
export { createLlmErrorDetector, DetectorReplySchema } from "./detector.ts";
export type { LlmErrorDetectorOptions, DetectorReply } from "./detector.ts";
export {
  createDetectionPreset,
  resolveDetectorOption,
  DETECTION_PRESETS,
  PRODUCTION_DETECTION,
  PRODUCTION_GATES,
  PRODUCTION_RECOVERY,
} from "./detection-preset.ts";
export type { DetectionPreset, DetectionPresetOptions } from "./detection-preset.ts";
export { createLlmStepSelector, SelectorReplySchema } from "./selector.ts";
export type { LlmStepSelectorOptions } from "./selector.ts";
export { createLlmRecoveryPolicy, RESTORED_TOKEN } from "./recoverer.ts";
export type { LlmRecoveryPolicyOptions } from "./recoverer.ts";
export { createLlmSummarizer, fallbackSummary } from "./summarizer.ts";
export type { LlmSummarizerOptions } from "./summarizer.ts";
export { createLlmStateVerifier, VerifierReplySchema } from "./verifier.ts";
export type { LlmStateVerifier, LlmStateVerifierOptions, LlmVerification } from "./verifier.ts";
export { createAgenticLlmVerifier, AgenticVerifierReplySchema } from "./agentic-verifier.ts";
export type {
  AgenticLlmVerifier,
  AgenticLlmVerifierOptions,
  AgenticVerification,
  ProbeStepRecord,
} from "./agentic-verifier.ts";
export { createLlmRecoveryJudge, JudgeReplySchema } from "./judge.ts";
export type { LlmRecoveryJudge, LlmRecoveryJudgeOptions, RecoveryJudgeInput, RecoveryJudgement } from "./judge.ts";
export { createLlmPerturbationPolicy } from "./perturber.ts";
export type { LlmPerturbationPolicyOptions } from "./perturber.ts";
export { askForJson, extractJsonObject } from "./json-reply.ts";
export type { AskForJsonOptions, JsonReply } from "./json-reply.ts";
export { decideFromReply, defaultActionParser, readRecoveryReply } from "./reply-actions.ts";
export type { ActionParser } from "./reply-actions.ts";
