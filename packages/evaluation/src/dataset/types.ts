/**
 * The recovery evaluation set (paper Section 5.2, Appendix A.1): pairs of a verified target state
 * s_target = s_t on a transition-consistent ground-truth trajectory and an error state
 * s_error = s_{t+d} reached by d perturbation steps from it, with everything needed to rebuild
 * both by replay and to judge a recovery. Stored as a versioned folder: `dataset.json` (manifest,
 * counts after every filtering stage), `tasks.json`, `samples.jsonl`, `blobs/` (screenshots).
 */
import type { Action } from "@retrace-cua/core/action";
import type { Observation } from "@retrace-cua/core/observation";
import type { JsonValue } from "@retrace-cua/core/policy";
import type { Task } from "@retrace-cua/core/task";
import type { BlobRef } from "@retrace-cua/core/blob-store";

/** Schema id written into every manifest; bump on incompatible changes. */
export const RECOVERY_DATASET_SCHEMA = "retrace-recovery-dataset/1";

/** One recorded step: the observation acted on, what was done, and the policy's text and memo. */
export interface RecordedStep {
  /** The observation o_t this step acted on. */
  observation: Observation;
  /** `env.stateHash()` in that state, for ground-truth environments. */
  stateHash?: string;
  actions: Action[];
  response?: string;
  memo?: JsonValue;
}

/** A state reached in a trajectory. */
export interface RecordedState {
  observation: Observation;
  stateHash?: string;
}

/** A successful on-policy rollout. */
export interface GroundTruthTrajectory {
  taskId: string;
  /** Rollout index for this task (also the policy's seed offset). */
  rollout: number;
  steps: RecordedStep[];
  /** The state after the last step. */
  final: RecordedState;
  /** Task evaluator score of the rollout. */
  score: number;
}

/** One sample of the evaluation set. */
export interface RecoverySample {
  /** Stable id: `<taskId>/r<rollout>/t<targetStep>/d<distance>`. */
  id: string;
  taskId: string;
  /** Recovery distance d = perturbation steps (1 = short horizon, 5 = long horizon in the paper). */
  distance: number;
  /** The ground-truth trajectory. Its steps 0..t-1 lead to the target, t.. are replayed by R_TC. */
  trajectory: GroundTruthTrajectory;
  /** t_seed: the target is the state after t ground-truth steps. */
  targetStep: number;
  target: RecordedState;
  /** The d perturbation steps taken from the target. */
  perturbation: RecordedStep[];
  /** The state after the perturbation. */
  error: RecordedState;
  /** SSIM between the error and target screenshots. */
  errorTargetSsim: number;
  /** True when any policy that produced it was simulated. */
  simulated: boolean;
  /** R_Om's dynamic-pixel masks (absent in datasets built without mask learning). */
  masks?: SampleMasks;
}

/** Counts of the trajectory-level filters (shared by all distances). */
export interface TrajectoryStageCounts {
  /** On-policy rollouts run. */
  rollouts: number;
  /** Rollouts the task evaluator passed. */
  successful: number;
  /** ... with exactly one action in every step (no multi-action or missing-action steps). */
  wellFormed: number;
  /** ... whose N replays from a fresh reset all succeeded (transition-consistent). */
  transitionConsistent: number;
  /** Rollouts where the environment failed (excluded from everything). */
  envErrors: number;
}

/** Counts of the sample-level filters for one distance d (the paper's Table 6). */
export interface SampleStageCounts {
  distance: number;
  /** Seed steps drawn from the transition-consistent trajectories. */
  seedSteps: number;
  /** ... whose target state was reproduced by replay and confirmed. */
  targetReproduced: number;
  /** ... perturbed for d steps without an environment failure. */
  perturbed: number;
  /** ... where each perturbation step had exactly one action (and, for d = 1, a meaningful one). */
  perturbationWellFormed: number;
  /** ... where replaying the rest of the ground truth from the error state fails the task (a genuine error). */
  genuineError: number;
  /** ... whose error and target screenshots are not near-identical. */
  notNearIdentical: number;
  /** ... that are not duplicates of an earlier sample (same error and target screenshots). */
  deduplicated: number;
  /** Final samples (after the optional random subset). */
  final: number;
}

/** The manifest, `dataset.json`. */
export interface RecoveryDatasetManifest {
  schema: typeof RECOVERY_DATASET_SCHEMA;
  /** Content version: sha256 of `samples.jsonl` (first 16 hex). */
  version: string;
  createdAt: string;
  /** "simulated: ..." when simulated policies produced it, else "". */
  simulatedLabel: string;
  simulated: boolean;
  seed: number;
  /** The build settings, for the record. */
  config: Record<string, JsonValue>;
  trajectories: TrajectoryStageCounts;
  /** Transition-consistent / well-formed. */
  retention: number;
  stages: SampleStageCounts[];
  samples: number;
  files: { tasks: string; samples: string; blobs: string };
}

/** A loaded dataset. */
export interface RecoveryDataset {
  dir: string;
  manifest: RecoveryDatasetManifest;
  tasks: Map<string, Task>;
  samples: RecoverySample[];
}

/** The masks of one sample, as stored in samples.jsonl. */
export interface SampleMasks {
  /** Dynamic pixels seen in captures of this sample's target state (null: none seen). */
  state: BlobRef | null;
  /** The union over every state captured in this task (null: none seen). */
  task: BlobRef | null;
  /** Shares of dynamic pixels of the two masks. */
  stateFraction: number;
  taskFraction: number;
  /**
   * The distinct captures of the target state the state mask was learned from (the rollout's,
   * the replays' and the re-captures' screenshots; absent in datasets built before it was kept).
   * R_Om's capture check asks that the restored screen look like one of them inside the mask.
   */
  captures?: BlobRef[];
}
