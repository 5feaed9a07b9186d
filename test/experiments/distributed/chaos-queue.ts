/**
 * The distributed half of the chaos tests (failed-tries.int, timings.int): a BullMQ worker on
 * real Redis and PostgreSQL runs a config under the chaos runtime (the real LLM detector and
 * selector against the seeded chaos model server, SIMULATED answers), `runQueued` collects the
 * results into `out`. The model reads screenshots through the worker's blob store, as a model agent
 * on a worker does: a screen another worker rendered first is only a PostgreSQL memo there.
 * Everything started here is stopped by `stop()` (each test file calls it in afterAll).
 */
import { join } from "node:path";
import type { BlobStore } from "../../../packages/core/src/blob-store.ts";
import { createOpenAIChatModel } from "../../../packages/models/src/models/openai-chat.ts";
import type { ExperimentConfig } from "../../../experiments/config/schema.ts";
import { emptyEnvFaultCounts, type EnvFault } from "../../../experiments/chaos/env-faults.ts";
import {
  startChaosModelServer,
  type ChaosModelServer,
  type ModelFault,
} from "../../../experiments/chaos/model-server.ts";
import { chaosAnswer, createChaosRuntime } from "../../../experiments/chaos/runtime.ts";
import { runQueued } from "../../../experiments/commands/queue.ts";
import { startWorker, type RunningWorker } from "../../../experiments/distributed/worker.ts";
import { createSimDeskRuntime } from "../../../experiments/runtime/simdesk.ts";
import { testServices } from "../../helpers/services.ts";

/** The run's chaos settings. */
export interface ChaosQueueRun {
  config: ExperimentConfig;
  seed: number;
  apiKey: string;
  envFaultRate: number;
  envFaults?: EnvFault[];
  modelFaultRate: number;
  modelFaults?: ModelFault[];
  /** Folder of the worker's cache (`<dir>/worker`) and the queued run (`<dir>/queued`). */
  dir: string;
  /** Called once the services are up, before the worker starts (e.g. to seed the shared store). */
  before?: (services: { postgresUrl: string }) => Promise<void>;
}

/** Start and stop the services, chaos server and worker of queued chaos runs. */
export function chaosQueue() {
  let stopServices = () => {};
  let server: ChaosModelServer | undefined;
  let worker: RunningWorker | undefined;
  const stop = async () => {
    await worker?.close(true).catch(() => {});
    worker = undefined;
    await server?.close();
    server = undefined;
    stopServices();
    stopServices = () => {};
  };
  return {
    stop,
    /**
     * Run `run.config` through a queue and one worker; returns the queued run's folder and the model server's request
     * count.
     */
    async run(run: ChaosQueueRun): Promise<{ out: string; requests: number }> {
      await stop(); // a second run (or a retried test) starts with its own services, server and worker
      const svc = await testServices();
      stopServices = svc.stop;
      const srv = await startChaosModelServer({
        seed: run.seed,
        rate: run.modelFaultRate,
        ...(run.modelFaults && { faults: run.modelFaults }),
        answer: chaosAnswer,
      });
      server = srv;
      const model = (blobs: BlobStore) =>
        createOpenAIChatModel({
          model: "chaos-model",
          baseURL: srv.url,
          apiKey: run.apiKey,
          blobs,
          maxRetries: 0,
          timeoutMs: 60_000,
        });
      const runtime = createChaosRuntime({
        base: createSimDeskRuntime(),
        model,
        seed: run.seed,
        envFaultRate: run.envFaultRate,
        ...(run.envFaults && { envFaults: run.envFaults }),
        envFaultCounts: emptyEnvFaultCounts(),
      });
      await run.before?.(svc);
      const queueName = `chaos-queue-${process.pid}-${run.config.name}`;
      worker = await startWorker({
        queueUrl: svc.redisUrl,
        queueName,
        storeUrl: svc.postgresUrl,
        runtimeOf: () => runtime,
        cacheDir: join(run.dir, "worker"),
        concurrency: 1,
      });
      const out = join(run.dir, "queued");
      await runQueued(
        run.config,
        run.config,
        createSimDeskRuntime(),
        { queue: svc.redisUrl, store: svc.postgresUrl, queueName, attempts: "3", workers: "1", seed: String(run.seed) },
        out,
        run.seed,
        true,
      );
      await worker.close();
      worker = undefined;
      return { out, requests: srv.requests };
    },
  };
}
