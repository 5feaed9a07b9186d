/**
 * The recovery evaluation from a config, with model (or, on SimDesk, simulated) agents on any
 * environment: `buildConfiguredDataset` (on-policy rollouts of the forward agent, N-replay
 * filtering, perturbation by the perturber, targets confirmed by state hash, verifier or SSIM)
 * and `runConfiguredRecoveryEval` (implicit recovery by the forward agent, explicit recovery by
 * each recoverer with each context). Both write `model-usage.json` (calls, tokens, cost, errors
 * per role) next to their output, and label results `simulated: false` unless a simulated agent
 * took part.
 *
 * R_TC on real desktops: there is no ground-truth state, so R_TC replays the remaining
 * ground-truth actions of the recorded trajectory from the recovered state and runs the task's
 * own oracle (`env.evaluate()`: saved file contents, values read through AT-SPI), exactly as on
 * SimDesk. Every environment here has a task oracle; the ground-truth replay is the dataset's.
 */
import { assertPricedForCap, type CappedAgent } from "../agents/cost-cap.ts";
import type { RationaleScorer } from "@retrace-cua/evaluation/eval/rationale";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";
import { join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ForwardPolicy, JsonValue } from "@retrace-cua/core/policy";
import type { RecoveryPolicy } from "@retrace-cua/core/recovery";
import type { Task } from "@retrace-cua/core/task";
import { buildRecoveryDataset } from "@retrace-cua/evaluation/dataset/build";
import { loadRecoveryDataset, saveRecoveryDataset } from "@retrace-cua/evaluation/dataset/store";
import type { RecoveryDatasetManifest, RecoverySample } from "@retrace-cua/evaluation/dataset/types";
import { evaluateRecovery, type RecoveryRun, type RecoveryVariant } from "@retrace-cua/evaluation/eval/run";
import { createStateCheck, type StateCheck } from "@retrace-cua/core/replay/state-check";
import type { CacheMode } from "@retrace-cua/models/models/cache";
import { createEnvironmentFactory, tasksForEnvironment } from "@retrace-cua/environments/registry";
import type { SimDesk } from "@retrace-cua/simdesk/simdesk";
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import {
  createSimForwardPolicy,
  createSimPerturbationPolicy,
  createSimRecoveryPolicy,
  describeSimulated,
  SIM_PROFILES,
} from "@retrace-cua/simdesk/agents/index";
import { runtimeSettings } from "@retrace-cua/core/settings";
import { apiKeyOf, backendOf, preflightEndpoints, type Endpoint } from "../agents/index.ts";
import { createEvalAgents, type EvalAgents, type RoleUsage } from "./agents.ts";
import { DrawScope } from "@retrace-cua/models/models/draws";
import type { Summarizer } from "@retrace-cua/core/recovery";
import type { ModelAgentSpec } from "../agents/index.ts";
import type { EvalAgentSpec, RecoveryEvalConfig } from "./config.ts";
import { copySampleStates, createEvalSimDesk, simSummarizer } from "./simdesk.ts";
import { recoveryEvalReport, type RecoveryEvalReport } from "./report-data.ts";
import { openOsworldEvalEnv, osworldEvalBridge, osworldEvalTasks } from "./osworld.ts";
import { settleFor, type SettleChoice } from "../runner/settle.ts";

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

const VENDOR_URL = {
  openai: "https://api.openai.com/v1",
  "openai-responses": "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
} as const;

