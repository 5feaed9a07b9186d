/**
 * Running an experiment config end to end: fresh-run and resume checks, manifest.json, the
 * episodes, then summary.json and summary.csv. One entry point for every kind.
 */
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, dirname, relative, resolve } from "node:path";
import { verifyPacks } from "@retrace-cua/core/blob-pack";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@retrace-cua/core/errors";
import { hashValue, stableStringify } from "@retrace-cua/core/hash";
import { promptRef } from "@retrace-cua/core/prompt";
import { ALL_PROMPTS } from "@retrace-cua/core/prompts/index";
import type { ExperimentConfig } from "../config/schema.ts";
import { FORWARD_CONDITION, idealRunFacts, runIdealRecovery } from "../ideal/run.ts";
import { readPlan, strategyLabels } from "../ideal/plan.ts";
import { checkResumable, idealKeyTest } from "./resume-check.ts";
import {
  checkPlanSize,
  conditionsOf,
  expandJobs,
  resolveSeeds,
  unconfirmedRestorationOf,
  type ParamValue,
} from "./conditions.ts";
import { RunContext, selectTasks, skippedTasks, type RunSettings } from "./context.ts";
import { checkOutDir } from "@retrace-cua/core/store/out-dir";
import { checkId } from "@retrace-cua/core/store/safe-path";
import { checkLangChainModules, configEndpoints } from "./endpoints.ts";
import { resolveSettleMs, type SettleChoice } from "./settle.ts";
import { preflightEndpoints } from "../agents/preflight.ts";
import { runConditionEpisode } from "./episode.ts";
import { closeRunCheckpointer, openRunCheckpointer } from "./checkpoints.ts";
import { readResults, type ResultLine } from "./results-log.ts";
import { compactRecords } from "./episode-records.ts";
import type { ExperimentRuntime } from "./runtime.ts";
import { summarize, summaryCsv, type ExperimentSummary } from "./summary.ts";
import type { Task } from "@retrace-cua/core/task";
import { acquireRunLock } from "./run-lock.ts";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";

import { PACKAGE_ROOT as ROOT, packageVersion } from "./package-info.ts";

export { packageVersion };

/** What a finished run hands back. */
export interface ExperimentRun {
  summary: ExperimentSummary;
  lines: ResultLine[];
  out: string;
}

/** manifest.json: enough to know exactly what produced a results folder. */
export interface Manifest {
  experiment: string;
  kind: string;
  config: ExperimentConfig;
  configHash: string;
  seedBase: number;
  seeds: number[];
  tasks: string[];
  /**
   * Each condition with what the agent is told after an unconfirmed restoration (`unconfirmedRestoration`,
   * packages/core/src/episode.ts).
   */
  conditions: Array<{ id: string; params: Record<string, ParamValue>; unconfirmedRestoration: string }>;
  packageVersion: string;
  gitCommit: string;
  prompts: string[];
  node: string;
  /** The settle wait after each executed step and where it comes from (every kind). */
  settle?: SettleChoice;
  /** How model agents of different conditions draw (config `draws`: paired or independent). */
  draws: string;
  /** The run's blob folder relative to the run folder, when it is not `blobs` (RunSettings.blobsDir). */
  blobs?: string;
}

