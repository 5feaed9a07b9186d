/**
 * Experiment 1, ideal recovery gains (Section 4 / Appendix B.1), in three resumable phases:
 * 1. standard forward rollouts (tasks x seeds), histories saved next to each episode;
 * 2. annotate every failed run once (E by the detector, R_LLM by the selector, E-random by a fixed
 *    seed) and freeze the annotations into plan.json;
 * 3. per instance and strategy, K continuations: reset, replay the saved prefix up to R (verified,
 *    retried), resume the forward policy. Success@K per strategy comes from these.
 */
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { ModelMeter } from "../agents/meter.ts";
import { defaultSpec } from "../config/agents.ts";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { join } from "node:path";
import type { Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import type { Task } from "@retrace-cua/core/task";
import type { IdealRecoveryConfig } from "../config/schema.ts";
import { expandJobs, resolveSeeds, type EpisodeJob } from "../runner/conditions.ts";
import type { RunContext } from "../runner/context.ts";
import { finishEpisode } from "../runner/episode.ts";
import { resolveSettleMs } from "../runner/settle.ts";
import type { ResultLine } from "../runner/results-log.ts";
import { rollForward } from "./forward-loop.ts";
import {
  annotate,
  readPlan,
  selectorConditionLabel,
  STRATEGY_LABELS,
  strategyLabels,
  writePlan,
  type PlanInstance,
  type RunPlan,
} from "./plan.ts";
import { redactText } from "@retrace-cua/core/secrets";
import { pathInside } from "@retrace-cua/core/store/safe-path";
import { drawScopeFor } from "@retrace-cua/models/models/draws";
import type { CallRecord } from "../agents/call-log.ts";
import { writeAnnotationCalls } from "./annotation-calls.ts";

import { FORWARD_CONDITION } from "./facts.ts";
export { FORWARD_CONDITION, idealRunFacts, type IdealRunFacts } from "./facts.ts";

interface ContinuationJob extends EpisodeJob {
  instance: PlanInstance;
  strategy: keyof typeof STRATEGY_LABELS;
  k: number;
}

/** Run all three phases; returns every result line (forward runs and continuations). */
export async function runIdealRecovery(config: IdealRecoveryConfig, ctx: RunContext): Promise<ResultLine[]> {
  const { runtime, settings } = ctx;
  const tasks = ctx.tasks();
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const seeds = resolveSeeds(config.seeds, settings.seedBase);
  const maxSteps = config.options.maxForwardSteps ?? 50;
  const deps = {
    runtime,
    blobs: ctx.blobs,
    out: settings.out,
    calls: settings.calls,
    osworldFiles: settings.osworldFiles,
    episodeRecords: settings.episodeRecords,
  };
  const sameState = runtime.sameState;
  // The paper's post-action settle window on every step of every phase (forward, prefix replay, continuation).
  const settleMs = resolveSettleMs(config).settleMs;

  // Phase 1: forward rollouts.
  const forwardJobs = expandJobs(
    [FORWARD_CONDITION],
    tasks.map((t) => t.id),
    seeds,
  );
  const forward = await ctx.pool("forward runs", forwardJobs, async (job, rec) => {
    const task = byId.get(job.task) as Task;
    const meter = new ModelMeter(settings.calls?.ledger);
    const draws = drawScopeFor(config.draws, { seed: job.seed, task: job.task, condition: job.condition });
    const policy = runtime.forwardPolicy(config.forward, {
      task,
      seed: job.seed,
      env: rec.env,
      blobs: ctx.blobs,
      meter,
      calls: settings.calls,
      draws,
    });
    const run = await rollForward({
      env: rec.env,
      policy,
      task,
      blobs: ctx.blobs,
      seed: job.seed,
      maxForwardSteps: maxSteps,
      settleMs,
    });
    const dir = pathInside(settings.out, [job.condition, job.task, String(job.seed)], `episode ${job.key}`);
    mkdirSync(dir, { recursive: true });
    const text = redactText(JSON.stringify({ history: run.history, final: run.final })) + "\n";
    // Packed episode records (the demo): the history gzipped too (~16 KB of inline accessibility trees -> ~2 KB).
    if (settings.episodeRecords === "pack") writeFileSync(join(dir, "history.json.gz"), gzipSync(text));
    else writeFileSync(join(dir, "history.json"), text);
    return finishEpisode(job, task, run.result, rec, deps, { phase: "forward" }, undefined, meter);
  });

  // Phase 2: annotate failed runs once; frozen in plan.json.
  const planFile = join(settings.out, "plan.json");
  let plan = readPlan(planFile);
  if (!plan) {
    let failed = forward.filter((l) => l.status === "ok" && !l.success);
    // Spread a capped selection evenly over the failures (tasks are grouped by app in order).
    if (config.maxInstances && failed.length > config.maxInstances) {
      const all = failed;
      const n = config.maxInstances;
      failed = Array.from({ length: n }, (_, i) => all[Math.floor((i * all.length) / n)]);
    }
    const env = await runtime.createEnv(config.env, ctx.blobs);
    try {
      const instances: PlanInstance[] = [];
      const annotationCalls = new Map<string, CallRecord[]>();
      let llmLabel: string | undefined;
      for (const line of failed) {
        const task = byId.get(line.task) as Task;
        const historyFile = join(
          pathInside(settings.out, [line.condition, line.task, String(line.seed)], `episode ${line.key}`),
          "history.json",
        );
        const saved = existsSync(`${historyFile}.gz`)
          ? (JSON.parse(gunzipSync(readFileSync(`${historyFile}.gz`)).toString("utf8")) as {
              history: HistoryEntry[];
              final: Observation;
            })
          : readJsonFile<{ history: HistoryEntry[]; final: Observation }>(historyFile, {
              what: "history.json",
              hint: "delete its line from results.jsonl and --resume to re-run that forward run",
            });
        const draws = drawScopeFor(config.draws, { seed: line.seed, task: line.task, condition: "annotation" });
        const meter = new ModelMeter(settings.calls?.ledger);
        const cctx = { task, seed: line.seed, env, blobs: ctx.blobs, calls: settings.calls, meter, draws };
        const selector = config.strategies.includes("llm")
          ? runtime.selector(
              config.selector ?? defaultSpec("selector", config.forward) ?? { kind: "sim", profile: "default" },
              cctx,
            )
          : undefined;
        if (selector) llmLabel ??= selectorConditionLabel(selector);
        instances.push(
          await annotate({
            task,
            seed: line.seed,
            forwardKey: line.key,
            history: saved.history,
            final: saved.final,
            detector: runtime.detector(config.detector, cctx),
            selector,
            strategies: config.strategies,
            blobs: ctx.blobs,
          }),
        );
        annotationCalls.set(line.key, meter.callLog());
      }
      writeAnnotationCalls(settings.out, annotationCalls);
      plan = {
        experiment: config.name,
        simulated: forward.some((l) => l.simulated),
        ...(llmLabel ? { labels: { llm: llmLabel } } : {}),
        instances,
      } satisfies RunPlan;
      writePlan(planFile, plan);
    } finally {
      await env.close();
    }
    settings.onNote?.(
      `annotated ${plan.instances.length} failed forward runs of ${forward.length} (frozen in plan.json)`,
    );
    const detectorFailed = plan.instances.filter((i) => i.detectorFailure).length,
      selectorFailed = plan.instances.filter((i) => i.selectorFailure).length;
    if (detectorFailed + selectorFailed > 0)
      settings.onNote?.(
        `annotation failures: detector ${detectorFailed}, selector ${selectorFailed} of ${plan.instances.length} failed runs (counted in summary.json ideal.annotationFailures)`,
      );
  } else settings.onNote?.(`reusing the frozen plan.json (${plan.instances.length} instances)`);

  // Phase 3: K continuations per instance and strategy. A failed run in which the detector found
  // no error (fallback: true, E = its last step) is kept under `noErrorFound: last-step` (the
  // paper excludes only runs whose replay fails) and left out under `exclude`; either way every
  // strategy is compared on the same instances.
  const annotated = plan.instances.filter((i) => config.noErrorFound === "last-step" || !i.fallback);
  const undetected = plan.instances.filter((i) => i.fallback).length;
  if (undetected > 0)
    settings.onNote?.(
      config.noErrorFound === "last-step"
        ? `${undetected} failed runs without a detected error step continue from E = their last step (noErrorFound: last-step)`
        : `${undetected} failed runs without a detected error step are left out of the continuations (noErrorFound: exclude)`,
    );
  const jobs: ContinuationJob[] = [];
  const labels = strategyLabels(plan);
  for (const strategy of config.strategies)
    for (const instance of annotated)
      for (let k = 1; k <= config.k; k++) {
        const condition = labels[strategy];
        jobs.push({
          index: forwardJobs.length + jobs.length,
          key: `${condition}/${instance.task}/${instance.seed}/k${k}`,
          condition,
          task: instance.task,
          seed: instance.seed,
          instance,
          strategy,
          k,
        });
      }
  const continuations = await ctx.pool("continuations", jobs, async (job, rec) => {
    const task = byId.get(job.task) as Task;
    const R = job.instance.recoveryStep[job.strategy] ?? 0;
    // Common random numbers: continuation k of every strategy draws from the same stream (the
    // policy's draws depend on stream and tick), so strategies differ only in where they resume.
    // Model agents: continuation k is part of every draw identity, so the K continuations are K
    // draws (never a replay of the rollout's answers); under `draws: independent` so is the strategy.
    const meter = new ModelMeter(settings.calls?.ledger);
    const draws = drawScopeFor(config.draws, { seed: job.seed, task: job.task, k: job.k, condition: job.condition });
    const policy = runtime.forwardPolicy(config.forward, {
      task,
      seed: job.seed,
      env: rec.env,
      stream: `k${job.k}`,
      blobs: ctx.blobs,
      meter,
      calls: settings.calls,
      draws,
    });
    const prefix = job.instance.history.slice(0, R);
    const expected = R < job.instance.history.length ? job.instance.history[R].observation : job.instance.final;
    const run = await rollForward({
      env: rec.env,
      policy,
      task,
      blobs: ctx.blobs,
      seed: job.seed,
      maxForwardSteps: maxSteps,
      budget: config.continuationBudget,
      prefix,
      expected,
      settleMs,
      replayRetries: config.options.replayRetries ?? 3,
      ...(sameState ? { sameState: (a, b) => sameState(rec.env, a, b) } : {}),
    });
    return finishEpisode(
      job,
      task,
      run.result,
      rec,
      deps,
      { phase: "continuation", strategy: job.strategy, errorStep: job.instance.errorStep, recoveryStep: R, k: job.k },
      [job.condition, job.task, `${job.seed}-k${job.k}`],
      meter,
    );
  });
  return [...forward, ...continuations];
}

/** Whether a results folder belongs to an ideal-recovery run that already has its plan. */
export function hasPlan(out: string): boolean {
  return existsSync(join(out, "plan.json"));
}
