/**
 * The roles an agent spec can fill in an experiment, what each role builds, and the context a
 * factory gets. One spec kind (sim, model, stagnation, loop, ...) = one file in this folder.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { Environment } from "@retrace-cua/core/environment";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import type { RecoveryPolicy, StateVerifier, Summarizer } from "@retrace-cua/core/recovery";
import type { RecoveryStepSelector } from "@retrace-cua/core/selector";
import type { Task } from "@retrace-cua/core/task";
import type { ModelRole } from "@retrace-cua/core/usage";
import type { CostLedger, ModelMeter } from "./meter.ts";
import type { CacheMode } from "@retrace-cua/models/models/cache";
import type { DrawScope } from "@retrace-cua/models/models/draws";

/** Roles an agent spec can fill. `recovery` is the recovery sub-agent. */
export const AGENT_ROLES = [
  "forward",
  "detector",
  "selector",
  "recovery",
  "summarizer",
  "verifier",
  "perturber",
] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

/** The accounting role (packages/core/src/usage.ts) of each agent role. */
export const MODEL_ROLE_OF: Record<AgentRole, ModelRole> = {
  forward: "policy",
  detector: "detector",
  selector: "selector",
  recovery: "recoverer",
  summarizer: "summarizer",
  verifier: "verifier",
  perturber: "perturber",
};

/** What `createAgent(role, ...)` returns for each role. */
export interface AgentOf {
  forward: ForwardPolicy;
  detector: ErrorDetector;
  selector: RecoveryStepSelector;
  recovery: RecoveryPolicy;
  summarizer: Summarizer;
  verifier: StateVerifier;
  perturber: ForwardPolicy;
}

/** Everything a factory may need to build one agent for one episode. */
export interface AgentContext {
  task: Task;
  seed: number;
  env: Environment;
  /** Where screenshots live (model backends read image blobs from here). */
  blobs: BlobStore;
  /** A label separating independent draws of simulated agents (e.g. a continuation index). */
  stream?: string;
  /** Per-episode model-call meter (calls, errors, tokens, cost per role); model agents need one. */
  meter?: ModelMeter;
  /** Run-wide model settings (cache, secrets); model agents need them. */
  calls?: ModelCallSettings;
  /**
   * The episode's draws (packages/models/src/models/draws.ts): every model call gets an identity from it. @default none (no seed
   * sent)
   */
  draws?: DrawScope;
  /** Environment kind the agent acts in ("simdesk", "x11", ...); sim agents need ground truth. */
  envKind?: string;
}

/** Run-wide settings of model agents. */
export interface ModelCallSettings {
  /** Record/replay cache of every model call. @default "off" */
  cache: CacheMode;
  /** Cache folder (the CLI's default: <out>/model-cache). */
  cacheDir: string;
  /** Environment to read keys from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Money actually spent so far (for --max-cost-usd). */
  ledger?: CostLedger;
}
