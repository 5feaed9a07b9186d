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
 *
 * The config's tasks and environment are in eval-env.ts, its agents and recovery variants in configured-agents.ts, the
 * endpoint preflight in eval-endpoints.ts, and model-usage.json with the --max-cost-usd stop in model-usage.ts.
 */
import { mkdirSync } from "node:fs";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";
import { join, resolve } from "node:path";
import { BlobStore } from "@retrace-cua/core/blob-store";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ForwardPolicy, JsonValue } from "@retrace-cua/core/policy";
import { buildRecoveryDataset } from "@retrace-cua/evaluation/dataset/build";
import { loadRecoveryDataset, saveRecoveryDataset } from "@retrace-cua/evaluation/dataset/store";
import type { RecoveryDatasetManifest } from "@retrace-cua/evaluation/dataset/types";
import { evaluateRecovery, type RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import { createStateCheck, type StateCheck } from "@retrace-cua/core/replay/state-check";
import type { SimDesk } from "@retrace-cua/simdesk/simdesk";
import { createSimPerturbationPolicy, describeSimulated } from "@retrace-cua/simdesk/agents/index";
import { createEvalAgents, type EvalAgents } from "./agents.ts";
import { DrawScope } from "@retrace-cua/models/models/draws";
import type { EvalAgentSpec, RecoveryEvalConfig } from "./config.ts";
import { copySampleStates, LayeredBlobStore } from "./simdesk.ts";
import { recoveryEvalReport, type RecoveryEvalReport } from "./report-data.ts";
import { settleFor, type SettleChoice } from "../runner/settle.ts";
import { configuredVariants, forwardFactory, implicitHistoryImagesOf } from "./configured-agents.ts";
import { preflightEval } from "./eval-endpoints.ts";
import { openEnv, selectTasks } from "./eval-env.ts";
import type { ConfiguredRunOptions } from "./configured-run-options.ts";
import { costStop, servedBySimulatedModel, STAND_IN_LABEL, usageFile, type ModelUsageFile } from "./model-usage.ts";

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
  await preflightEval(options, [
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
  await preflightEval(options, [
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
