/**
 * The options both recovery-eval commands take (building a dataset, evaluating recovery on it): the config, output and
 * cache folders, API-key variables, preflight, the --max-cost-usd cap and progress callbacks.
 */
import type { RationaleScorer } from "@retrace-cua/evaluation/eval/rationale";
import type { CacheMode } from "@retrace-cua/models/models/cache";
import type { RecoveryEvalConfig } from "./config.ts";

/** Cache and process settings shared by both commands. */
export interface ConfiguredRunOptions {
  config: RecoveryEvalConfig;
  /**
   * Rationale analysis of the recovery evaluation: TF-IDF offline, or an embedding model. @default { kind: "tfidf" }
   */
  rationale?: RationaleScorer;
  /** Output folder. */
  out: string;
  /** Record/replay cache of model calls. @default "off" */
  cache?: CacheMode;
  /** Cache folder. @default <out>/model-cache */
  cacheDir?: string;
  /** Variables to read API keys from (tests pass their own). @default process.env */
  processEnv?: NodeJS.ProcessEnv;
  /** Ask each distinct endpoint once (GET /models) before the first episode. @default true, except with cache "read" */
  preflight?: boolean;
  /** Told once per task the environment cannot run (OSWorld tasks that need OSWorld's Python code), with the reason. */
  onSkipped?: (task: string, reason: string) => void;
  /**
   * Stop starting new rollouts, seed steps or samples once the money spent reaches this (USD; in-flight work finishes).
   */
  maxCostUsd?: number;
  onProgress?: (message: string) => void;
}