/** The distinct model endpoints of the agents a command uses, with the config fields that use each. */
export function evalEndpoints(
  agents: ReadonlyArray<[string, EvalAgentSpec | undefined]>,
  processEnv: NodeJS.ProcessEnv = process.env,
): Endpoint[] {
  const settings = runtimeSettings(processEnv);
  const byKey = new Map<string, Endpoint>();
  for (const [path, spec] of agents) {
    if (!spec || spec.kind !== "model") continue;
    const backend = backendOf(spec);
    if (backend === "langchain") continue; // the module's own chat model: nothing to preflight here
    const baseUrl = spec.baseUrl ?? (backend === "anthropic" ? undefined : settings.baseUrl) ?? VENDOR_URL[backend];
    const apiKey = apiKeyOf(spec, { cache: "off", cacheDir: "", env: processEnv }, `${path}.apiKeyEnv`);
    const key = `${backend === "anthropic" ? "anthropic" : "openai"} ${baseUrl} ${apiKey ?? ""}`;
    const e = byKey.get(key) ?? { baseUrl, backend, apiKey, users: [] };
    e.users.push(path);
    byKey.set(key, e);
  }
  return [...byKey.values()];
}

async function preflight(
  options: ConfiguredRunOptions,
  agents: ReadonlyArray<[string, EvalAgentSpec | undefined]>,
): Promise<void> {
  if (options.maxCostUsd !== undefined)
    assertPricedForCap(agents.map(([path, spec]) => ({ path, spec: spec as CappedAgent["spec"] })));
  if (options.preflight === false || options.cache === "read") return;
  await preflightEndpoints(evalEndpoints(agents, options.processEnv), {});
}

/**
 * `model-usage.json`: model calls per role (the runner's role names: policy, perturber, recoverer, summarizer,
 * verifier).
 */
export interface ModelUsageFile {
  simulated: boolean;
  /** Why the command stopped early (--max-cost-usd), when it did. */
  stopped?: string;
  roles: Partial<Record<string, RoleUsage>>;
  /** Totals over roles: calls (answered, failed or served from the cache), failed calls, list-price cost. */
  calls: number;
  errors: number;
  costUsd: number;
}

/** `model-usage.json` from usage per role. */
export function usageFile(
  roles: Partial<Record<string, RoleUsage>>,
  simulated: boolean,
  stopped?: string,
): ModelUsageFile {
  const sum = (k: "calls" | "errors" | "costUsd") =>
    Math.round(Object.values(roles).reduce((s, r) => s + (r?.[k] ?? 0), 0) * 1e9) / 1e9;
  return {
    simulated,
    ...(stopped && { stopped }),
    roles,
    calls: sum("calls"),
    errors: sum("errors"),
    costUsd: sum("costUsd"),
  };
}

/** The `stop` hook of --max-cost-usd, remembering whether it fired. */
function costStop(
  options: ConfiguredRunOptions,
  agents: EvalAgents,
): { stop?: () => string | undefined; reason(): string | undefined } {
  const max = options.maxCostUsd;
  if (max === undefined) return { reason: () => undefined };
  if (!(max > 0))
    throw new ConfigError(`--max-cost-usd: expected a positive amount of US dollars, got ${max}`, {
      field: "maxCostUsd",
    });
  let reason: string | undefined;
  return {
    stop: () =>
      (reason ??=
        agents.spentUsd() >= max
          ? `recorded cost $${agents.spentUsd().toFixed(2)} reached --max-cost-usd ${max}`
          : undefined),
    reason: () => reason,
  };
}

import { LayeredBlobStore } from "./simdesk.ts";
export { LayeredBlobStore };

/** The tasks of the config's environment, in config order. */
function selectTasks(config: RecoveryEvalConfig, onSkipped?: (task: string, reason: string) => void): Task[] {
  let all: readonly Task[];
  const skippedIds = new Set<string>();
  if (config.env.kind === "osworld") {
    const split = osworldEvalTasks(config.env, osworldEvalBridge(config.env).python);
    const wanted = config.env.tasks && new Set(config.env.tasks);
    for (const s of split.skipped) {
      skippedIds.add(s.task);
      if (!wanted || wanted.has(s.task)) onSkipped?.(s.task, s.reason);
    }
    all = split.tasks;
  } else all = tasksForEnvironment(config.env.kind);
  const byId = new Map(all.map((t) => [t.id, t]));
  const tasks = config.env.tasks
    ? config.env.tasks
        .map((id, i) => {
          const t = byId.get(id);
          if (!t && skippedIds.has(id)) return undefined; // reported through onSkipped
          if (!t)
            throw new ConfigError(
              `env.tasks.${i}: "${id}" is not a ${config.env.kind} task (\`retrace tasks\` lists them)`,
              { field: `env.tasks.${i}` },
            );
          return t;
        })
        .filter((t): t is Task => t !== undefined)
    : [...all];
  return config.env.limit ? tasks.slice(0, config.env.limit) : tasks;
}

