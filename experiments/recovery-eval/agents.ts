/**
 * Model-backed agents for the recovery evaluation: the forward policy (on-policy rollouts and
 * implicit recovery), the perturber, the explicit recoverer, the summarizer (contextualized
 * context) and the state verifier (target confirmation on real desktops), built from the same
 * agent specs as experiment configs (`{ kind: model, format, baseUrl, model, apiKeyEnv, ... }`).
 *
 * Every chat model goes through one record/replay cache (`--cache`, `--cache-dir`) and a usage
 * meter per role, so a run reports model calls, tokens, cost and errors per role, and a cached
 * re-run makes no requests. API keys are read from the environment and never recorded.
 */
import { z } from "zod";
import type { BlobReader } from "../../src/blob-store.ts";
import { ConfigError } from "../../src/errors.ts";
import type { ChatModel, ChatRequest } from "../../src/model.ts";
import type { ForwardPolicy, PolicyDecision } from "../../src/policy.ts";
import type { RecoveryPolicy, StateVerifier, Summarizer } from "../../src/recovery.ts";
import { envVar, runtimeSettings, type RuntimeSettings } from "../../src/settings.ts";
import { withCache, type CacheMode } from "../../adapters/models/cache.ts";
import { createOpenAIChatModel } from "../../adapters/models/openai-chat.ts";
import type { PriceTable } from "../../adapters/models/pricing.ts";
import { createPyautoguiPolicy } from "../../adapters/policies/openai/pyautogui-policy.ts";
import { createUiTarsPolicy } from "../../adapters/policies/uitars/uitars-policy.ts";
import { createOpenAICuaPolicy } from "../../adapters/policies/openai-cua/openai-cua-policy.ts";
import { createAnthropicPolicy } from "../../adapters/policies/anthropic/anthropic-policy.ts";
import { createLlmPerturbationPolicy, createLlmRecoveryPolicy, createLlmStateVerifier, createLlmSummarizer } from "../../adapters/llm/index.ts";

/** Action formats a model agent may write. */
export const MODEL_FORMATS = ["pyautogui", "uitars", "openai-cua", "anthropic"] as const;

const PriceSchema = z.object({ input: z.number().min(0), output: z.number().min(0) }).strict();

/** A model-backed agent: which server, which model, how it is called. */
export const ModelAgentSpecSchema = z
  .object({
    kind: z.literal("model"),
    /** Action format (action-producing roles); JSON roles ignore it. @default "pyautogui" */
    format: z.enum(MODEL_FORMATS).default("pyautogui"),
    /** API family. Chat completions ("openai") for pyautogui/uitars; the format's own API otherwise. @default "openai" */
    backend: z.enum(["openai", "openai-responses", "anthropic"]).default("openai"),
    /** Server base URL (OpenAI-compatible: ending in /v1). Filled from --base-url when absent. */
    baseUrl: z.string().url().optional(),
    /** Model name as the server knows it. Filled from --model when absent. */
    model: z.string().min(1).optional(),
    /** Environment variable holding the API key. Filled from --api-key-env when absent. */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name").optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().min(1).optional(),
    historyImages: z.number().int().min(0).optional(),
    /** Per-attempt timeout in ms. @default 60000 */
    timeoutMs: z.number().int().min(1).default(60_000),
    /** Retries on 429/5xx/timeouts. @default 2 */
    maxRetries: z.number().int().min(0).max(10).default(2),
    /** USD per million tokens, by model name. */
    prices: z.record(z.string(), PriceSchema).optional(),
  })
  .strict();
export type ModelAgentSpec = z.output<typeof ModelAgentSpecSchema>;

/** A seeded simulated agent (SimDesk only). */
export const SimAgentSpecSchema = z.object({ kind: z.literal("sim"), profile: z.string().min(1).optional() }).strict();

