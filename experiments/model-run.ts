/**
 * Run one SimDesk task with a model-backed forward policy over HTTP (`retrace run-model`): the
 * generic pyautogui agent against any OpenAI-compatible server by default, or the UI-TARS,
 * OpenAI computer-use or Anthropic computer-use agents. No recovery is attached (the baseline
 * run); the episode goes through the recovery runtime's `runEpisode` and is written in the same
 * OSWorld-style folder as SimDesk runs (`traj.jsonl`, `step_N.png`, `result.txt`, `result.json`,
 * by packages/core/src/store/episode-output.ts) plus `run.json` (policy, model, accounting, trajectory). API
 * keys come from options or the environment and are never written anywhere.
 */
import { ModelMeter } from "./agents/meter.ts";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import type { EpisodeResult } from "@retrace-cua/core/episode";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel } from "@retrace-cua/core/model";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import { envVar, runtimeSettings } from "@retrace-cua/core/settings";
import { writeEpisodeOutput } from "@retrace-cua/core/store/episode-output";
import { createSimDesk } from "@retrace-cua/simdesk/simdesk";
import { getSimDeskTask } from "@retrace-cua/simdesk/tasks/index";
import {
  CACHE_MODES,
  parseCacheMode,
  withCache,
  type CacheMode,
  type CacheStats,
} from "@retrace-cua/models/models/cache";
import { DrawScope, withDraws } from "@retrace-cua/models/models/draws";
import { createOpenAIChatModel } from "@retrace-cua/models/models/openai-chat";
import type { PriceTable } from "@retrace-cua/models/models/pricing";
import { checkOutDir, prepareOutDir } from "@retrace-cua/core/store/out-dir";
import { redactSecrets } from "@retrace-cua/models/models/redact";
import { createPyautoguiPolicy } from "@retrace-cua/models/policies/openai/pyautogui-policy";
import { createUiTarsPolicy } from "@retrace-cua/models/policies/uitars/uitars-policy";
import { createOpenAICuaPolicy } from "@retrace-cua/models/policies/openai-cua/openai-cua-policy";
import { createAnthropicPolicy } from "@retrace-cua/models/policies/anthropic/anthropic-policy";
import { runEpisode } from "@retrace-cua/graphs/run-episode";
import { preflightEndpoints } from "./agents/preflight.ts";

/** Model-backed policy kinds `run-model` can drive. */
export const MODEL_POLICIES = ["openai", "uitars", "openai-cua", "anthropic"] as const;
export type ModelPolicyKind = (typeof MODEL_POLICIES)[number];

/** Options for {@link runModelTask}. */
export interface ModelRunOptions {
  /** Which agent: "openai" = the generic pyautogui agent over chat completions. @default "openai" */
  policy?: ModelPolicyKind;
  /** Model name as the server knows it. */
  model: string;
  /** SimDesk task id (`retrace tasks` lists them). */
  taskId: string;
  /** Server base URL (OpenAI-compatible: ending in /v1; Anthropic: the origin). @default settings.baseUrl */
  baseURL?: string;
  /** Output folder. @default runs/model-<task>-<timestamp> */
  out?: string;
  /** API key. @default the variable named by apiKeyEnv, else settings (OPENAI_API_KEY / ANTHROPIC_API_KEY) */
  apiKey?: string;
  /** Name of the environment variable holding the key. @default none */
  apiKeyEnv?: string;
  /** Record/replay cache mode. @default "off" */
  cache?: CacheMode;
  /** Cache folder (share it between runs to replay). @default <out>/model-cache */
  cacheDir?: string;
  /** Forward step budget. @default 15 */
  maxSteps?: number;
  /** SDK retries on 429/5xx/timeouts. @default 2 */
  maxRetries?: number;
  /** Per-attempt timeout in ms. @default 60000 */
  timeoutMs?: number;
  /** Past screenshots shown to the model. @default the agent's own (3; UI-TARS 5) */
  historyImages?: number;
  /**
   * Episode seed of the draw identity every model call carries (packages/models/src/models/draws.ts: seed,
   * task, role, ordinal; sent as the request's `seed` and keying the cache). @default 0
   */
  seed?: number;
  /** Sampling temperature. @default the agent's own */
  temperature?: number;
  /** Screen size of the SimDesk. @default 1280x800 */
  width?: number;
  height?: number;
  /** Prices for cost accounting. @default none */
  prices?: PriceTable;
  /** Environment to read keys from (tests pass their own). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Check the endpoint (GET <baseURL>/models) before the episode. @default true */
  preflight?: boolean;
}

/** What {@link runModelTask} produced. */
export interface ModelRunResult {
  out: string;
  result: EpisodeResult;
  /** Cache counters, when a cache was on. */
  cache?: CacheStats;
}

