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
export type { RecoveryPolicy, RecoveryInput, RecoveryDecision, RecoveryContext, RecoveryContextKind, RestorationMode, Summarizer, StateVerifier, VerifierVerdict } from "./recovery.ts";
export { STEP_ROLES } from "./trajectory.ts";
export type { Trajectory, StepRecord, StepRole, TrajectoryEvent } from "./trajectory.ts";
export { MODEL_ROLES } from "./usage.ts";
export type { ModelUsage, ModelRole } from "./usage.ts";
export { definePrompt, renderPrompt, promptRef } from "./prompt.ts";
export type { PromptTemplate } from "./prompt.ts";
export { createRng } from "./rng.ts";
export type { Rng } from "./rng.ts";
export { sha256Hex, stableStringify, hashValue } from "./hash.ts";
