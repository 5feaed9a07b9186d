/**
 * What the runner needs from the rest of retrace, as one injectable object: tasks, environments,
 * agent components, the episode function and the episode writer. `createDefaultRuntime`
 * (experiments/runtime/default.ts) wires the real ones; tests may pass a small stand-in.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeComponents, EpisodeResult, RecoveryOptionsInput } from "@retrace-cua/core/episode";
import type { Environment } from "@retrace-cua/core/environment";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import type { RecoveryPolicy, StateVerifier, Summarizer } from "@retrace-cua/core/recovery";
import type { ModelMeter } from "../agents/meter.ts";
import type { ModelCallSettings } from "../agents/model-client.ts";
import type { DrawScope } from "@retrace-cua/models/models/draws";
import type { RecoveryStepSelector } from "@retrace-cua/core/selector";
import type { Task } from "@retrace-cua/core/task";
import type { Observation } from "@retrace-cua/core/observation";
import type { StabilityMetrics } from "@retrace-cua/evaluation/metrics/stability";
import type { AgentSpec, EnvSpec, ExperimentConfig } from "../config/schema.ts";

/** Arguments of one episode run. */
export interface RunEpisodeInput {
  task: Task;
  options: RecoveryOptionsInput;
  components: EpisodeComponents;
  signal?: AbortSignal;
  /**
   * Checkpoint thread (distributed workers use `<run>/<episode key>` so another worker can resume it; `--checkpoint`
   * runs use the episode key). @default a fresh one
   */
  threadId?: string;
  /**
   * Durable checkpointer for this episode (`--checkpoint`, or PostgreSQL for distributed runs); absent or false = none
   * for batch runs.
   */
  checkpointer?: BaseCheckpointSaver | false;
}

/** The shape of the runtime's `runEpisode`. */
export type RunEpisodeFn = (input: RunEpisodeInput) => Promise<EpisodeResult>;

/** Where agent components come from; `seed` and `task` make seeded simulated agents reproducible. */
export interface ComponentContext {
  task: Task;
  seed: number;
  env: Environment;
  /** A label that separates independent draws (e.g. continuation index). */
  stream?: string;
  /** Screenshots (model agents read image blobs from here). */
  blobs?: BlobStore;
  /** Per-episode model-call meter (model agents). */
  meter?: ModelMeter;
  /** Run-wide model settings: cache, keys, cost ledger (model agents). */
  calls?: ModelCallSettings;
  /** The episode's draws: identities of its model calls (one scope per episode). */
  draws?: DrawScope;
}

/** The environment- and agent-specific parts the runner uses. */
export interface ExperimentRuntime {
  /** Reject a config this runtime cannot run (unknown profiles, agent kinds) before anything starts. */
  checkConfig?(config: ExperimentConfig): void;
  /** Every task of an environment kind, in a stable order. */
  tasks(env: EnvSpec): Task[];
  /**
   * Reject the selected tasks when their own files are unusable (e.g. a checker module without its export), before
   * anything is written.
   */
  checkTasks?(tasks: readonly Task[]): Promise<void>;
  /** Tasks of the environment this runtime cannot run here, with the reason (counted in the summary, never scored). */
  skipped?(env: EnvSpec): SkippedTask[];
  /** A fresh environment instance (one per worker); screenshots go to the run's blob store. */
  createEnv(env: EnvSpec, blobs: BlobStore): Promise<Environment>;
  forwardPolicy(spec: AgentSpec, ctx: ComponentContext): ForwardPolicy;
  recoveryPolicy(spec: AgentSpec, ctx: ComponentContext): RecoveryPolicy;
  detector(spec: AgentSpec, ctx: ComponentContext): ErrorDetector;
  selector(spec: AgentSpec, ctx: ComponentContext): RecoveryStepSelector;
  /** The contextualized-context summarizer (model agents). */
  summarizer?(spec: AgentSpec, ctx: ComponentContext): Summarizer;
  /** A state verifier (model agents). */
  verifier?(spec: AgentSpec, ctx: ComponentContext): StateVerifier;
  /** Environment kind this runtime drives (agents adapt to real desktops). @default "simdesk" */
  envKind?: string;
  runEpisode: RunEpisodeFn;
  /**
   * Stability metrics from the environment's ground truth, when it has some (SimDesk); undefined
   * means "use the detector's labels". `states` are the observation state ids seen, in order.
   */
  groundTruthStability?(input: {
    env: Environment;
    task: Task;
    result: EpisodeResult;
    observed: ObservedState[];
  }): StabilityMetrics | undefined;
  /**
   * Where a failed episode went off track for good, from the environment's ground truth (SimDesk):
   * the step after which the state never again advanced the task's reference plan. Undefined when
   * the environment cannot know, the episode succeeded, or its last step still made progress.
   */
  groundTruthOffTrack?(input: { env: Environment; task: Task; result: EpisodeResult }): OffTrackMark | undefined;
  /**
   * Whether two observations show the same true state, from ground truth (e.g. SimDesk's semantic
   * hash). Absent (real desktops): replays are checked by SSIM >= 0.99 and probe reports
   * (experiments/ideal/forward-loop.ts `replayMatches`), never byte equality.
   */
  sameState?(env: Environment, a: Observation, b: Observation): boolean | Promise<boolean>;
  /** Write the OSWorld-style per-episode folder (traj.jsonl, step_N.png, result.txt). */
  writeEpisode?(input: { dir: string; result: EpisodeResult; blobs: BlobStore; simulated: boolean }): Promise<void>;
}

/**
 * The ground-truth "went off track here" mark of a failed episode (docs/experiments.md#ground-truth-off-track-mark):
 * `seq` is the trajectory step (its `seq`) that began the last stretch without progress along the
 * task's reference plan, `reason` says so in the viewer's step numbers.
 */
export interface OffTrackMark {
  seq: number;
  reason: string;
}

/** An observation an environment returned: its screenshot ref and true state id (ground-truth envs). */
export interface ObservedState {
  screenshot: string;
  stateId?: string;
}

/** A task left out of a run because it cannot run here (e.g. needs OSWorld's Python evaluators). */
export interface SkippedTask {
  task: string;
  reason: string;
}
