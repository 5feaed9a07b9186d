/**
 * `{ kind: model, ... }`: an agent backed by a model over HTTP. The schema, the defaults the paper
 * and a careful operator of paid runs want (60 s per call, at most 2 retries), and which
 * format/backend combinations each role can use.
 */
import { z } from "zod";
import type { AgentRole } from "./roles.ts";
import { OBSERVATION_TYPES } from "@retrace-cua/models/policies/observation";

/** Action formats of action-producing roles (forward, recovery, perturber). */
export const MODEL_FORMATS = ["pyautogui", "uitars", "openai-cua", "anthropic"] as const;
/** How the model is reached. */
export const MODEL_BACKENDS = ["openai", "openai-responses", "anthropic", "langchain"] as const;

/** Per-call timeout of model agents from configs. */
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;
/** Retries of a failed call (429/5xx/timeouts) of model agents from configs. */
export const DEFAULT_MODEL_RETRIES = 2;

const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}, "expected an http:// or https:// URL, e.g. http://127.0.0.1:8000/v1");

/**
 * USD per million tokens: input (uncached prompt), output, and optionally the prompt-cache prices:
 * cached input (a cache read; at most the input price) and cache writes (Anthropic's premium).
 * Left out, they are the provider's ratio to the input price (packages/core/src/usage.ts CACHE_PRICING).
 */
const price = z
  .object({
    inputPerMillion: z.number().min(0),
    outputPerMillion: z.number().min(0),
    cachedInputPerMillion: z.number().min(0).optional(),
    cacheWritePerMillion: z.number().min(0).optional(),
  })
  .strict()
  .refine((p) => p.cachedInputPerMillion === undefined || p.cachedInputPerMillion <= p.inputPerMillion, {
    message:
      "cachedInputPerMillion is above inputPerMillion: a cached prompt token bills at most the uncached input price; give the provider's cached-input price",
    path: ["cachedInputPerMillion"],
  });

/** A model-backed agent. `model`, `baseUrl` and `apiKeyEnv` may come from the CLI. */
export const ModelAgentSpecSchema = z
  .object({
    kind: z.literal("model"),
    /** Action format (action-producing roles); JSON roles ignore it. @default "pyautogui" */
    format: z.enum(MODEL_FORMATS).default("pyautogui"),
    /**
     * API: openai = chat completions; openai-responses = OpenAI computer use; anthropic = Messages; langchain = a
     * LangChain chat model from `module`. @default from format
     */
    backend: z.enum(MODEL_BACKENDS).optional(),
    /**
     * backend langchain: file (resolved against the current directory) exporting a LangChain chat model or a factory of
     * one.
     */
    module: z.string().min(1).optional(),
    /** backend langchain: the export of `module` to use. @default "default" */
    export: z.string().min(1).optional(),
    /** Base URL (OpenAI-compatible: ending in /v1). @default --base-url, else RETRACE_BASE_URL / OPENAI_BASE_URL */
    baseUrl: httpUrl.optional(),
    /** Model name as the server knows it. @default --model */
    model: z.string().min(1).optional(),
    /** Environment variable holding the API key. @default --api-key-env, else OPENAI_API_KEY / ANTHROPIC_API_KEY */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "expected an environment variable name such as OPENAI_API_KEY")
      .optional(),
    /** Sampling temperature. @default the agent's own */
    temperature: z.number().min(0).max(2).optional(),
    /**
     * Max output tokens per call, or `paper`: the paper's budget for the model named (App. B.2:
     * 32768 for EvoCUA, 3000 for Qwen3.5 thinking, 500 for UI-TARS; {@link PAPER_MAX_TOKENS}), the
     * agent's own default for any other model. @default the agent's own (1500 for chat forward agents)
     */
    maxTokens: z.union([z.number().int().min(1).max(1_000_000), z.literal("paper")]).optional(),
    /**
     * What the model is shown of each screen (OSWorld's observation types): the screenshot, the
     * linearized accessibility tree, or both. Chat formats (pyautogui, uitars) and the detector
     * and recovery sub-agent read it; the computer-use formats take screenshots only. @default "screenshot"
     */
    observation: z.enum(OBSERVATION_TYPES).default("screenshot"),
    /** Past screenshots shown to the model. @default the agent's own */
    historyImages: z.number().int().min(0).max(50).optional(),
    /**
     * Send each call's draw identity (episode seed, task, continuation, role, ordinal) as the
     * request's integer `seed`. Turn off for servers that reject the field; the identity still
     * keys the cache. @default true
     */
    sendSeed: z.boolean().default(true),
    /**
     * backend openai: send each episode's conversation name (one per role) as `prompt_cache_key`, so
     * a provider's prefix cache routes a conversation's calls together. Turn off for servers that
     * reject unknown fields. @default true
     */
    promptCacheKey: z.boolean().optional(),
    /** Per-call timeout in ms. @default 60000 */
    timeoutMs: z.number().int().min(1).max(3_600_000).default(DEFAULT_MODEL_TIMEOUT_MS),
    /** Retries of 429/5xx/timeouts. @default 2 */
    maxRetries: z.number().int().min(0).max(10).default(DEFAULT_MODEL_RETRIES),
    /**
     * detector only: "neutral" (the paper's) or "cautious" (retrace's "when unsure, say on track"). @default "neutral"
     */
    stance: z.enum(["neutral", "cautious"]).optional(),
    /**
     * recovery only, chat formats: the recovery agent's request layout, "paper" (the steps left in
     * the instruction on every turn) or "cached" (a stable instruction, the steps left on the current
     * turn only, so one attempt's calls share their prefix in a provider's prefix cache). @default "paper"
     */
    layout: z.enum(["paper", "cached"]).optional(),
    /** USD per million tokens by model name (`"gpt-4o*"` = prefix). @default none (cost 0) */
    prices: z.record(z.string(), price).optional(),
  })
  .strict();