/** A fresh environment of the config's kind; SimDesk keeps state snapshots in `stateDir`. */
async function openEnv(config: RecoveryEvalConfig, blobs: BlobStore, stateDir: string): Promise<Environment> {
  const size = { width: config.env.width, height: config.env.height };
  if (config.env.kind === "simdesk") return createEvalSimDesk(blobs, stateDir, size);
  if (config.env.kind === "osworld")
    return openOsworldEvalEnv(config.env, blobs, config.name, osworldEvalBridge(config.env).bridge);
  return createEnvironmentFactory(config.env.kind, { blobs, ...size })();
}

function simProfile<T extends object>(
  profiles: Record<string, T>,
  name: string | undefined,
  fallback: string,
  path: string,
): T {
  const key = name ?? fallback;
  const p = profiles[key];
  if (!p)
    throw new ConfigError(
      `${path}.profile: unknown simulated profile "${key}" (one of ${Object.keys(profiles).join(", ")})`,
      { field: `${path}.profile` },
    );
  return p;
}

/** Forward-policy factory for rollouts and implicit recovery. */
function forwardFactory(
  spec: EvalAgentSpec,
  agents: EvalAgents,
  seed: number,
  phase: string,
): (task: Task, key: string) => ForwardPolicy {
  // Each rollout (or implicit-recovery run) draws on its own: seed, task and the rollout/sample key are its draw
  // identity.
  if (spec.kind === "model")
    return (task, key) => agents.forward(spec, new DrawScope({ seed, task: task.id, condition: `${phase}/${key}` }));
  const profile = simProfile(SIM_PROFILES.forward, spec.profile, "default", "dataset.forward");
  return (task, key) => createSimForwardPolicy({ task: task as SimDeskTask, seed: `${seed}/${key}`, ...profile });
}

