/**
 * Model-backed agents for the recovery evaluation, from the same agent specs as experiment configs
 * (experiments/agents: `{ kind: model, format, backend, baseUrl, model, apiKeyEnv, ... }`): the
 * forward policy (on-policy rollouts and implicit recovery), the perturber, the explicit
 * recoverer, the summarizer (contextualized context), the state verifier (target confirmation
 * on real desktops) and the LLM judge (the oracle study's model baseline).
 *
 * Chat models come from the registry's `chatModelFor` (record/replay cache, then one run-wide
 * {@link ModelMeter}), so a run reports calls, errors, tokens and cost per role in the runner's
 * role names (policy, perturber, recoverer, summarizer, verifier) and a cached re-run makes no
 * requests. The perturber and recoverer are built in the spec's own action format on the same
 * backbone (adapters/llm with `agent:`, paper B.2). API keys are read from the environment and
 * never recorded.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ForwardPolicy, PolicyDecision } from "@retrace-cua/core/policy";
import type { RecoveryPolicy, StateVerifier, Summarizer } from "@retrace-cua/core/recovery";
import type { ModelRole } from "@retrace-cua/core/usage";
import type { CacheMode } from "@retrace-cua/models/models/cache";
import type { PriceTable } from "@retrace-cua/models/models/pricing";
import { createFormatPolicy, type AgentFormatSpec } from "@retrace-cua/models/policies/format";
import {
  createLlmPerturbationPolicy,
  createLlmRecoveryJudge,
  createLlmRecoveryPolicy,
  createLlmStateVerifier,
  createLlmSummarizer,
  type LlmRecoveryJudge,
} from "@retrace-cua/models/llm/index";
import {
  CostLedger,
  ModelMeter,
  apiKeyOf,
  backendOf,
  chatModelFor,
  type ModelAgentSpec,
  type ModelCallSettings,
  type RoleCalls,
} from "../agents/index.ts";
import { cacheOptionsOf, settingsFor } from "../agents/model-client.ts";
import { maxTokensOf } from "../agents/model-spec.ts";
import type { DrawScope } from "@retrace-cua/models/models/draws";

/** Calls, errors, tokens and list-price cost of one role. */
export type RoleUsage = RoleCalls;

