/**
 * `retrace-cua/simdesk`: SimDesk, the built-in simulated desktop, its tasks, and the seeded
 * simulated agents that act on it (labelled "simulated" in every output). Light: no vendor SDK,
 * no LangGraph at import (sharp loads on the first screenshot). Explicit named exports only.
 * Pinned by test/public-api.test.ts.
 */
export { createSimDesk, SimDesk, SIMDESK_TASKS, getSimDeskTask } from "./simdesk.ts";
export type { SimDeskOptions, SimDeskTask, SimGroundTruth, SimDeskSetup, SimDeskEvaluator } from "./simdesk.ts";
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
} from "./agents/index.ts";
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
} from "./agents/index.ts";