/** Build and save a recovery dataset as the config says. */
export async function buildConfiguredDataset(
  options: ConfiguredRunOptions,
): Promise<{ manifest: RecoveryDatasetManifest; usage: ModelUsageFile }> {
  const { config } = options;
  const d = config.dataset;
  const skipped: Array<{ task: string; reason: string }> = [];
  const tasks = selectTasks(
    config,
    (task, reason) => (skipped.push({ task, reason }), options.onSkipped?.(task, reason)),
  );
  if (tasks.length === 0)
    throw new ConfigError(
      `env.tasks: no tasks selected${skipped.length ? ` (skipped: ${skipped.map((s) => `${s.task}: ${s.reason}`).join("; ")})` : ""}`,
      { field: "env.tasks" },
    );
  await preflight(options, [
    ["dataset.forward", d.forward],
    ["dataset.perturber", d.perturber],
    ["dataset.verifier", d.verifier],
  ]);
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });
  const blobs = new BlobStore({ dir: join(out, "blobs") });
  const agents = createEvalAgents({
    blobs,
    cache: options.cache,
    cacheDir: options.cacheDir ?? join(out, "model-cache"),
    env: options.processEnv,
  });
  const env = await openEnv(config, blobs, join(out, "simdesk-states"));
  const budget = costStop(options, agents);
  const seen = new Map<string, ForwardPolicy>();
  const note = <P extends ForwardPolicy>(p: P): P => (p.simulated && !seen.has(p.name) && seen.set(p.name, p), p);
  try {
    const forward = forwardFactory(d.forward, agents, config.seed, "rollout");
    const perturbSpec = d.perturber;
    const build = await buildRecoveryDataset({
      env,
      blobs,
      tasks,
      seed: config.seed,
      check: configuredCheck(config, agents),
      settleMs: recoveryEvalSettle(config).settleMs,
      forwardPolicy: ({ task, rollout }) => note(forward(task, String(rollout))),
      perturbationPolicy: ({ task, rollout, targetStep, distance }) =>
        note(
          perturbSpec.kind === "model"
            ? agents.perturber(
                perturbSpec,
                distance,
                new DrawScope({
                  seed: config.seed,
                  task: task.id,
                  condition: `perturb/${rollout}/${targetStep}/${distance}`,
                }),
              )
            : createSimPerturbationPolicy({
                groundTruth: env as SimDesk,
                seed: `${config.seed}/${rollout}/${targetStep}/${distance}`,
              }),
        ),
      rolloutsPerTask: d.rolloutsPerTask,
      replays: d.replays,
      seedStepsPerTrajectory: d.seedSteps,
      distances: d.distances,
      maxSteps: d.maxSteps,
      maxSamplesPerDistance: d.maxSamplesPerDistance,
      onProgress: options.onProgress,
      stop: budget.stop,
      declaredSimulated: () => servedBySimulatedModel(agents.usage()),
    });
    const served = servedBySimulatedModel(agents.usage());
    const usage = usageFile(agents.usage(), build.simulated || served, build.stopped);
    const manifest = saveRecoveryDataset({
      dir: out,
      build: { ...build, simulated: build.simulated || served },
      tasks,
      blobs,
      simulatedLabel: [describeSimulated(...seen.values()), served ? STAND_IN_LABEL : ""].filter(Boolean).join(" + "),
      config: {
        env: config.env.kind,
        width: config.env.width,
        height: config.env.height,
        noise: false,
        noiseSeed: 0,
        verify: d.verify,
        name: config.name,
        settleSource: recoveryEvalSettle(config).source,
        agents: {
          forward: redactSpec(d.forward),
          perturber: redactSpec(d.perturber),
          ...(d.verifier && { verifier: redactSpec(d.verifier) }),
        },
        tasks: tasks.map((t) => t.id),
        ...(skipped.length > 0 && { skipped }),
        ...(build.stopped && { stopped: build.stopped }),
      },
    });
    writeTextAtomic(join(out, "model-usage.json"), JSON.stringify(usage, null, 2) + "\n");
    return { manifest, usage };
  } finally {
    await env.close();
  }
}

/**
 * How replayed states are confirmed, in the build and again when the evaluation reconstructs
 * target and error states: SimDesk's state hash, the model verifier (an abstention does not
 * confirm) or SSIM >= 0.99, as `dataset.verify` says.
 */
function configuredCheck(config: RecoveryEvalConfig, agents: EvalAgents): StateCheck {
  const v = config.dataset.verifier;
  if (v && v.kind !== "model")
    throw new ConfigError(
      `dataset.verifier.kind: ${v.kind} verifiers are not wired into the recovery evaluation yet (its environments record no state probes); use kind: model, or verify: ssim`,
      { field: "dataset.verifier.kind" },
    );
  // One draw scope for the run's verifier calls (they are sequential): each gets its own identity,
  // and a repeated identical check is a fresh draw (ordinal), reproducible under the config's seed.
  return createStateCheck({
    method: config.dataset.verify,
    verifier: v
      ? agents.verifier(v, new DrawScope({ seed: config.seed, task: "state-check", condition: "verifier" }))
      : undefined,
  });
}

/**
 * A recovery-eval config's settle wait (every path of the build and the evaluation): `settleMs` when given, else the
 * environment's default (osworld 10 s).
 */
export function recoveryEvalSettle(config: Pick<RecoveryEvalConfig, "env" | "settleMs">): SettleChoice {
  return settleFor(config.env.kind, config.settleMs);
}

/** A spec as recorded: everything but secrets (specs hold only the key's variable name). */
function redactSpec(spec: EvalAgentSpec): JsonValue {
  return JSON.parse(JSON.stringify(spec)) as JsonValue;
}