export type ModelAgentSpec = z.output<typeof ModelAgentSpecSchema>;

/** The paper's max_tokens per forward model (App. B.2), matched on the model name; first match wins. */
export const PAPER_MAX_TOKENS: ReadonlyArray<{ match: RegExp; maxTokens: number; model: string }> = [
  { match: /evocua/i, maxTokens: 32768, model: "EvoCUA-32B" },
  { match: /ui-?tars/i, maxTokens: 500, model: "UI-TARS-1.5-7B" },
  { match: /qwen.*(think|3\.5)/i, maxTokens: 3000, model: "Qwen3.5-9B-Thinking" },
];

/**
 * The max output tokens a spec asks for: its number, the paper's budget for its model under
 * `maxTokens: paper` (undefined, i.e. the agent's own default, for a model the paper does not name),
 * or undefined when left out.
 */
export function maxTokensOf(spec: { maxTokens?: number | "paper"; model?: string }): number | undefined {
  if (spec.maxTokens !== "paper") return spec.maxTokens;
  return PAPER_MAX_TOKENS.find((m) => m.match.test(spec.model ?? ""))?.maxTokens;
}

/** The backend a format implies when the spec leaves it out. */
export function backendOf(spec: Pick<ModelAgentSpec, "format" | "backend">): (typeof MODEL_BACKENDS)[number] {
  if (spec.backend) return spec.backend;
  if (spec.format === "openai-cua") return "openai-responses";
  if (spec.format === "anthropic") return "anthropic";
  return "openai";
}

/**
 * Why a role cannot use this spec (format/backend combination), or undefined when it can.
 * Messages name the field (relative to the spec) and what would be accepted.
 */
export function modelRoleProblem(
  role: AgentRole,
  spec: ModelAgentSpec,
): { field: string; message: string } | undefined {
  const backend = backendOf(spec);
  if (backend === "langchain" && !spec.module)
    return {
      field: "module",
      message:
        "backend langchain needs module: the path of a file exporting a LangChain chat model or a factory (resolved against the current directory)",
    };
  if (backend !== "langchain" && (spec.module !== undefined || spec.export !== undefined))
    return {
      field: spec.module !== undefined ? "module" : "export",
      message: "module/export are only read with backend: langchain",
    };
  if (spec.stance !== undefined && role !== "detector")
    return { field: "stance", message: "stance is a detector option (neutral | cautious); remove it from this role" };
  if (spec.layout !== undefined && role !== "recovery")
    return { field: "layout", message: "layout is a recovery-agent option (paper | cached); remove it from this role" };
  if (spec.layout === "cached" && (spec.format === "openai-cua" || spec.format === "anthropic"))
    return {
      field: "layout",
      message: `layout cached is for the chat formats (pyautogui, uitars); format ${spec.format} keeps its own layout`,
    };
  const chat = backend === "openai" || backend === "langchain";
  if (role === "forward" || role === "recovery" || role === "perturber") {
    if ((spec.format === "pyautogui" || spec.format === "uitars") && !chat)
      return {
        field: "backend",
        message: `format ${spec.format} talks to a chat model; use backend: openai (or leave it out) or backend: langchain`,
      };
    if (spec.format === "openai-cua" && backend !== "openai-responses")
      return { field: "backend", message: "format openai-cua needs backend: openai-responses (or leave it out)" };
    if (spec.format === "anthropic" && backend !== "anthropic")
      return { field: "backend", message: "format anthropic needs backend: anthropic (or leave it out)" };
    if ((spec.format === "openai-cua" || spec.format === "anthropic") && spec.observation !== "screenshot")
      return {
        field: "observation",
        message: `format ${spec.format} sees screenshots only; use observation: screenshot, or format pyautogui/uitars for ${spec.observation}`,
      };
    return undefined;
  }
  if (!chat)
    return {
      field: "backend",
      message: `the LLM ${role} talks to a chat model; use backend: openai (an OpenAI-compatible endpoint) or backend: langchain`,
    };
  return undefined;
}
