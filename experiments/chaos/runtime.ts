/**
 * The chaos runtime: the SimDesk experiment runtime with every environment wrapped in seeded
 * faults, and the detector and recovery-step selector replaced by the real LLM components
 * (adapters/llm) talking over HTTP to a model endpoint (by default the seeded chaos server, whose
 * answers are SIMULATED). Forward and recovery agents stay SimDesk's simulated ones.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { hashValue, stableStringify } from "@retrace-cua/core/hash";
import type { ChatModel } from "@retrace-cua/core/model";
import { createLlmErrorDetector } from "@retrace-cua/models/llm/detector";
import { createLlmStepSelector } from "@retrace-cua/models/llm/selector";
import type { ExperimentRuntime } from "../runner/runtime.ts";
import { ENV_FAULT_CONTROL, withEnvFaults, type EnvFault, type EnvFaultControl } from "./env-faults.ts";
import { bodyText, type ChatBody } from "./model-server.ts";
import { ConfigError } from "@retrace-cua/core/errors";

/** Options of {@link createChaosRuntime}. */
export interface ChaosRuntimeOptions {
  /** The runtime to wrap (SimDesk's). */
  base: ExperimentRuntime;
  /**
   * The chat model behind the LLM detector and selector, or a function that makes it for the
   * episode's blob store (where the model reads screenshots; a distributed worker's store fetches
   * what another worker rendered, a plain folder store next to it cannot).
   */
  model: ChatModel | ((blobs: BlobStore) => ChatModel);
  /** Seed of the environment faults. */
  seed: number;
  /** Probability that an environment call is faulty. */
  envFaultRate: number;
  /** Fault counters (filled during the run). */
  envFaultCounts: Record<EnvFault, number>;
  /** Environment faults to draw from. @default all */
  envFaults?: readonly EnvFault[];
  /** Latency of a slow environment call. @default 300 */
  slowMs?: number;
}

/** Wrap `base` for a chaos run. */
export function createChaosRuntime(options: ChaosRuntimeOptions): ExperimentRuntime {
  const { base } = options;
  const attempts = new Map<string, number>();
  const made = new WeakMap<BlobStore, ChatModel>();
  const modelFor = (blobs: BlobStore | undefined): ChatModel => {
    if (typeof options.model !== "function") return options.model;
    if (!blobs)
      throw new ConfigError(
        "the chaos runtime's model reads screenshots from the episode's blob store, and this episode has none",
      );
    let m = made.get(blobs);
    if (!m) made.set(blobs, (m = options.model(blobs)));
    return m;
  };
  return {
    ...base,
    async createEnv(env, blobs: BlobStore) {
      return withEnvFaults(await base.createEnv(env, blobs), {
        seed: options.seed,
        rate: options.envFaultRate,
        faults: options.envFaults,
        blobs,
        counts: options.envFaultCounts,
        slowMs: options.slowMs,
      });
    },
    // Metered like a model-backed run's components: every call counts, failed ones included.
    detector: (_spec, ctx) => {
      const model = modelFor(ctx.blobs);
      return createLlmErrorDetector({
        model: ctx.meter ? ctx.meter.wrap(model, "detector") : model,
        name: "llm-detector(chaos)",
      });
    },
    selector: (_spec, ctx) => {
      const model = modelFor(ctx.blobs);
      return createLlmStepSelector({
        model: ctx.meter ? ctx.meter.wrap(model, "selector") : model,
        name: "llm-selector(chaos)",
      });
    },
    async runEpisode(input) {
      // The faults of an episode depend on the episode and its try, not on the worker that runs it.
      const key = hashValue({ task: input.task.id, options: stableStringify(input.options) }).slice(0, 16);
      const attempt = attempts.get(key) ?? 0;
      attempts.set(key, attempt + 1);
      (input.components.env as unknown as Record<symbol, EnvFaultControl | undefined>)[ENV_FAULT_CONTROL]?.beginEpisode(
        `${key}#${attempt}`,
      );
      // The LLM selector is used with recoveryStep "llm"; no-recovery baselines get one too so the option is valid
      // there.
      const components = input.components.selector
        ? input.components
        : {
            ...input.components,
            selector: createLlmStepSelector({ model: modelFor(input.components.blobs), name: "llm-selector(chaos)" }),
          };
      return base.runEpisode({ ...input, components });
    },
  };
}

/**
 * Seeded stand-in answers for the chaos server (SIMULATED: no model looks at the screen). The
 * detector says "off track at the last step" with probability 0.2, else "on track"; the selector
 * picks the step before the error.
 */
export function chaosAnswer(body: ChatBody, draw: number, note?: string): string {
  const text = bodyText(body);
  const reason = (s: string) => (note ? `${s} (${note})` : s);
  if (text.includes('"recovery_step"')) {
    const e = Number(/at step (\d+)/.exec(text)?.[1] ?? 0);
    return JSON.stringify({
      recovery_step: Math.max(0, e - 1),
      reason: reason("the step before the error is still clean"),
    });
  }
  const last = Number(/numbered 0 to (\d+)/.exec(text)?.[1] ?? 0);
  if (draw < 0.2)
    return JSON.stringify({
      off_track: true,
      error_step: last,
      reason: reason("the last action did not move the task forward"),
      confidence: 0.7,
    });
  return JSON.stringify({
    off_track: false,
    error_step: null,
    reason: reason("the agent is on track"),
    confidence: 0.8,
  });
}
