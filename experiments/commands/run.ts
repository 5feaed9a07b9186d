/** `retrace run <config>`: run an experiment config (ideal-recovery, end-to-end or sweep). */
import type { Command } from "commander";
import { ConfigError } from "../../src/errors.ts";
import { withDesktopEnv } from "./env.ts";
import { addModelRunFlags, runModelFromFlags, type RunModelFlags } from "./run-model.ts";
import { loadExperimentConfig } from "../config/load.ts";
import { runExperiment } from "../runner/experiment.ts";
import { createSimDeskRuntime } from "../runtime/simdesk.ts";
import type { ExperimentConfig } from "../config/schema.ts";
import { addRunFlags, conditionTableText, defaultOutFor, processWorkers, progressReporter, runSettings, type RunFlags } from "./run-options.ts";

/** Run a validated config with the CLI's progress and printing. */
export async function runFromCli(config: ExperimentConfig, flags: RunFlags): Promise<void> {
  const settings = runSettings(flags, defaultOutFor(config.name));
  const progress = progressReporter(settings.quiet);
  const started = Date.now();
  const envKind = flags.env ?? config.env.kind;
  if (envKind !== "simdesk" && envKind !== "x11" && envKind !== "docker") throw new ConfigError(`env.kind: "${envKind}" is not an environment retrace runs experiments on; use simdesk, x11 or docker`, { field: "env.kind" });
  const desktop = envKind === "x11" || envKind === "docker";
  if (desktop && !settings.quiet) {
    process.stderr.write(`env ${envKind}: real apps have no ground truth, so the simulated plan-divergence detector is used and restoration "model" runs as "replay" (reset + action replay).\n`);
  }
  // Real desktops run their workers in this process (each worker still gets its own desktop);
  // process workers are SimDesk-only.
  const processes = desktop ? undefined : processWorkers(settings.workers ?? 1);
  const runtime = desktop ? withDesktopEnv(createSimDeskRuntime(), envKind) : createSimDeskRuntime();
  let run;
  try {
    run = await runExperiment(config, runtime, { ...settings, processes, onProgress: progress.onProgress, onNote: (t) => settings.quiet || process.stderr.write(`${t}\n`) });
  } finally {
    progress.stop();
    processes?.close();
  }
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
          "  retrace run --policy openai --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct --task files-trash-menu --out runs/qwen",
      ),
    "runs/<name>-<timestamp>",
  );
  addModelRunFlags(cmd, { embedded: true }).action(async (file: string | undefined, flags: RunFlags & Partial<RunModelFlags>) => {
    if (flags.policy !== undefined) {
      if (file) throw new ConfigError("give either a config file or --policy (a single model-backed task), not both");
      return runModelFromFlags(flags as RunModelFlags);
    }
    if (!file) throw new ConfigError("give an experiment config file (see experiments/configs/), or --policy openai --model NAME --task ID for one model-backed task");
    return runFromCli(loadExperimentConfig(file), flags);
  });
}
