/**
 * Orchestration of the recovery evaluation on SimDesk with simulated policies:
 * `buildSimDeskDataset` (-> a dataset folder), `runSimDeskRecoveryEval` (-> recovery-eval.json)
 * and `runOracleAgreement` (-> oracle-agreement.json). The JSON shapes are in ./report-data.ts
 * and README.md; `retrace report <dir>` renders them.
 */
import { renameDeprecatedKeys } from "@retrace-cua/core/deprecation";
import { writeFileSync } from "node:fs";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";
import { join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import { prepareOutDir } from "@retrace-cua/core/store/out-dir";
import type { Task } from "@retrace-cua/core/task";
import { buildRecoveryDataset, type DatasetBuildOptions } from "@retrace-cua/evaluation/dataset/build";
import { loadRecoveryDataset, saveRecoveryDataset } from "@retrace-cua/evaluation/dataset/store";
import type { RecoveryDatasetManifest } from "@retrace-cua/evaluation/dataset/types";
import { evaluateRecovery, type RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import type { RationaleScorer } from "@retrace-cua/evaluation/eval/rationale";
import { createStateCheck } from "@retrace-cua/core/replay/state-check";
import { createFlakyEnvironment } from "./flaky-env.ts";
import { SIMDESK_TASKS, getSimDeskTask } from "@retrace-cua/simdesk/simdesk";
import type { SimForwardProfileName } from "@retrace-cua/simdesk/agents/index";
import {
  copySampleStates,
  createEvalSimDesk,
  LayeredBlobStore,
  layeredBlobs,
  simDeskTruth,
  simulatedDatasetPolicies,
  simulatedEvalLabel,
  simulatedVariants,
  type SimDeskEvalEnv,
} from "./simdesk.ts";
import {
  agreementReport,
  recoveryEvalReport,
  type OracleAgreementReport,
  type RecoveryEvalReport,
} from "./report-data.ts";
import { redactText } from "@retrace-cua/core/secrets";

/** Options of {@link buildSimDeskDataset}. */
export interface SimDeskDatasetOptions extends SimDeskEvalEnv {
  /** Output folder of the dataset. */
  out: string;
  /** Task ids. @default every SimDesk task */
  tasks?: string[];
  /** Use only the first n tasks. */
  limit?: number;
  /** @default 0 */
  seed?: number;
  /** Forward-policy profile. @default "default" */
  forward?: SimForwardProfileName;
  rolloutsPerTask?: number;
  replays?: number;
  seedStepsPerTrajectory?: number;
  distances?: number[];
  maxSamplesPerDistance?: number;
  maxSteps?: number;
  /**
   * How replayed target states are confirmed: ground-truth state hash, SSIM >= 0.99, or auto (hash here). @default
   * "auto"
   */
  verify?: "auto" | "state-hash" | "ssim";
  /** Probability that an action is lost (a flaky desktop, to exercise N-replay filtering). @default 0 */
  flakyRate?: number;
  /** R_Om mask learning (re-captures per target, dilation), or false to skip it. @default on, 5 re-captures */
  dynamicMasks?: DatasetBuildOptions["dynamicMasks"];
  onProgress?: (message: string) => void;
}

function pickTasks(ids: string[] | undefined, limit: number | undefined): Task[] {
  const tasks: Task[] = ids && ids.length ? ids.map((id) => getSimDeskTask(id)) : [...SIMDESK_TASKS];
  return limit ? tasks.slice(0, limit) : tasks;
}

/** Build and save a simulated recovery dataset on SimDesk. */
export async function buildSimDeskDataset(options: SimDeskDatasetOptions): Promise<RecoveryDatasetManifest> {
  const out = resolve(options.out);
  const seed = options.seed ?? 0;
  const blobs = new BlobStore({ dir: join(out, "blobs") });
  const desk = createEvalSimDesk(blobs, join(out, "simdesk-states"), options);
  const tasks = pickTasks(options.tasks, options.limit);
  if (tasks.length === 0) throw new ConfigError("dataset build: no tasks selected", { field: "tasks" });
  const policies = simulatedDatasetPolicies(desk, seed, options.forward);
  const env = options.flakyRate ? createFlakyEnvironment(desk, { dropRate: options.flakyRate, seed }) : desk;
  try {
    const build = await buildRecoveryDataset({
      env,
      blobs,
      tasks,
      check: createStateCheck({ method: options.verify ?? "auto" }),
      forwardPolicy: policies.forwardPolicy,
      perturbationPolicy: policies.perturbationPolicy,
      seed,
      rolloutsPerTask: options.rolloutsPerTask,
      replays: options.replays,
      seedStepsPerTrajectory: options.seedStepsPerTrajectory,
      distances: options.distances,
      maxSamplesPerDistance: options.maxSamplesPerDistance,
      maxSteps: options.maxSteps,
      dynamicMasks: options.dynamicMasks,
      onProgress: options.onProgress,
    });
    return saveRecoveryDataset({
      dir: out,
      build,
      tasks,
      blobs,
      simulatedLabel: policies.label,
      config: {
        env: "simdesk",
        width: desk.width,
        height: desk.height,
        noise: options.noise ?? false,
        noiseSeed: options.noiseSeed ?? 0,
        forward: options.forward ?? "default",
        verify: options.verify ?? "auto",
        flakyRate: options.flakyRate ?? 0,
        tasks: tasks.map((t) => t.id),
      },
    });
  } finally {
    await desk.close();
  }
}

/** Options of {@link runSimDeskRecoveryEval}. */
export interface SimDeskEvalOptions {
  /** Dataset folder (from `retrace dataset build`). */
  dataset: string;
  /** Output folder: recovery-eval.json, runs.jsonl, blobs/. */
  out: string;
  /** Recovery budgets r to evaluate (recovery steps per attempt). @default [1, 3, 10] */
  recoveryBudget?: number[];
  /** @deprecated The old name of `recoveryBudget`; accepted with a warning until the next release. */
  budgets?: number[];
  /** @default 0 */
  seed?: number;
  /** Include the explicit context variants 0-R, none, contextualized. @default true */
  contexts?: boolean;
  /** Include the weak explicit recoverer. @default true */
  weak?: boolean;
  /** Also compute truth for each run (SimDesk ground truth). @default true */
  truth?: boolean;
  /** Rationale analysis: TF-IDF offline, or an embedding model. @default { kind: "tfidf" } */
  rationale?: RationaleScorer;
  onProgress?: (message: string) => void;
}

/** Evaluate the simulated recovery variants on a dataset; writes recovery-eval.json and runs.jsonl. */
export async function runSimDeskRecoveryEval(
  given: SimDeskEvalOptions,
): Promise<{ report: RecoveryEvalReport; runs: RecoveryRun[] }> {
  const options = renameDeprecatedKeys("runSimDeskRecoveryEval", given, { budgets: "recoveryBudget" });
  const ds = loadRecoveryDataset(options.dataset);
  if (ds.manifest.config.env !== "simdesk")
    throw new ConfigError(
      `eval-recovery: dataset ${ds.dir} was built on "${String(ds.manifest.config.env)}"; only SimDesk datasets can be evaluated with simulated policies`,
      { field: "dataset" },
    );
  const out = prepareOutDir(options.out);
  const seed = options.seed ?? 0;
  // Screens the dataset already holds are read from it, not stored a second time.
  const blobs = new LayeredBlobStore(join(out, "blobs"), new BlobStore({ dir: join(ds.dir, "blobs") }));
  copySampleStates(ds.samples, join(ds.dir, "simdesk-states"), join(out, "simdesk-states"));
  const cfg = ds.manifest.config;
  const desk = createEvalSimDesk(blobs, join(out, "simdesk-states"), {
    width: Number(cfg.width),
    height: Number(cfg.height),
    noise: cfg.noise === true,
    noiseSeed: Number(cfg.noiseSeed ?? 0),
  });
  try {
    const runs = await evaluateRecovery({
      env: desk,
      blobs: layeredBlobs(blobs, new BlobStore({ dir: join(ds.dir, "blobs") })),
      tasks: ds.tasks,
      samples: ds.samples,
      variants: simulatedVariants(desk, seed, { contexts: options.contexts, weak: options.weak }),
      recoveryBudget: options.recoveryBudget ?? [1, 3, 10],
      truth: options.truth === false ? undefined : simDeskTruth(desk),
      rationale: options.rationale,
      onProgress: options.onProgress,
    });
    const report = recoveryEvalReport({
      runs,
      manifest: ds.manifest,
      dataset: ds.dir,
      label: simulatedEvalLabel(desk, seed),
      recoveryBudget: options.recoveryBudget ?? [1, 3, 10],
    });
    writeTextAtomic(join(out, "runs.jsonl"), runs.map((r) => JSON.stringify(r)).join("\n") + (runs.length ? "\n" : ""));
    writeTextAtomic(join(out, "recovery-eval.json"), JSON.stringify(report, null, 2) + "\n");
    return { report, runs };
  } finally {
    await desk.close();
  }
}

/** Options of {@link runOracleAgreement}. */
export interface OracleAgreementOptions extends Omit<SimDeskDatasetOptions, "out" | "noise" | "onProgress"> {
  /** Output folder: oracle-agreement.json plus noise-off/ and noise-on/ (dataset + runs). */
  out: string;
  /** Recovery budgets r to evaluate (recovery steps per attempt). @default [1, 3, 10] */
  recoveryBudget?: number[];
  /** @deprecated The old name of `recoveryBudget`; accepted with a warning until the next release. */
  budgets?: number[];
  /** A dataset already built with these options and noise off, used instead of building noise-off/dataset again. */
  noiseOffDataset?: string;
  onProgress?: (message: string) => void;
}

/**
 * Measure the oracle against SimDesk's ground truth, with environment noise off and on: build a
 * dataset per setting, run the implicit, skilled and weak recoverers (varied outcomes), and
 * compare R_O, R_TC and R_O AND R_TC with "the full state equals the target".
 */
export async function runOracleAgreement(given: OracleAgreementOptions): Promise<OracleAgreementReport> {
  const options = renameDeprecatedKeys("runOracleAgreement", given, { budgets: "recoveryBudget" });
  const out = resolve(options.out);
  const settings: Array<{ noise: boolean; runs: RecoveryRun[]; label: string }> = [];
  for (const noise of [false, true]) {
    const dir = join(out, noise ? "noise-on" : "noise-off");
    const log = (m: string) => options.onProgress?.(`[noise ${noise ? "on" : "off"}] ${m}`);
    const reuse = !noise && options.noiseOffDataset;
    const dataset = reuse || join(dir, "dataset");
    if (!reuse)
      await buildSimDeskDataset({ ...options, out: dataset, noise, noiseSeed: options.seed ?? 0, onProgress: log });
    const { runs, report } = await runSimDeskRecoveryEval({
      dataset,
      out: dir,
      recoveryBudget: options.recoveryBudget,
      seed: options.seed,
      contexts: false,
      weak: true,
      onProgress: log,
    });
    settings.push({ noise, runs, label: report.label });
  }
  const report = agreementReport(settings);
  writeTextAtomic(join(out, "oracle-agreement.json"), JSON.stringify(report, null, 2) + "\n");
  return report;
}

/** Options of {@link runRecoveryEvalSuite}. */
export interface RecoveryEvalSuiteOptions {
  /** Output folder: dataset/, recovery-eval.json, runs.jsonl, oracle-agreement.json, noise-off/, noise-on/. */
  out: string;
  /** First n SimDesk tasks. @default all */
  limit?: number;
  /** @default 0 */
  seed?: number;
  /** @default 1 */
  rolloutsPerTask?: number;
  /** @default 2 */
  seedStepsPerTrajectory?: number;
  /** Recovery budgets r to evaluate (recovery steps per attempt). @default [1, 3, 10] */
  recoveryBudget?: number[];
  /** @deprecated The old name of `recoveryBudget`; accepted with a warning until the next release. */
  budgets?: number[];
  onProgress?: (message: string) => void;
}

/**
 * Everything at once, for the demo and the report: build a dataset, evaluate recovery on it, and
 * measure the oracle's agreement; recovery-eval.json and oracle-agreement.json land in `out`.
 */
export async function runRecoveryEvalSuite(given: RecoveryEvalSuiteOptions): Promise<{
  manifest: RecoveryDatasetManifest;
  report: RecoveryEvalReport;
  runs: RecoveryRun[];
  agreement: OracleAgreementReport;
}> {
  const options = renameDeprecatedKeys("runRecoveryEvalSuite", given, { budgets: "recoveryBudget" });
  const out = resolve(options.out);
  const common = {
    limit: options.limit,
    seed: options.seed,
    rolloutsPerTask: options.rolloutsPerTask,
    seedStepsPerTrajectory: options.seedStepsPerTrajectory ?? 2,
    onProgress: options.onProgress,
  };
  const manifest = await buildSimDeskDataset({ ...common, out: join(out, "dataset") });
  const { report, runs } = await runSimDeskRecoveryEval({
    dataset: join(out, "dataset"),
    out,
    recoveryBudget: options.recoveryBudget,
    seed: options.seed,
    onProgress: options.onProgress,
  });
  // The noise-off setting of the agreement study is this same dataset (same options, noise off).
  const agreement = await runOracleAgreement({
    ...common,
    out,
    recoveryBudget: options.recoveryBudget,
    noiseOffDataset: join(out, "dataset"),
  });
  return { manifest, report, runs, agreement };
}
