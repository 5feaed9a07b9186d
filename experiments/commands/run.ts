/** `retrace run <config>`: run an experiment config (ideal-recovery, end-to-end or sweep). */
import { conditionLabel, labelConditionsIn } from "../report/labels.ts";
import { checkOutDir } from "@retrace-cua/core/store/out-dir";
import { safeName } from "./terminal.ts";
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { withDesktopEnv } from "../runtime/desktop.ts";
import { withBrowserEnv } from "../runtime/browser.ts";
import { addModelRunFlags, runModelFromFlags, type RunModelFlags } from "./run-model.ts";
import { loadExperimentConfig } from "../config/load.ts";
import { runExperiment } from "../runner/experiment.ts";
import type { ExperimentRuntime } from "../runner/runtime.ts";
import { addQueueFlags, registerQueueCommands, runQueued, type QueueFlags } from "./queue.ts";
import { join, resolve } from "node:path";
import { Option } from "commander";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import { createOsworldRuntime } from "../runtime/osworld.ts";
import type { ExperimentConfig } from "../config/schema.ts";
import { configAgents, fillConfigModels, usesModels } from "../config/agents.ts";
import { anyPriced, assertPricedForCap, type CappedAgent } from "../agents/cost-cap.ts";
import { CostLedger } from "../agents/meter.ts";
import { parseCacheMode } from "@retrace-cua/models/models/cache";
import type { ExperimentSummary } from "../runner/summary.ts";
import { RunFailedError } from "../runner/errors.ts";
import {
  addRunFlags,
  conditionTableText,
  defaultOutFor,
  processWorkers,
  progressReporter,
  runSettings,
  textTable,
  type RunFlags,
} from "./run-options.ts";
import { onInterrupt } from "./progress.ts";
import { optionalNumberFlag, parseIntFlag } from "./numeric-flags.ts";
import { annotationFailuresText } from "../ideal/facts.ts";
import { tokenSplit, usdText } from "@retrace-cua/core/usage";

/** Flags of `retrace run CONFIG` beyond the shared ones. */
export interface ConfigRunFlags extends RunFlags {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  cache?: string;
  cacheDir?: string;
  maxCostUsd?: string;
  /** false with --no-preflight. */
  preflight?: boolean;
  /** Comma-separated task ids replacing the config's env.tasks. */
  tasks?: string;
  /** Run only the first n tasks (env.limit). */
  limit?: string;
}

/** The config with --tasks / --limit applied to its env (a ConfigError names a bad value). */
export function withTaskFlags(config: ExperimentConfig, flags: { tasks?: string; limit?: string }): ExperimentConfig {
  const env: Record<string, unknown> = { ...config.env };
  if (flags.tasks !== undefined) {
    const ids = flags.tasks
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    if (ids.length === 0)
      throw new ConfigError(
        `--tasks: expected comma-separated task ids (see \`npx retrace tasks\`), got "${flags.tasks}"`,
        { field: "tasks" },
      );
    env.tasks = ids;
    delete env.sample;
  }
  if (flags.limit !== undefined) {
    env.limit = parseIntFlag("--limit", flags.limit, {
      min: 1,
      max: 10_000,
      expect: "expected a positive integer (run only the first n tasks)",
    });
  }
  return { ...config, env: env as ExperimentConfig["env"] };
}

/** Run a validated config with the CLI's progress and printing. */
/** The experiment runtime of a config's environment kind (shared by `run` and `retrace worker`). */
export function runtimeFor(envKind: string, env: ExperimentConfig["env"]): ExperimentRuntime {
  if (
    envKind !== "simdesk" &&
    envKind !== "x11" &&
    envKind !== "docker" &&
    envKind !== "browser" &&
    envKind !== "osworld"
  )
    throw new ConfigError(
      `config.env.kind: "${envKind}" is not an environment retrace runs experiments on; use simdesk, x11, docker, browser or osworld`,
      { field: "env.kind" },
    );
  if (envKind === "browser") return withBrowserEnv(createSimDeskRuntime());
  return envKind === "osworld"
    ? createOsworldRuntime(env)
    : envKind === "simdesk"
      ? createSimDeskRuntime()
      : withDesktopEnv(createSimDeskRuntime(), envKind);
}