/** How a run answered by a self-declared stand-in server is labelled. */
export const STAND_IN_LABEL = "simulated: a stand-in model server (system_fingerprint declares it simulated)";

/** True when some role's calls were answered by a server that declared itself a simulated stand-in. */
function servedBySimulatedModel(roles: Partial<Record<string, RoleUsage>>): boolean {
  return Object.values(roles).some((u) => u?.simulated === true);
}

/** Evaluate the config's recovery variants on a dataset; writes recovery-eval.json, runs.jsonl, model-usage.json. */
export async function runConfiguredRecoveryEval(
  options: ConfiguredRunOptions & { dataset: string },
): Promise<{ report: RecoveryEvalReport; runs: RecoveryRun[]; usage: ModelUsageFile }> {
  const { config } = options;
  const ds = loadRecoveryDataset(options.dataset);
  const dsEnv = String(ds.manifest.config.env);
  if (dsEnv !== config.env.kind)
    throw new ConfigError(
      `--dataset: ${ds.dir} was built on "${dsEnv}" but the config runs on "${config.env.kind}"; pass --env ${dsEnv} or rebuild the dataset`,
      { field: "env" },
    );
  await preflight(options, [
    ...(config.eval.implicit ? [["dataset.forward", config.dataset.forward] as [string, EvalAgentSpec]] : []),
    ["dataset.verifier", config.dataset.verifier],
    ...config.eval.recoverers.map((r, i) => [`eval.recoverers.${i}.agent`, r.agent] as [string, EvalAgentSpec]),
    ["eval.summarizer", config.eval.summarizer],
  ]);
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });
  const blobs = new LayeredBlobStore(join(out, "blobs"), new BlobStore({ dir: join(ds.dir, "blobs") }));
  const agents = createEvalAgents({
    blobs,
    cache: options.cache,
    cacheDir: options.cacheDir ?? join(out, "model-cache"),
    env: options.processEnv,
  });
  if (config.env.kind === "simdesk")
    copySampleStates(ds.samples, join(ds.dir, "simdesk-states"), join(out, "simdesk-states"));
  const sizeOf = (k: string, d: number) =>
    typeof ds.manifest.config[k] === "number" ? (ds.manifest.config[k] as number) : d;
  const env = await openEnv(
    {
      ...config,
      env: { ...config.env, width: sizeOf("width", config.env.width), height: sizeOf("height", config.env.height) },
    },
    blobs,
    join(out, "simdesk-states"),
  );
  try {
    const variants = configuredVariants(config, agents, env);
    const recoveryBudget = config.eval.recoveryBudget;
    const budget = costStop(options, agents);
    const settle = recoveryEvalSettle(config);
    const runs = await evaluateRecovery({
      env,
      blobs,
      tasks: ds.tasks,
      samples: ds.samples,
      variants,
      recoveryBudget,
      check: configuredCheck(config, agents),
      settleMs: settle.settleMs,
      rationale: options.rationale,
      onProgress: options.onProgress,
      stop: budget.stop,
      declaredSimulated: () => servedBySimulatedModel(agents.usage()),
    });
    const served = servedBySimulatedModel(agents.usage());
    const simulated = runs.some((r) => r.simulated) || ds.manifest.simulated || served;
    const label = simulated
      ? [
          ds.manifest.simulatedLabel || (served ? "" : "simulated: SimDesk agents"),
          served && !ds.manifest.simulatedLabel?.includes(STAND_IN_LABEL) ? STAND_IN_LABEL : "",
        ]
          .filter(Boolean)
          .join(" + ")
      : "";
    const report: RecoveryEvalReport = {
      ...recoveryEvalReport({
        runs,
        manifest: ds.manifest,
        dataset: ds.dir,
        label,
        recoveryBudget,
        samples: config.eval.samples,
        settle,
        simulated,
      }),
      ...(config.eval.implicit && { implicitHistoryImages: implicitHistoryImagesOf(config) }),
    };
    const usage = usageFile(agents.usage(), simulated, budget.reason());
    writeTextAtomic(join(out, "runs.jsonl"), runs.map((r) => JSON.stringify(r)).join("\n") + (runs.length ? "\n" : ""));
    writeTextAtomic(join(out, "recovery-eval.json"), JSON.stringify(report, null, 2) + "\n");
    writeTextAtomic(join(out, "model-usage.json"), JSON.stringify(usage, null, 2) + "\n");
    return { report, runs, usage };
  } finally {
    await env.close();
  }
}