/** Run (or resume) an experiment into `settings.out`. */
export async function runExperiment(
  config: ExperimentConfig,
  runtime: ExperimentRuntime,
  settings: RunSettings,
): Promise<ExperimentRun> {
  // Everything that can be refused is checked before the output folder is touched, so a bad
  // config leaves nothing that neither a re-run nor --resume accepts.
  runtime.checkConfig?.(config);
  checkOutDir(settings.out);
  const tasks = selectTasks(runtime, config.env);
  if (tasks.length === 0)
    throw new ConfigError(
      `config.env: no task of ${config.env.kind} can run here${skippedTasks(runtime, config.env).length ? ` (${skippedTasks(runtime, config.env).length} skipped, e.g. ${skippedTasks(runtime, config.env)[0].task}: ${skippedTasks(runtime, config.env)[0].reason})` : ""}`,
      { field: "env.tasks" },
    );
  // Task and condition ids name folders: one that is not a plain name is refused before anything is written.
  tasks.forEach((t) => checkId(t.id, `config.env: a task of ${config.env.kind}`, "env.tasks"));
  // The plan's size by arithmetic, before any condition, job or key list is built.
  checkPlanSize(config, tasks.length);
  if (config.kind !== "ideal-recovery") for (const c of conditionsOf(config)) checkId(c.id, "condition id", "pairs");
  await runtime.checkTasks?.(tasks);
  const manifestFile = join(settings.out, "manifest.json");
  const resultsFile = join(settings.out, "results.jsonl");
  const seedBase = settings.seedBase ?? 0;
  const configHash = hashValue({ config, seedBase });
  if (!settings.resume && existsSync(resultsFile) && statSync(resultsFile).size > 0)
    throw new ConfigError(`${settings.out} already holds a run: pass --resume to continue it, or choose another --out`);
  const seeds = resolveSeeds(config.seeds, seedBase);
  // Process workers and distributed workers resume inside the parent's (or a scratch) folder.
  if (settings.resume && !settings.shard && settings.remote?.role !== "worker") {
    checkResumable(settings.out, {
      configHash,
      seeds,
      tasks: tasks.map((t) => t.id),
      ownsKey: ownsKeyOf(
        config,
        tasks.map((t) => t.id),
        seeds,
        settings.out,
      ),
    });
    // The packs a resumed run reads (screens, accessibility trees, SimDesk states) are checked whole first.
    const blobsDir = settings.blobsDir ?? join(settings.out, "blobs");
    for (const d of [blobsDir, join(blobsDir, "ax"), join(dirname(resolve(blobsDir)), "simdesk-states")])
      verifyPacks(d);
  }
  // Conditions are checked (duplicate caps, grid size) before anything is written.
  const conditions = config.kind === "ideal-recovery" ? [] : conditionsOf(config);
  await checkLangChainModules(config, settings.calls);
  if (!settings.shard && settings.preflight !== false && settings.calls?.cache !== "read")
    await preflightEndpoints(configEndpoints(config, settings.calls));
  // A --checkpoint backend that cannot be used (e.g. an unreachable postgres:// server) fails here, before anything is
  // written.
  const checkpointer =
    config.kind === "ideal-recovery" ? false : await openRunCheckpointer(settings.checkpoint, settings.out);
  // One process per run folder: two runs into one fresh --out (or two --resumes) are refused.
  const unlock = !settings.shard && settings.remote?.role !== "worker" ? acquireRunLock(settings.out) : () => undefined;
  try {
    // Checked again under the lock: a run that began and ended in this folder since the check above is not overwritten.
    if (!settings.resume && existsSync(resultsFile) && statSync(resultsFile).size > 0)
      throw new ConfigError(
        `${settings.out} already holds a run: pass --resume to continue it, or choose another --out`,
      );
    const ctx = new RunContext(runtime, settings, config);
    const settle = resolveSettleMs(config);
    const manifest: Manifest = {
      experiment: config.name,
      kind: config.kind,
      config,
      configHash,
      seedBase,
      seeds,
      tasks: tasks.map((t) => t.id),
      conditions: conditions.map((c) => ({
        id: c.id,
        params: c.params,
        unconfirmedRestoration: unconfirmedRestorationOf(c),
      })),
      packageVersion: packageVersion(),
      gitCommit: gitCommit(),
      prompts: ALL_PROMPTS.map(promptRef).sort(),
      node: process.version,
      ...(settle && { settle }),
      draws: config.draws,
      ...(settings.blobsDir && { blobs: relative(settings.out, settings.blobsDir) }),
    };
    if (!settings.shard && settings.remote?.role !== "worker") writeJson(manifestFile, manifest);

    let lines: ResultLine[];
    if (config.kind === "ideal-recovery") lines = await runIdealRecovery(config, ctx);
    else {
      const byId = new Map(tasks.map((t) => [t.id, t]));
      const byCondition = new Map(conditions.map((c) => [c.id, c]));
      const jobs = expandJobs(
        conditions.map((c) => c.id),
        tasks.map((t) => t.id),
        seeds,
      );
      const deps = {
        runtime,
        blobs: ctx.blobs,
        out: settings.out,
        calls: settings.calls,
        episodeTimeoutMs: config.episodeTimeoutMs,
        checkpoint: settings.checkpoint,
        draws: config.draws,
        osworldFiles: settings.osworldFiles,
        episodeRecords: settings.episodeRecords,
      };
      try {
        lines = await ctx.pool("episodes", jobs, (job, rec) =>
          runConditionEpisode(job, byCondition.get(job.condition)!, byId.get(job.task) as Task, rec, deps),
        );
      } finally {
        await closeRunCheckpointer(checkpointer);
      }
    }
    const summary = summarize({
      stopped: ctx.stopped,
      skipped: skippedTasks(runtime, config.env),
      experiment: config.name,
      kind: config.kind,
      lines,
      params: Object.fromEntries(conditions.map((c) => [c.id, c.params])),
      maxK: config.kind === "ideal-recovery" ? config.k : undefined,
      incompleteInstances: config.kind === "ideal-recovery" ? config.incompleteInstances : undefined,
    });
    if (settle) summary.settle = settle;
    summary.draws = config.draws;
    if (config.kind === "ideal-recovery")
      summary.ideal = idealRunFacts(config, readPlan(join(settings.out, "plan.json")), lines);
    writeJson(join(settings.out, "summary.json"), summary);
    writeFileSync(join(settings.out, "summary.csv"), summaryCsv(summary));
    if (settings.episodeRecords === "pack") {
      const order = [...readResults(join(settings.out, "results.jsonl")).values()]
        .sort((a, b) => a.index - b.index)
        .map((l) => l.key);
      compactRecords(settings.out, order);
    }
    return { summary, lines, out: settings.out };
  } finally {
    unlock();
  }
}

/** Whether a results key is one of this run's episodes. */
function ownsKeyOf(config: ExperimentConfig, tasks: string[], seeds: number[], out: string): (key: string) => boolean {
  if (config.kind === "ideal-recovery") {
    const labels = strategyLabels(readPlan(join(out, "plan.json")));
    return idealKeyTest(
      config,
      tasks,
      seeds,
      config.strategies.map((s) => labels[s]),
      FORWARD_CONDITION,
    );
  }
  const keys = new Set(
    expandJobs(
      conditionsOf(config).map((c) => c.id),
      tasks,
      seeds,
    ).map((j) => j.key),
  );
  return (key) => keys.has(key);
}

function writeJson(file: string, value: unknown): void {
  writeTextAtomic(file, JSON.stringify(JSON.parse(stableStringify(value)), null, 2) + "\n");
}

/** HEAD's commit (with "+dirty" when the tree has changes), or "unknown" outside git. */
export function gitCommit(): string {
  try {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
    return head;
  } catch {
    return "unknown";
  }
}