/** Options of {@link createEvalAgents}. */
export interface EvalAgentsOptions {
  /** Where screenshots referenced in requests are read from. */
  blobs: BlobStore;
  /** Record/replay cache. @default "off" */
  cache?: CacheMode;
  /** Cache folder (required unless cache is "off"). */
  cacheDir?: string;
  /** Variables to read keys from (tests pass their own). @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** Factories for model agents sharing one cache and one meter. Specs are validated (experiments/agents). */
export interface EvalAgents {
  /** `draws`: the rollout's or run's draw scope (packages/models/src/models/draws.ts), so each gets its own draws. */
  forward(spec: ModelAgentSpec, draws?: DrawScope): ForwardPolicy;
  /** A perturber allowed `budget` steps (the recovery distance d). */
  perturber(spec: ModelAgentSpec, budget: number, draws?: DrawScope): ForwardPolicy;
  recoverer(spec: ModelAgentSpec, draws?: DrawScope): RecoveryPolicy;
  /** `draws`: the scope its calls take their draw identities from (one per sample, or one per run). */
  summarizer(spec: ModelAgentSpec, draws?: DrawScope): Summarizer;
  verifier(spec: ModelAgentSpec, draws?: DrawScope): StateVerifier;
  /** The LLM-judge baseline of the oracle study (`eval.judge`, role "judge"). */
  judge(spec: ModelAgentSpec, draws?: DrawScope): LlmRecoveryJudge;
  /** Usage per role so far (roles never called are absent), in a stable order. */
  usage(): Partial<Record<ModelRole, RoleUsage>>;
  /** USD actually spent so far (calls that reached a server; cached ones cost nothing). */
  spentUsd(): number;
}

/** Build the agent factories. */
export function createEvalAgents(options: EvalAgentsOptions): EvalAgents {
  const cacheMode = options.cache ?? "off";
  if (cacheMode !== "off" && !options.cacheDir)
    throw new ConfigError("--cache-dir: a cache folder is needed when --cache is on", { field: "cacheDir" });
  const calls: ModelCallSettings = { cache: cacheMode, cacheDir: options.cacheDir ?? "", env: options.env };
  const ledger = new CostLedger();
  const meter = new ModelMeter(ledger);
  const ctx = { blobs: options.blobs, meter, calls };

  /** Meter the usage that SDK-backed formats (openai-cua, anthropic) report on their decisions. */
  function metered<P extends { propose(input: never): Promise<Pick<PolicyDecision, "usage" | "failure">> }>(
    policy: P,
    role: ModelRole,
    spec: ModelAgentSpec,
  ): P {
    if (backendOf(spec) === "openai") return policy; // chat models are metered by chatModelFor
    const propose = policy.propose.bind(policy) as (input: never) => Promise<Pick<PolicyDecision, "usage" | "failure">>;
    return Object.assign(Object.create(policy) as P, {
      async propose(input: never) {
        const d = await propose(input);
        for (const u of d.usage ?? []) meter.recordUsage(role, u, spec.prices as PriceTable | undefined);
        if (d.failure?.kind === "model-error") meter.recordError(role, new Error(d.failure.message));
        return d;
      },
    });
  }

  /** The spec as the formats layer wants it: backbone (metered chat model or SDK settings) + format. */
  function formatSpec(spec: ModelAgentSpec, role: ModelRole, draws?: DrawScope): AgentFormatSpec {
    const backend = backendOf(spec);
    if (spec.format === "pyautogui" || spec.format === "uitars") {
      if (backend !== "openai")
        throw new ConfigError(`${role}.backend: format ${spec.format} talks to chat completions; use backend: openai`, {
          field: `${role}.backend`,
        });
      return {
        format: spec.format,
        model: chatModelFor(spec, role, { ...ctx, ...(draws && { draws }) }),
        observation: spec.observation,
        ...(spec.historyImages !== undefined && { historyImages: spec.historyImages }),
      };
    }
    const sdk = {
      model: spec.model,
      baseURL: spec.baseUrl,
      apiKey: apiKeyOf(spec, calls),
      maxRetries: spec.maxRetries,
      timeoutMs: spec.timeoutMs,
      prices: spec.prices as PriceTable | undefined,
      cache: cacheOptionsOf(calls),
      settings: settingsFor(calls),
      ...(draws && { draws }),
    };
    return spec.format === "openai-cua" ? { format: "openai-cua", ...sdk } : { format: "anthropic", ...sdk };
  }

  const call = (spec: ModelAgentSpec) => ({
    ...(spec.temperature !== undefined && { temperature: spec.temperature }),
    ...(maxTokensOf(spec) !== undefined && { maxTokens: maxTokensOf(spec) }),
    timeoutMs: spec.timeoutMs,
  });

  return {
    forward(spec, draws) {
      const f = formatSpec(spec, "policy", draws);
      const sampling = {
        ...(spec.temperature !== undefined && { temperature: spec.temperature }),
        ...(maxTokensOf(spec) !== undefined && { maxTokens: maxTokensOf(spec) }),
      };
      return metered(
        createFormatPolicy(f.format === "openai-cua" ? f : ({ ...f, ...sampling } as AgentFormatSpec)),
        "policy",
        spec,
      );
    },
    perturber(spec, budget, draws) {
      return metered(
        createLlmPerturbationPolicy({ agent: formatSpec(spec, "perturber", draws), budget, ...call(spec) }),
        "perturber",
        spec,
      );
    },
    recoverer(spec, draws) {
      // historyImages = screenshots of the recovery context's history (formatSpec's copy is the recoverer's own steps,
      // which it overrides)
      return metered(
        createLlmRecoveryPolicy({
          agent: formatSpec(spec, "recoverer", draws),
          ...(spec.historyImages !== undefined && { historyImages: spec.historyImages }),
          ...call(spec),
        }),
        "recoverer",
        spec,
      );
    },
    summarizer(spec, draws) {
      return createLlmSummarizer({
        model: chatModelFor(spec, "summarizer", { ...ctx, ...(draws && { draws }) }),
        ...(spec.historyImages !== undefined && { historyImages: spec.historyImages }),
        ...call(spec),
      });
    },
    verifier(spec, draws) {
      return createLlmStateVerifier({
        model: chatModelFor(spec, "verifier", { ...ctx, ...(draws && { draws }) }),
        ...call(spec),
      });
    },
    judge(spec, draws) {
      return createLlmRecoveryJudge({
        model: chatModelFor(spec, "judge", { ...ctx, ...(draws && { draws }) }),
        ...call(spec),
      });
    },
    usage: () => meter.snapshot(),
    spentUsd: () => ledger.spentUsd,
  };
}
