/**
 * Seeded simulated agents for SimDesk, so the whole system runs without a model: a forward policy
 * that slips, a recovery policy with a skill, a perturbation policy, an error detector and a
 * recovery-step selector that read SimDesk's ground truth. Every component has `simulated: true`,
 * a name starting "sim-", and a `label`; results from them are labelled "simulated".
 */
export { createSimForwardPolicy, planPositionOf, readForwardMemo, hasOverlay, widgetNameAt } from "./forward.ts";
export type { SimForwardPolicy, SimForwardPolicyOptions, SimForwardMemo } from "./forward.ts";
export { createSimRecoveryPolicy, contextView, SIM_CONTEXT_NEUTRAL } from "./recovery.ts";
export type { SimRecoveryPolicy, SimRecoveryPolicyOptions, SimRecoveryMemo, SimContextEffects } from "./recovery.ts";
export { pickHarmfulMove, HARM_KINDS } from "./harm.ts";
export type { HarmfulMove, HarmKind } from "./harm.ts";
export { createSimPerturbationPolicy, isStateChanging, pickWrongAction } from "./perturbation.ts";
export type { SimPerturbationPolicy, SimPerturbationPolicyOptions } from "./perturbation.ts";
export { createSimDetector } from "./detector.ts";
export type { SimDetector, SimDetectorOptions } from "./detector.ts";
export { createSimStepSelector } from "./selector.ts";
export type { SimStepSelector, SimStepSelectorOptions } from "./selector.ts";
export {
  trajectoryTruth,
  correctRecoveryStep,
  isOnTrack,
  lastOnTrackStep,
  isProgress,
  planIndicesOf,
} from "./truth.ts";
export type { TrajectoryTruth } from "./truth.ts";
export {
  SIM_PROFILES,
  SIM_RECOVERER_SKILLED,
  SIM_RECOVERER_WEAK,
  SIM_RECOVERER_FLAILING,
  describeSimulated,
  createSimAgents,
} from "./profiles.ts";
export type {
  SimAgents,
  SimAgentsOptions,
  MaybeSimulated,
  SimForwardProfileName,
  SimRecovererProfileName,
  SimDetectorProfileName,
  SimSelectorProfileName,
} from "./profiles.ts";
export { DEFAULT_SLIP_MIX } from "./options.ts";
export type { SlipMix } from "./options.ts";
export { drawSlip, makeSlip, misclick, typo, wrongItem, clickableNodes } from "./slips.ts";
export type { Slip } from "./slips.ts";