export async function runFromCli(loaded: ExperimentConfig, flags: ConfigRunFlags & QueueFlags): Promise<void> {
  const settings = runSettings(flags, defaultOutFor(loaded.name));
  const config = fillConfigModels(
    withTaskFlags(flags.env ? { ...loaded, env: { ...loaded.env, kind: flags.env } } : loaded, flags),
    { baseUrl: flags.baseUrl, model: flags.model, apiKeyEnv: flags.apiKeyEnv },
  );
  const envKind = config.env.kind;
  if (
    envKind !== "simdesk" &&
    envKind !== "x11" &&
    envKind !== "docker" &&
    envKind !== "browser" &&
    envKind !== "osworld"
  )
    throw new ConfigError(
      `config.env.kind: "${envKind}" is not an environment retrace runs experiments on; use simdesk, x11, docker, browser or osworld`,
      { field: "env.kind" },
    );
  const maxCostUsd = optionalNumberFlag("--max-cost-usd", flags.maxCostUsd, {
    min: 0,
    exclusiveMin: true,
    max: 1e9,
    expect: "expected a positive number of US dollars",
    field: "maxCostUsd",
  });
  if (maxCostUsd !== undefined)
    assertPricedForCap(
      configAgents(config).map((a) => ({
        path: a.path.replace(/ \(default from forward\)$/, ""),
        spec: a.spec as CappedAgent["spec"],
      })),
    );
  const cache = parseCacheMode(flags.cache ?? "off");
  // Checked like --out before anything is written (Node's mkdir -p hangs on /proc/x).
  if (flags.cacheDir !== undefined) checkOutDir(flags.cacheDir, { flag: "--cache-dir" });
  const ledger = new CostLedger();
  const calls = { cache, cacheDir: resolve(flags.cacheDir ?? join(settings.out, "model-cache")), ledger };
  const models = usesModels(config);
  // Spending shows only where a price is set: an unpriced model's calls count $0, which is "n/a", not "free".
  const priced =
    models && anyPriced(configAgents(config).map((a) => ({ path: a.path, spec: a.spec as CappedAgent["spec"] })));
  const progress = progressReporter(settings.quiet, "", priced ? { spent: () => ledger.spentUsd } : {});
  const started = Date.now();
  const offInterrupt = onInterrupt(settings.out);
  // Process workers rebuild a SimDesk runtime from the config alone: only for simulated SimDesk runs.
  // Model-backed runs stay in this process (one cost ledger, one cache) with --workers concurrent episodes.
  // Distributed (--queue): `retrace worker`s run the episodes; the registered config carries --env and the filled
  // models.
  const queued = flags.queue !== undefined;
  const processes = !queued && envKind === "simdesk" && !models ? processWorkers(settings.workers ?? 1) : undefined;
  const runtime = runtimeFor(envKind, config.env);
  let run;
  try {
    run = queued
      ? await runQueued(config, config, runtime, flags, settings.out, settings.seedBase ?? 0, settings.quiet)
      : await runExperiment(config, runtime, {
          ...settings,
          processes,
          calls,
          maxCostUsd,
          preflight: flags.preflight !== false,
          onProgress: progress.onProgress,
          onNote: (t) => settings.quiet || process.stderr.write(`${t}\n`),
        });
  } finally {
    progress.stop();
    offInterrupt();
    processes?.close();
  }
  const s = run.summary;
  process.stdout.write(
    `\n${safeName(s.experiment)} (${s.kind})${s.simulated ? "  [SIMULATED components]" : ""}\n${conditionTableText(s)}\n`,
  );
  if (s.successAtK)
    for (const c of s.successAtK)
      process.stdout.write(
        `${safeName(conditionLabel(c.condition)).padEnd(12)} Success@1..${c.curve.length}: ${c.curve.map((p) => `${(100 * p.rate).toFixed(0)}%`).join(" ")} (n=${c.instances})\n`,
      );
  if (s.replay)
    process.stdout.write(
      `action replays: ${s.replay.episodes} episode(s) replayed, ${s.replay.desyncs} desync(s) (each retried from reset), ${s.replay.failed} given up after every attempt (env errors, excluded)\n`,
    );
  if (s.ideal) {
    const x = s.ideal.exclusions;
    process.stdout.write(
      `failed runs: ${s.ideal.failedRuns}, continued: ${s.ideal.continued}; without a detected error: ${x.noErrorFound.runs} (${s.ideal.noErrorFound === "last-step" ? "continued from E = their last step" : `${x.noErrorFound.excluded} left out`}); left out of Success@K: ${x.replayFailed.continuations} continuation(s) whose replay failed, ${x.envErrors.continuations} lost to environment errors${x.incomplete ? `, ${x.incomplete.runs} failed run(s) with fewer than K usable continuations in some strategy (whole run left out, the paper's rule)` : ""}; budget: ${s.ideal.maxForwardSteps} steps ${s.ideal.continuationBudget === "from-restore" ? "after R" : "in all"}\n`,
    );
    const failures = annotationFailuresText(s.ideal, s.successAtK?.find((c) => c.strategy === "llm")?.condition);
    if (failures) process.stdout.write(`${failures}\n`);
  }
  if (s.degraded)
    process.stdout.write(
      `WARNING: recovery was DEGRADED in ${s.degraded.episodes} episode(s): the error detector failed degradedAfter times in a row (those steps went unjudged; summary.json "degraded", docs/cost.md)\n`,
    );
  if (s.stuck)
    process.stdout.write(
      `stuck: ${s.stuck.episodes} episode(s) ended because the agent repeated one step on an unchanged screen after recovery was spent (onStuck: "stop"); ${s.stuck.successes} of them the checker still scored a success (per condition in summary.json "stuck")\n`,
    );
  if (s.selectorFallbacks?.fallbacks)
    process.stdout.write(
      `selector fallbacks: ${s.selectorFallbacks.fallbacks} of ${s.selectorFallbacks.attempts} recovery attempt(s) used R = E-1 because the selector failed (counted per condition in summary.json)\n`,
    );
  if (s.models) process.stdout.write(`${modelTableText(s.models)}\n`);
  if (s.skipped?.length)
    process.stdout.write(
      `skipped ${s.skipped.length} task(s) that cannot run here: ${s.skipped
        .slice(0, 5)
        .map((k) => `${safeName(k.task)} (${safeName(k.reason, 300)})`)
        .join("; ")}${s.skipped.length > 5 ? "; ..." : ""}\n`,
    );
  if (s.stopped)
    process.stdout.write(
      `stopped early: ${s.stopped.reason}; ${s.stopped.notRun} episode(s) not run (--resume with a higher --max-cost-usd continues)\n`,
    );
  if (s.recommendation)
    process.stdout.write(
      `recommendation: ${labelConditionsIn(
        s.recommendation.text,
        s.conditions.map((c) => c.condition),
      )}\n`,
    );
  if (s.settle)
    process.stdout.write(
      `settle: ${s.settle.settleMs} ms after each executed step (${s.settle.source === "config" ? "config" : `${s.settle.env} default`})\n`,
    );
  if (s.simulated) process.stdout.write(`${s.note}\n`);
  if (cache !== "off")
    process.stdout.write(`model cache ${cache} at ${calls.cacheDir}: ${ledger.serverCalls} call(s) reached a server\n`);
  process.stdout.write(
    `results in ${safeName(run.out, 400)} (${((Date.now() - started) / 1000).toFixed(1)} s); report: npx retrace report ${run.out}\n`,
  );
  if (s.allModelCallsFailed) {
    const roles = Object.entries(s.models ?? {})
      .map(([r, m]) => `${r} ${m.errors}/${m.calls}`)
      .join(", ");
    throw new RunFailedError(
      `every model call failed (${roles}); the results say nothing about the agents. See the model errors in ${run.out}/*/*/*/traj.jsonl, check --base-url, --model and the key`,
    );
  }
}

/** The model flags of config runs, for commands that run configs without `run`'s --policy flags (sweep). */
export function addModelConfigFlags(cmd: Command): Command {
  return cmd
    .option(
      "--base-url <url>",
      "fills every model agent of the config that leaves baseUrl out, e.g. http://127.0.0.1:8000/v1",
    )
    .option("--model <name>", "fills every model agent that leaves model out")
    .option("--api-key-env <VAR>", "fills every model agent that leaves apiKeyEnv out")
    .addOption(
      new Option("--cache <mode>", "record/replay cache of every model call")
        .choices(["off", "read", "write", "readwrite"])
        .default("off"),
    )
    .option("--cache-dir <dir>", "cache folder (default: <out>/model-cache)")
    .option("--max-cost-usd <usd>", "stop scheduling new episodes once the model calls have cost this much")
    .addOption(new Option("--no-preflight", "skip the endpoint check before the first episode"));
}

/**
 * Model calls, errors, tokens and cost per role (terminal table): input tokens split into uncached,
 * cached (prompt-cache reads) and, when a server reported any, cache writes; and billed-equivalent
 * tokens (packages/core/src/usage.ts tokenSplit). Says so when no server reported a prompt cache.
 */
export function modelTableText(models: NonNullable<ExperimentSummary["models"]>): string {
  const splits = Object.entries(models).map(([role, m]) => [role, m, tokenSplit(m)] as const);
  const writes = splits.some(([, , t]) => t.cacheWriteInputTokens > 0);
  const rows = splits.map(([role, m, t]) => [
    role,
    String(m.calls),
    String(m.errors),
    String(m.inputTokens),
    String(t.uncachedInputTokens),
    String(t.cachedInputTokens),
    ...(writes ? [String(t.cacheWriteInputTokens)] : []),
    String(m.outputTokens),
    String(t.billedTokens),
    usdText(m.costUsd),
  ]);
  const reported = Object.values(models).some((m) => m?.billedTokens !== undefined);
  const note = reported ? "" : "\nno server reported prompt-cache tokens: cached 0, billed = in + out tokens";
  return (
    textTable(
      [
        "model role",
        "calls",
        "errors",
        "in tokens",
        "uncached in",
        "cached in",
        ...(writes ? ["cache writes"] : []),
        "out tokens",
        "billed tokens",
        "cost",
      ],
      rows,
    ) + note
  );
}

export function register(program: Command): void {
  const cmd = addRunFlags(
    program
      .command("run")
      .description(
        "Run an experiment config (JSON or YAML): ideal-recovery (Success@K per recovery step), end-to-end (no recovery vs max recovery iterations 1/3/5) or sweep. " +
          "Or, with --policy, run one SimDesk task with a model-backed agent over an OpenAI-compatible API.",
      )
      .argument("[config]", "experiment config file (.json, .yaml, .yml); omit it with --policy")
      .addHelpText(
        "after",
        "\nExamples:\n  retrace run experiments/configs/end-to-end.yaml --workers 2 --out runs/e2e\n  retrace run experiments/configs/end-to-end.yaml --out runs/e2e --resume   # after an interruption\n" +
          "  retrace run experiments/configs/models/end-to-end.yaml --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct --cache readwrite --out runs/qwen-e2e\n" +
          "  retrace run experiments/configs/end-to-end.yaml --queue redis://127.0.0.1:6379 --store postgres://retrace@db/retrace --out runs/e2e   # distributed\n" +
          "  retrace run --policy openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct --task files-trash-menu --out runs/qwen",
      ),
    "runs/<name>-<timestamp>",
  );
  cmd.option(
    "--queue <url>",
    "distributed: enqueue the episodes on this redis:// BullMQ queue and wait for `retrace worker`s (results, blobs, checkpoints in --store)",
  );
  addQueueFlags(cmd, { attempts: true });
  addModelRunFlags(cmd, { embedded: true })
    .option(
      "--tasks <ids>",
      "run only these comma-separated task ids (replaces the config's env.tasks; see `npx retrace tasks`)",
    )
    .option("--limit <n>", "run only the first n tasks of the config")
    .option(
      "--max-cost-usd <usd>",
      "stop scheduling new episodes once the model calls of this run have cost this much (in-flight ones finish; needs prices in the model specs)",
    )
    .addOption(
      new Option(
        "--no-preflight",
        "skip the check of each model endpoint (GET <base-url>/models) before the first episode",
      ),
    )
    .action(async (file: string | undefined, flags: ConfigRunFlags & QueueFlags & Partial<RunModelFlags>) => {
      if (flags.policy !== undefined) {
        if (file) throw new ConfigError("give either a config file or --policy (a single model-backed task), not both");
        return runModelFromFlags(flags as RunModelFlags);
      }
      if (!file)
        throw new ConfigError(
          "give an experiment config file (see experiments/configs/), or --policy openai --model NAME --task ID for one model-backed task",
        );
      return runFromCli(loadExperimentConfig(file), flags);
    });
}

/** Register the distributed-run commands (worker, status, cancel) with this module's runtimes. */
export function registerQueue(program: Command): void {
  registerQueueCommands(program, runtimeFor);
}