/** Any agent spec the recovery evaluation accepts. */
export const EvalAgentSpecSchema = z.discriminatedUnion("kind", [ModelAgentSpecSchema, SimAgentSpecSchema]);
export type EvalAgentSpec = z.output<typeof EvalAgentSpecSchema>;

/** Roles of the recovery evaluation. */
export type EvalRole = "forward" | "perturber" | "recovery" | "summarizer" | "verifier";

/** `--base-url`, `--model`, `--api-key-env`: filled into every model agent that leaves them out. */
export interface ModelFillIn {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
}

/** Fill in endpoint fields; a model agent still without a model name is a ConfigError naming its path. */
export function fillModelSpec<T extends EvalAgentSpec>(spec: T, fill: ModelFillIn, path: string): T {
  if (spec.kind !== "model") return spec;
  const out = { ...spec, baseUrl: spec.baseUrl ?? fill.baseUrl, model: spec.model ?? fill.model, apiKeyEnv: spec.apiKeyEnv ?? fill.apiKeyEnv };
  if (!out.model) throw new ConfigError(`${path}.model: a model agent needs a model name (set it in the config or pass --model NAME)`, { field: `${path}.model` });
  return out;
}

/** Calls, tokens, cost and errors of one role. */
export interface RoleUsage {
  calls: number;
  cached: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Options of {@link createEvalAgents}. */
export interface EvalAgentsOptions {
  /** Where screenshots referenced in requests are read from. */
  blobs: BlobReader;
  /** Record/replay cache. @default "off" */
  cache?: CacheMode;
  /** Cache folder (required unless cache is "off"). */
  cacheDir?: string;
  /** Settings and variables to read keys from (tests pass their own). @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Factories for model agents sharing one cache and one usage meter. */
export interface EvalAgents {
  forward(spec: ModelAgentSpec): ForwardPolicy;
  perturber(spec: ModelAgentSpec, budget: number): ForwardPolicy;
  recoverer(spec: ModelAgentSpec): RecoveryPolicy;
  summarizer(spec: ModelAgentSpec): Summarizer;
  verifier(spec: ModelAgentSpec): StateVerifier;
  /** Usage per role so far (roles never called are absent). */
  usage(): Record<string, RoleUsage>;
}

/** Build the agent factories. */
export function createEvalAgents(options: EvalAgentsOptions): EvalAgents {
  const processEnv = options.env ?? process.env;
  const settings = runtimeSettings(processEnv);
  const cacheMode = options.cache ?? "off";
  if (cacheMode !== "off" && !options.cacheDir) throw new ConfigError("--cache-dir: a cache folder is needed when --cache is on", { field: "cacheDir" });
  const cache = cacheMode === "off" ? undefined : { dir: options.cacheDir!, mode: cacheMode };
  const usage: Record<string, RoleUsage> = {};
  const meter = (role: string): RoleUsage => (usage[role] ??= { calls: 0, cached: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  const record = (role: string, u: { inputTokens: number; outputTokens: number; costUsd?: number; cached?: boolean }) => {
    const m = meter(role);
    m.calls++;
    if (u.cached) m.cached++;
    m.inputTokens += u.inputTokens;
    m.outputTokens += u.outputTokens;
    m.costUsd += u.costUsd ?? 0;
  };

  const apiKeyOf = (spec: ModelAgentSpec): string | undefined => {
    if (spec.apiKeyEnv) {
      const key = envVar(spec.apiKeyEnv, processEnv);
      if (!key) throw new ConfigError(`apiKeyEnv: the variable ${spec.apiKeyEnv} is not set`, { field: "apiKeyEnv" });
      return key;
    }
    return spec.format === "anthropic" ? settings.anthropicApiKey : settings.apiKey;
  };

  /** A chat model for `role`, cached and metered. */
  const chat = (spec: ModelAgentSpec, role: string): ChatModel => {
    if (spec.backend !== "openai") throw new ConfigError(`${role}.backend: the ${role} speaks chat completions; use backend "openai" (got "${spec.backend}")`, { field: `${role}.backend` });
    const backend = createOpenAIChatModel({ model: spec.model!, baseURL: spec.baseUrl ?? settings.baseUrl, apiKey: apiKeyOf(spec), blobs: options.blobs, maxRetries: spec.maxRetries, timeoutMs: spec.timeoutMs, prices: spec.prices as PriceTable | undefined, settings: settings as RuntimeSettings });
    const model = cache ? withCache(backend, cache) : backend;
    return {
      model: model.model,
      async complete(request: ChatRequest) {
        try {
          const res = await model.complete(request);
          record(role, res.usage);
          return res;
        } catch (err) {
          meter(role).errors++;
          throw err;
        }
      },
    };
  };

  /** Meter the usage a policy reports on its decisions (computer-use APIs with their own clients). */
  const metered = (policy: ForwardPolicy, role: string): ForwardPolicy => ({
    ...policy,
    name: policy.name,
    async propose(input) {
      const d: PolicyDecision = await policy.propose(input);
      for (const u of d.usage ?? []) record(role, u);
      if (d.failure?.kind === "model-error") meter(role).errors++;
      return d;
    },
  });

  const common = (spec: ModelAgentSpec) => ({
    ...(spec.temperature !== undefined && { temperature: spec.temperature }),
    ...(spec.maxTokens !== undefined && { maxTokens: spec.maxTokens }),
    ...(spec.historyImages !== undefined && { historyImages: spec.historyImages }),
  });

  const pyautoguiOnly = (spec: ModelAgentSpec, role: string) => {
    if (spec.format !== "pyautogui")
      throw new ConfigError(`${role}.format: the LLM ${role} writes pyautogui actions only in this build (got "${spec.format}"); set format: pyautogui for this role`, { field: `${role}.format` });
  };

  return {
    forward(spec) {
      switch (spec.format) {
        case "pyautogui":
          return createPyautoguiPolicy({ model: chat(spec, "forward"), ...common(spec) });
        case "uitars":
          return createUiTarsPolicy({ model: chat(spec, "forward"), ...common(spec) });
        case "openai-cua": {
          const p = createOpenAICuaPolicy({ model: spec.model, baseURL: spec.baseUrl ?? settings.baseUrl, apiKey: apiKeyOf(spec), maxRetries: spec.maxRetries, timeoutMs: spec.timeoutMs, prices: spec.prices as PriceTable | undefined, cache, settings });
          return metered(p, "forward");
        }
        case "anthropic": {
          const p = createAnthropicPolicy({ model: spec.model, baseURL: spec.baseUrl, apiKey: apiKeyOf(spec), maxRetries: spec.maxRetries, timeoutMs: spec.timeoutMs, prices: spec.prices as PriceTable | undefined, cache, settings, ...common(spec) });
          return metered(p, "forward");
        }
      }
    },
    perturber(spec, budget) {
      pyautoguiOnly(spec, "perturber");
      return createLlmPerturbationPolicy({ model: chat(spec, "perturber"), budget, timeoutMs: spec.timeoutMs, ...common(spec) });
    },
    recoverer(spec) {
      pyautoguiOnly(spec, "recovery");
      return createLlmRecoveryPolicy({ model: chat(spec, "recovery"), timeoutMs: spec.timeoutMs, ...common(spec) });
    },
    summarizer(spec) {
      const { temperature, maxTokens, historyImages } = spec;
      return createLlmSummarizer({ model: chat(spec, "summarizer"), timeoutMs: spec.timeoutMs, ...(temperature !== undefined && { temperature }), ...(maxTokens !== undefined && { maxTokens }), ...(historyImages !== undefined && { historyImages }) });
    },
    verifier(spec) {
      const { temperature, maxTokens } = spec;
      return createLlmStateVerifier({ model: chat(spec, "verifier"), timeoutMs: spec.timeoutMs, ...(temperature !== undefined && { temperature }), ...(maxTokens !== undefined && { maxTokens }) });
    },
    usage: () => structuredClone(usage),
  };
}