/**
 * The model summarizer with a draw identity per call: the episode is (seed, task, target step R),
 * so every sample's briefing is its own draw and the same briefing asked again (another budget)
 * is the same request under the same identity (served from the cache).
 */
function drawnSummarizer(spec: ModelAgentSpec, agents: EvalAgents, seed: number): Summarizer {
  const { name } = agents.summarizer(spec);
  return {
    name,
    summarize: (input) =>
      agents
        .summarizer(spec, new DrawScope({ seed, task: input.task.id, condition: `summarize/R${input.target.step}` }))
        .summarize(input),
  };
}

/**
 * Screenshots of the history implicit recovery sees: the config's `eval.implicitHistoryImages`, else the forward
 * agent's own (3 when it leaves it out; simulated agents read no screenshots: null).
 */
export function implicitHistoryImagesOf(config: RecoveryEvalConfig): number | null {
  const f = config.dataset.forward;
  if (f.kind !== "model") return null;
  return config.eval.implicitHistoryImages ?? f.historyImages ?? 3;
}

/** The variants of a config: implicit (the dataset's forward agent) and each recoverer x context. */
export function configuredVariants(
  config: RecoveryEvalConfig,
  agents: EvalAgents,
  env: Environment,
): RecoveryVariant[] {
  const variants: RecoveryVariant[] = [];
  if (config.eval.implicit) {
    // Implicit recovery sees as much of its history as the config says (the paper: the full history).
    const n = config.eval.implicitHistoryImages;
    const spec =
      n !== undefined && config.dataset.forward.kind === "model"
        ? { ...config.dataset.forward, historyImages: n }
        : config.dataset.forward;
    const forward = forwardFactory(spec, agents, config.seed, "implicit");
    variants.push({ id: "implicit/0-E", kind: "implicit", policy: ({ task, sample }) => forward(task, sample.id) });
  }
  const s = config.eval.summarizer;
  if (s && s.kind === "sim" && config.env.kind !== "simdesk")
    throw new ConfigError("eval.summarizer: the simulated summarizer runs on SimDesk only; use kind: model", {
      field: "eval.summarizer",
    });
  const summarizer = s ? (s.kind === "model" ? drawnSummarizer(s, agents, config.seed) : simSummarizer) : undefined;
  config.eval.recoverers.forEach((rc, i) => {
    const make = recovererFactory(rc.agent, agents, env, config.seed, `eval.recoverers.${i}.agent`, rc.name);
    for (const context of rc.contexts) {
      variants.push({
        id: `explicit-${rc.name}/${context}`,
        kind: "explicit",
        context,
        recoverer: ({ sample }) => make(sample),
        ...(context === "contextualized" && { summarizer }),
      });
    }
  });
  if (variants.length === 0)
    throw new ConfigError("eval: nothing to evaluate (implicit: false and no recoverers)", { field: "eval" });
  return variants;
}

function recovererFactory(
  spec: EvalAgentSpec,
  agents: EvalAgents,
  env: Environment,
  seed: number,
  path: string,
  name: string,
): (sample: RecoverySample) => RecoveryPolicy {
  if (spec.kind === "model")
    return (sample) => agents.recoverer(spec, new DrawScope({ seed, task: sample.id, condition: `recover/${name}` }));
  const profile = simProfile(SIM_PROFILES.recoverer, spec.profile, "skilled", path);
  return (sample) => createSimRecoveryPolicy({ groundTruth: env as SimDesk, seed: `${seed}/${sample.id}`, ...profile });
}
