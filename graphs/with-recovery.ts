/**
 * `withRecovery(policy, options)`: wrap an unchanged forward policy into an agent that runs
 * recovery-wrapped episodes. Recovery options and the recovery components (detector, selector,
 * recoverer, summarizer, verifier) are given once; each run brings its task, environment and blobs.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { BlobStore } from "../src/blob-store.ts";
import type { ErrorDetector } from "../src/detector.ts";
import type { Environment } from "../src/environment.ts";
import type { EpisodeComponents, EpisodeResult, RecoveryOptions, RecoveryOptionsInput } from "../src/episode.ts";
import { ConfigError } from "../src/errors.ts";
import { checkUserLogger, withLogger, type UserLogger } from "../src/logger.ts";
import type { ForwardPolicy } from "../src/policy.ts";
import type { RecoveryPolicy, StateVerifier, Summarizer } from "../src/recovery.ts";
import type { EpisodeEvents } from "../src/runtime/events.ts";
import { resolveRecoveryOptions } from "../src/runtime/options.ts";
import { presetRecoveryDefaults } from "../src/runtime/preset-recovery.ts";
import { checkedEnvironment } from "../src/runtime/user-results.ts";
import type { RecoveryStepSelector } from "../src/selector.ts";
import type { Task } from "../src/task.ts";
import { createRecoveryGraph } from "./load-graph.ts";
import type { RecoveryGraph } from "./recovery-graph.ts";
import { runEpisode } from "./run-episode.ts";
import { resolveDetectorOption, type DetectionPresetOptions } from "../adapters/llm/detection-preset.ts";

/** Recovery options plus the recovery components of {@link withRecovery}. */
export interface WithRecoveryOptions extends RecoveryOptionsInput {
  /**
   * Error-step detector; absent = no recovery (the baseline). An ErrorDetector, or a detection
   * preset: `{ preset: "paper" | "production", model: judgeChatModel, ... }` (adapters/llm/detection-preset.ts;
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
  // a detection preset's recovery recipe (production: 1 attempt of at most 5 steps) under the caller's own knobs
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
