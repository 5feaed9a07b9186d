/** `retrace run <config>`: run an experiment config (ideal-recovery, end-to-end or sweep). */
import type { Command } from "commander";
import { ConfigError } from "../../src/errors.ts";
import { withDesktopEnv } from "./env.ts";
import { addModelRunFlags, runModelFromFlags, type RunModelFlags } from "./run-model.ts";
import { loadExperimentConfig } from "../config/load.ts";
import { runExperiment, type ExperimentRun } from "../runner/experiment.ts";
import type { ExperimentRuntime } from "../runner/runtime.ts";
import { addQueueFlags, registerQueueCommands, runQueued, type QueueFlags } from "./queue.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import type { ExperimentConfig } from "../config/schema.ts";
import { addRunFlags, conditionTableText, defaultOutFor, processWorkers, progressReporter, runSettings, type RunFlags } from "./run-options.ts";

/** The experiment runtime for an environment kind (SimDesk, or SimDesk's agents on real desktops). */
export function runtimeFor(envKind: string): ExperimentRuntime {
  if (envKind !== "simdesk" && envKind !== "x11" && envKind !== "docker") throw new ConfigError(`env.kind: "${envKind}" is not an environment retrace runs experiments on; use simdesk, x11 or docker`, { field: "env.kind" });
  return envKind === "simdesk" ? createSimDeskRuntime() : withDesktopEnv(createSimDeskRuntime(), envKind);
}

/** Run a validated config with the CLI's progress and printing. */
export async function runFromCli(config: ExperimentConfig, flags: RunFlags & QueueFlags): Promise<void> {
  const settings = runSettings(flags, defaultOutFor(config.name));
  const progress = progressReporter(settings.quiet);
  const started = Date.now();
  const envKind = flags.env ?? config.env.kind;
  if (envKind !== "simdesk" && envKind !== "x11" && envKind !== "docker") throw new ConfigError(`env.kind: "${envKind}" is not an environment retrace runs experiments on; use simdesk, x11 or docker`, { field: "env.kind" });
  const desktop = envKind === "x11" || envKind === "docker";
  if (desktop && !settings.quiet) {
    process.stderr.write(`env ${envKind}: real apps have no ground truth, so the simulated plan-divergence detector is used and restoration "model" runs as "replay" (reset + action replay).\n`);
  }
  let run;
  if (flags.queue !== undefined) {
    // Distributed: workers (retrace worker) run the episodes; --env travels in the registered config.
    const registered = flags.env ? { ...config, env: { ...config.env, kind: envKind } } as ExperimentConfig : config;
    run = await runQueued(config, registered, runtimeFor(envKind), flags, settings.out, settings.seedBase ?? 0, settings.quiet);
    return printRun(run, started);
  }
  // Real desktops run their workers in this process (each worker still gets its own desktop);
  // process workers are SimDesk-only.
  const processes = desktop ? undefined : processWorkers(settings.workers ?? 1);
  const runtime = runtimeFor(envKind);
  try {
    run = await runExperiment(config, runtime, { ...settings, processes, onProgress: progress.onProgress, onNote: (t) => settings.quiet || process.stderr.write(`${t}\n`) });
  } finally {
    progress.stop();
    processes?.close();
  }
  printRun(run, started);
}

function printRun(run: ExperimentRun, started: number): void {
  const s = run.summary;
  process.stdout.write(`\n${s.experiment} (${s.kind})${s.simulated ? "  [SIMULATED policies]" : ""}\n${conditionTableText(s)}\n`);
  if (s.successAtK) for (const c of s.successAtK) process.stdout.write(`${c.condition.padEnd(12)} Success@1..${c.curve.length}: ${c.curve.map((p) => `${(100 * p.rate).toFixed(0)}%`).join(" ")} (n=${c.instances})\n`);
  if (s.recommendation) process.stdout.write(`recommendation: ${s.recommendation.text}\n`);
  if (s.simulated) process.stdout.write(`${s.note}\n`);
  process.stdout.write(`results in ${run.out} (${((Date.now() - started) / 1000).toFixed(1)} s); report: retrace report ${run.out}\n`);
}

export function register(program: Command): void {
  const cmd = addRunFlags(
    program
      .command("run")
      .description(
        "Run an experiment config (JSON or YAML): ideal-recovery (Success@K per recovery step), end-to-end (no recovery vs retry caps) or sweep. " +
          "Or, with --policy, run one SimDesk task with a model-backed agent over an OpenAI-compatible API.",
      )
      .argument("[config]", "experiment config file (.json, .yaml, .yml); omit it with --policy")
      .addHelpText(
        "after",
        "\nExamples:\n  retrace run experiments/configs/end-to-end.yaml --workers 2 --out runs/e2e\n  retrace run experiments/configs/end-to-end.yaml --out runs/e2e --resume   # after an interruption\n" +
          "  retrace run experiments/configs/end-to-end.yaml --queue redis://127.0.0.1:6379 --store postgres://retrace@db/retrace --out runs/e2e   # distributed\n" +
          "  retrace run --policy openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct --task files-trash-menu --out runs/qwen",
      ),
    "runs/<name>-<timestamp>",
  );
  cmd.option("--queue <url>", "distributed: enqueue the episodes on this redis:// BullMQ queue and wait for `retrace worker`s (results, blobs, checkpoints in --store)");
  addQueueFlags(cmd);
  addModelRunFlags(cmd, { embedded: true }).action(async (file: string | undefined, flags: RunFlags & QueueFlags & Partial<RunModelFlags>) => {
    if (flags.policy !== undefined) {
      if (file) throw new ConfigError("give either a config file or --policy (a single model-backed task), not both");
      return runModelFromFlags(flags as RunModelFlags);
    }
    if (!file) throw new ConfigError("give an experiment config file (see experiments/configs/), or --policy openai --model NAME --task ID for one model-backed task");
    return runFromCli(loadExperimentConfig(file), flags);
  });
}

/** Register the distributed-run commands (worker, status, cancel) with this module's runtimes. */
export function registerQueue(program: Command): void {
  registerQueueCommands(program, runtimeFor);
}
