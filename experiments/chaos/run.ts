/**
 * `retrace chaos`: run an end-to-end (or sweep) config on SimDesk with seeded environment faults
 * and with the LLM detector and selector talking over HTTP to a model endpoint that injects
 * faults, then measure what a careful operator of long paid runs cares about (see measure.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { sha256Hex } from "@retrace-cua/core/hash";
import type { ChatModel } from "@retrace-cua/core/model";
import { checkOutDir, prepareOutDir } from "@retrace-cua/core/store/out-dir";
import { withCache, type CacheMode } from "@retrace-cua/models/models/cache";
import { createOpenAIChatModel } from "@retrace-cua/models/models/openai-chat";
import type { ExperimentConfig } from "../config/schema.ts";
import { runExperiment, type ExperimentRun } from "../runner/experiment.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import { emptyEnvFaultCounts, ENV_FAULTS, type EnvFault } from "./env-faults.ts";
import { measureChaosRun, type ChaosFigures } from "./measure.ts";
import { MODEL_FAULTS, startChaosModelServer, type ChaosModelServer, type ModelFault } from "./model-server.ts";
import { chaosAnswer, createChaosRuntime } from "./runtime.ts";

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  config: ExperimentConfig;
  out: string;
  /** Seed of the faults (and added to the config's seeds like --seed). @default 0 */
  seed?: number;
  /** Probability that an environment call fails. @default 0.1 */
  envFaultRate?: number;
  /** Probability that a model request fails. @default 0.2 */
  modelFaultRate?: number;
  envFaults?: readonly EnvFault[];
  modelFaults?: readonly ModelFault[];
  /** Deadline of each environment call (a hang ends here). @default 3000 */
  envTimeoutMs?: number;
  /** Per-attempt model timeout (a never-answered request ends here). @default 2000 */
  modelTimeoutMs?: number;
  /** Model retries on 429/5xx/timeouts. @default 2 */
  maxRetries?: number;
  /**
   * Use this OpenAI-compatible endpoint instead of starting the seeded chaos server (it injects its own faults, or
   * none).
   */
  baseURL?: string;
  /** API key sent to the endpoint (searched for in every written file afterwards). @default a generated key */
  apiKey?: string;
  /** Model-call cache. @default "readwrite" */
  cache?: CacheMode;
  /** @default <out>/model-cache */
  cacheDir?: string;
  /** In-process workers. @default 2 */
  workers?: number;
  resume?: boolean;
  /** Episode records as folders (default) or one pack per run (RunSettings.episodeRecords). */
  episodeRecords?: "folders" | "pack";
  onProgress?: Parameters<typeof runExperiment>[2]["onProgress"];
}

/** What a chaos run produced. */
export interface ChaosResult {
  run: ExperimentRun;
  figures: ChaosFigures;
  envFaults: Record<EnvFault, number>;
  /** Faults the chaos server injected (undefined with an external --base-url). */
  modelFaults?: Record<ModelFault, number>;
  modelRequests?: number;
  modelBilled?: number;
  wallMs: number;
}

const rate = (v: number | undefined, d: number, flag: string) => {
  const r = v ?? d;
  if (!(r >= 0 && r <= 1))
    throw new ConfigError(`${flag}: expected a probability from 0 to 1, got ${v}`, { field: flag });
  return r;
};

/** Run a chaos experiment and measure it. */
export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const { config } = options;
  if (config.kind === "ideal-recovery")
    throw new ConfigError(
      "config.kind: chaos runs an end-to-end or sweep config (ideal-recovery has no online detector to fault)",
      { field: "kind" },
    );
  const envFaultRate = rate(options.envFaultRate, 0.1, "--env-faults");
  const modelFaultRate = rate(options.modelFaultRate, 0.2, "--model-faults");
  const seed = options.seed ?? 0;
  checkOutDir(options.out);
  if (options.cacheDir !== undefined) checkOutDir(options.cacheDir, { flag: "--cache-dir" });
  const apiKey = options.apiKey ?? `chaos-key-${sha256Hex(Buffer.from(`retrace chaos ${seed}`)).slice(0, 24)}`;
  let server: ChaosModelServer | undefined;
  const started = Date.now();
  try {
    if (!options.baseURL)
      server = await startChaosModelServer({
        seed,
        rate: modelFaultRate,
        faults: options.modelFaults,
        answer: chaosAnswer,
      });
    prepareOutDir(options.out);
    const blobs = new BlobStore({ dir: join(options.out, "blobs") });
    const backend = createOpenAIChatModel({
      model: "chaos-model",
      baseURL: options.baseURL ?? server!.url,
      apiKey,
      blobs,
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.modelTimeoutMs ?? 2000,
    });
    const cacheMode = options.cache ?? "readwrite";
    const cacheDir = options.cacheDir ?? join(options.out, "model-cache");
    const model: ChatModel = cacheMode === "off" ? backend : withCache(backend, { dir: cacheDir, mode: cacheMode });
    const envFaults = emptyEnvFaultCounts();
    const runtime = createChaosRuntime({
      base: createSimDeskRuntime(),
      model,
      seed,
      envFaultRate,
      envFaultCounts: envFaults,
      envFaults: options.envFaults,
    });
    // The LLM selector is only consulted with recoveryStep "llm".
    const chaosConfig = { ...config, options: { ...config.options, recoveryStep: "llm" as const } } as ExperimentConfig;
    const run = await runExperiment(chaosConfig, runtime, {
      out: options.out,
      workers: options.workers ?? 2,
      seedBase: seed,
      resume: options.resume,
      envTimeoutMs: options.envTimeoutMs ?? 3000,
      onProgress: options.onProgress,
      ...(options.episodeRecords && { episodeRecords: options.episodeRecords }),
    });
    const figures = measureChaosRun(options.out, apiKey, cacheDir.startsWith(options.out) ? [] : [cacheDir]);
    const result: ChaosResult = {
      run,
      figures,
      envFaults,
      ...(server && { modelFaults: { ...server.faults }, modelRequests: server.requests, modelBilled: server.billed }),
      wallMs: Date.now() - started,
    };
    writeFileSync(
      join(options.out, "chaos.json"),
      JSON.stringify(
        {
          simulated: true,
          note: "forward and recovery agents are SimDesk's simulated ones; the LLM detector and selector are real clients, answered by a seeded local server (SIMULATED answers)",
          envFaultRate,
          modelFaultRate,
          seed,
          envFaults,
          modelFaults: result.modelFaults ?? null,
          modelRequests: result.modelRequests ?? null,
          modelBilled: result.modelBilled ?? null,
          figures,
        },
        null,
        2,
      ) + "\n",
    );
    return result;
  } finally {
    await server?.close();
  }
}

export { ENV_FAULTS, MODEL_FAULTS };
