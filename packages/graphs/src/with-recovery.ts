/**
 * `withRecovery(policy, options)`: wrap an unchanged forward policy into an agent that runs
 * recovery-wrapped episodes. Recovery options and the recovery components (detector, selector,
 * recoverer, summarizer, verifier) are given once; each run brings its task, environment and blobs.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { Environment } from "@retrace-cua/core/environment";
import type {
  EpisodeComponents,
  EpisodeResult,
  RecoveryOptions,
  RecoveryOptionsInput,
} from "@retrace-cua/core/episode";
import { ConfigError } from "@retrace-cua/core/errors";
import { checkUserLogger, withLogger, type UserLogger } from "@retrace-cua/core/logger";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import type { RecoveryPolicy, StateVerifier, Summarizer } from "@retrace-cua/core/recovery";
import type { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import { resolveRecoveryOptions } from "@retrace-cua/core/runtime/options";
import { presetRecoveryDefaults } from "@retrace-cua/core/runtime/preset-recovery";
import { checkedEnvironment } from "@retrace-cua/core/runtime/user-results";
import type { RecoveryStepSelector } from "@retrace-cua/core/selector";
import type { Task } from "@retrace-cua/core/task";
import { createRecoveryGraph } from "./load-graph.ts";
import type { RecoveryGraph } from "./recovery-graph.ts";
import { runEpisode } from "./run-episode.ts";
import { resolveDetectorOption, type DetectionPresetOptions } from "@retrace-cua/models/llm/detection-preset";

/** Recovery options plus the recovery components of {@link withRecovery}. */
export interface WithRecoveryOptions extends RecoveryOptionsInput {
  /**
   * Error-step detector; absent = no recovery (the baseline). An ErrorDetector, or a detection
   * preset: `{ preset: "paper" | "production", model: judgeChatModel, ... }` (packages/models/src/llm/detection-preset.ts;
   * docs/cost.md says which to pick).
   */
  detector?: ErrorDetector | DetectionPresetOptions;
  /** Model-backed selector for `recoveryStep: "llm"`. */
  selector?: RecoveryStepSelector;
  /** Recovery sub-agent for `restoration: "model"`. */
  recoverer?: RecoveryPolicy;
  /** Summarizer for `recoveryContext: "contextualized"`. */
  summarizer?: Summarizer;
  /** Optional verifier of restored claims. */
  verifier?: StateVerifier;
  /** Checkpointer for every run. @default a MemorySaver per run */
  checkpointer?: BaseCheckpointSaver;
  /**
   * Your pino-compatible logger ({ debug, info, warn, error } taking (obj, msg)): each run's records go there instead
   * of stderr.
   */
  logger?: UserLogger;
}

/** Per-run inputs of a {@link RecoveryAgent}. */
export interface RecoveryAgentRunArgs {
  task: Task;
  env: Environment;
  blobs: BlobStore;
  threadId?: string;
  events?: EpisodeEvents;
  signal?: AbortSignal;
}

/** A forward policy wrapped with online detection and recovery. */
export interface RecoveryAgent {
  readonly name: string;
  readonly options: RecoveryOptions;
  /** Run (or, with a known threadId and a durable checkpointer, resume) one episode. */
  run(args: RecoveryAgentRunArgs): Promise<EpisodeResult>;
  /**
   * The compiled recovery graph for this environment, to embed in a larger LangGraph (async: the first call loads
   * LangGraph).
   */
  graph(
    args: Omit<RecoveryAgentRunArgs, "task" | "threadId"> & { checkpointer?: BaseCheckpointSaver | boolean },
  ): Promise<RecoveryGraph>;
}

const COMPONENT_KEYS = [
  "detector",
  "selector",
  "recoverer",
  "summarizer",
  "verifier",
  "checkpointer",
  "logger",
] as const;

/** Wrap `policy` with recovery. Options are validated now; a bad field throws a ConfigError. */
export function withRecovery(policy: ForwardPolicy, options: WithRecoveryOptions = {}): RecoveryAgent {
  if (!policy || typeof policy.propose !== "function")
    throw new ConfigError("withRecovery: policy must be a ForwardPolicy with propose()", { field: "policy" });
  const rest: Record<string, unknown> = { ...options };
  for (const k of COMPONENT_KEYS) delete rest[k];
  // a detection preset's recovery recipe (production: 1 attempt of at most 5 steps, the repeat and stuck stops) under
  // the caller's own knobs
  const resolved = resolveRecoveryOptions(rest as RecoveryOptionsInput, {
    where: "withRecovery",
    defaults: presetRecoveryDefaults(options.detector, "withRecovery"),
  });
  const detector = resolveDetectorOption(options.detector, "withRecovery: option detector");
  const userLogger = checkUserLogger("withRecovery", options.logger);
  const components = (env: Environment, blobs: BlobStore): EpisodeComponents => ({
    policy,
    env: checkedEnvironment(env),
    blobs,
    detector,
    selector: options.selector,
    recoverer: options.recoverer,
    summarizer: options.summarizer,
    verifier: options.verifier,
  });
  return {
    name: `${policy.name}+recovery`,
    options: resolved,
    run: (args) =>
      withLogger(userLogger, () =>
        runEpisode({
          task: args.task,
          components: components(args.env, args.blobs),
          options: resolved,
          threadId: args.threadId,
          checkpointer: options.checkpointer,
          events: args.events,
          signal: args.signal,
        }),
      ),
    graph: (args) =>
      createRecoveryGraph({
        components: components(args.env, args.blobs),
        options: resolved,
        events: args.events,
        signal: args.signal,
        checkpointer: args.checkpointer,
      }),
  };
}