/** Run one task with a model-backed policy and write its episode folder. */
export async function runModelTask(options: ModelRunOptions): Promise<ModelRunResult> {
  const kind = options.policy ?? "openai";
  if (!(MODEL_POLICIES as readonly string[]).includes(kind))
    throw new ConfigError(`--policy: "${kind}" is not a model policy; use one of ${MODEL_POLICIES.join(", ")}`, {
      field: "policy",
    });
  if (!options.model) throw new ConfigError("--model: give the model name the server expects", { field: "model" });
  const task = getSimDeskTask(options.taskId);
  const cacheMode = parseCacheMode(options.cache ?? "off");
  const maxSteps = options.maxSteps ?? 15;
  const maxRetries = options.maxRetries ?? 2;
  const timeoutMs = options.timeoutMs ?? 60_000;
  if (!Number.isInteger(maxSteps) || maxSteps < 1)
    throw new ConfigError(`--max-steps: expected a positive integer, got ${maxSteps}`, { field: "maxSteps" });

  const settings = runtimeSettings(options.env ?? process.env);
  let apiKey = options.apiKey;
  if (!apiKey && options.apiKeyEnv) {
    apiKey = envVar(options.apiKeyEnv, options.env ?? process.env);
    if (!apiKey)
      throw new ConfigError(`--api-key-env: the variable ${options.apiKeyEnv} is not set`, { field: "apiKeyEnv" });
  }
  apiKey ??= kind === "anthropic" ? settings.anthropicApiKey : settings.apiKey;
  const baseURL = options.baseURL ?? settings.baseUrl;
  if (baseURL !== undefined && !/^https?:\/\/[^/]/.test(baseURL))
    throw new ConfigError(
      `--base-url: expected an http:// or https:// URL such as http://127.0.0.1:8000/v1, got "${baseURL}"`,
      { field: "baseUrl" },
    );
  if (cacheMode !== "read" && baseURL !== undefined && options.preflight !== false) {
    const backend = kind === "anthropic" ? "anthropic" : kind === "openai-cua" ? "openai-responses" : "openai";
    await preflightEndpoints([{ baseUrl: baseURL, backend, apiKey, users: ["--policy " + kind] }]);
  }

  const out = resolve(
    options.out ?? join("runs", `model-${task.id}-${new Date().toISOString().replace(/[:.]/g, "-")}`),
  );
  if (options.cacheDir !== undefined) checkOutDir(options.cacheDir, { flag: "--cache-dir" });
  prepareOutDir(out);
  const blobs = new BlobStore({ dir: join(out, "blobs") });
  const cacheDir = options.cacheDir ?? join(out, "model-cache");
  const cacheOpts = cacheMode === "off" ? undefined : { dir: cacheDir, mode: cacheMode };
  const common = {
    ...(options.historyImages !== undefined && { historyImages: options.historyImages }),
    ...(options.temperature !== undefined && { temperature: options.temperature }),
  };

  // One episode, one draw scope: the same --seed asks the same questions under the same identities.
  const draws = new DrawScope({ seed: options.seed ?? 0, task: task.id });
  let cachedModel: (ChatModel & { stats?: CacheStats }) | undefined;
  const meter = new ModelMeter();
  let policy: ForwardPolicy & { stats?: unknown };
  if (kind === "openai" || kind === "uitars") {
    const backend = createOpenAIChatModel({
      model: options.model,
      baseURL,
      apiKey,
      blobs,
      maxRetries,
      timeoutMs,
      prices: options.prices,
      settings,
    });
    const cached: ChatModel & { stats?: CacheStats } = cacheOpts ? withCache(backend, cacheOpts) : backend;
    cachedModel = cacheOpts ? cached : undefined;
    // Draws are stamped before the meter, so its call log (run.json, the viewer) sees each call's identity.
    const model = withDraws(meter.wrap(cached, "policy", options.prices), draws);
    policy = kind === "openai" ? createPyautoguiPolicy({ model, ...common }) : createUiTarsPolicy({ model, ...common });
  } else if (kind === "openai-cua") {
    policy = createOpenAICuaPolicy({
      model: options.model,
      baseURL,
      apiKey,
      maxRetries,
      timeoutMs,
      prices: options.prices,
      cache: cacheOpts,
      settings,
      draws,
      observe: meter.observer("policy", options.prices),
    });
  } else {
    policy = createAnthropicPolicy({
      model: options.model,
      baseURL,
      apiKey,
      maxRetries,
      timeoutMs,
      prices: options.prices,
      cache: cacheOpts,
      settings,
      draws,
      observe: meter.observer("policy", options.prices),
      ...common,
    });
  }

  const env = createSimDesk({ blobs, width: options.width, height: options.height });
  let result: EpisodeResult;
  try {
    result = await runEpisode({ task, components: { policy, env, blobs }, options: { maxForwardSteps: maxSteps } });
  } finally {
    await env.close();
  }
  // A server that declared itself a stand-in (system_fingerprint) makes the run simulated.
  const simulated = result.simulated;
  await writeEpisodeOutput({ dir: out, trajectory: result.trajectory, blobs, score: result.evaluation, simulated });
  const record = {
    task: task.id,
    policy: policy.name,
    policyKind: kind,
    model: options.model,
    cache: cacheMode,
    simulated,
    success: result.success,
    score: result.evaluation.score,
    stopReason: result.stopReason,
    accounting: result.accounting,
    prompts: result.prompts,
    ...(policy.stats !== undefined && { policyStats: policy.stats }),
    trajectory: result.trajectory,
    ...(meter.used ? { calls: meter.callLog() } : {}),
  };
  // belt and braces: the key is never in these values, but a server could echo it into a response
  writeFileSync(join(out, "run.json"), redactSecrets(JSON.stringify(record, null, 2), [apiKey]) + "\n");
  return { out, result, ...(cachedModel?.stats && { cache: cachedModel.stats }) };
}

export { CACHE_MODES };
