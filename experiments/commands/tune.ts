/**
 * `retrace tune CONFIG`: race the settings of a tune config's space on shared (task, seed) units
 * and report the winner (or the tied set) with its confidence; `--plan` prints how many paired
 * units (and episodes, tokens, dollars, time) a decision needs before anything runs.
 */
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { planRace } from "@retrace-cua/evaluation/tune/plan";
import { spaceSize } from "@retrace-cua/evaluation/tune/space";
import { parseCacheMode } from "@retrace-cua/models/models/cache";
import { CostLedger } from "../agents/meter.ts";
import { fillConfigModels, usesModels } from "../config/agents.ts";
import type { ExperimentConfig } from "../config/schema.ts";
import { runExperiment } from "../runner/experiment.ts";
import { selectTasks } from "../runner/context.ts";
import { loadTuneConfig } from "../tune/config.ts";
import { readPilot } from "../tune/pilot.ts";
import { runTune, type RunGroup } from "../tune/run.ts";
import { summaryText } from "../tune/output.ts";
import { optionalNumberFlag } from "./numeric-flags.ts";
import { onInterrupt } from "./progress.ts";
import { addQueueFlags, runQueued, type QueueFlags } from "./queue.ts";
import { addRunFlags, defaultOutFor, processWorkers, runSettings, type RunFlags } from "./run-options.ts";
import { addModelConfigFlags, runtimeFor, withTaskFlags, type ConfigRunFlags } from "./run.ts";
import { parseParamFlag } from "./sweep.ts";
import { safeName } from "./terminal.ts";

interface TuneFlags extends ConfigRunFlags, QueueFlags, RunFlags {
  knob: string[];
  plan?: boolean;
  baseline?: string;
  gain?: string;
  pilot?: string;
  power?: string;
  tokensPerEpisode?: string;
  usdPerEpisode?: string;
  secondsPerEpisode?: string;
  queue?: string;
}

/** `path=v1,v2` -> a knob (paths may be dotted). */
function parseKnobFlag(text: string): { path: string; values: Array<string | number | boolean> } {
  const m = /^([A-Za-z_][A-Za-z0-9_.]*)=(.+)$/.exec(text.trim());
  if (!m)
    throw new ConfigError(
      `--knob: expected path=v1,v2,... (e.g. options.freezeWindow=0,1,3 or pair.detector.minConfidence=0.3,0.5), got "${text}"`,
      { field: "knob" },
    );
  return { path: m[1], values: parseParamFlag(`x=${m[2]}`)[1] };
}

async function plan(file: string, flags: TuneFlags): Promise<void> {
  const config = loadTuneConfig(file, (flags.knob ?? []).map(parseKnobFlag));
  const pilot = flags.pilot ? readPilot(flags.pilot) : undefined;
  const num = (name: string, v: string | undefined, min: number, max: number, expect: string) =>
    optionalNumberFlag(name, v, { min, max, expect, field: name.replace(/^--/, "") });
  const baseline =
    num("--baseline", flags.baseline, 0, 1, "expected a success rate from 0 to 1, e.g. 0.4") ?? pilot?.baseline;
  if (baseline === undefined)
    throw new ConfigError(
      "--plan: give --baseline RATE (your current success rate, e.g. 0.4) or --pilot DIR (a run folder to measure it from)",
      { field: "baseline" },
    );
  const gain = num(
    "--gain",
    flags.gain ?? "10",
    0,
    100,
    "expected points of success rate to detect, e.g. 10",
  ) as number;
  const candidates = Math.min(spaceSize(config.knobs), config.race.batchSize);
  const g = gain / 100;
  const d = pilot?.discordance;
  const p = planRace({
    baseline,
    gain: g,
    candidates,
    alpha: config.race.alpha,
    power: num("--power", flags.power, 0.5, 0.99, "expected a power such as 0.8") ?? 0.8,
    ...(d !== undefined && d > g && { pilot: { onlyBetter: (d + g) / 2, onlyBaseline: (d - g) / 2 } }),
    tokensPerEpisode:
      num("--tokens-per-episode", flags.tokensPerEpisode, 0, 1e9, "expected tokens") ?? pilot?.tokensPerEpisode ?? 0,
    usdPerEpisode:
      num("--usd-per-episode", flags.usdPerEpisode, 0, 1e6, "expected US dollars") ?? pilot?.usdPerEpisode ?? 0,
    secondsPerEpisode:
      num("--seconds-per-episode", flags.secondsPerEpisode, 0, 1e6, "expected seconds") ??
      pilot?.secondsPerEpisode ??
      0,
    workers: Number(flags.workers ?? 1),
  });
  const tasks = selectTasks(runtimeFor(config.parsed.env.kind, config.parsed.env), config.parsed.env).length;
  const seeds = Math.ceil(p.units / Math.max(1, tasks));
  process.stdout.write(
    [
      `plan for ${safeName(config.name)}: detect a gain of ${gain} points over ${(100 * baseline).toFixed(0)}% with power ${(100 * Number(flags.power ?? 0.8)).toFixed(0)}% at alpha ${config.race.alpha} (Holm over ${candidates - 1} comparisons: ${p.testAlpha.toPrecision(2)} per test)`,
      `discordance ${(100 * p.discordance).toFixed(0)}% of paired units (${p.discordanceSource}${pilot ? `; pilot ${safeName(flags.pilot!)}: baseline ${(100 * pilot.baseline).toFixed(0)}% on ${pilot.units} units` : ""})`,
      `paired units needed: ${p.units} (exact McNemar power ${(100 * p.power).toFixed(0)}%) = ${seeds} seed(s) x ${tasks} task(s)`,
      `cost of a grid of ${candidates} candidates at that n (the race's upper bound; a race typically uses a fraction): ${p.gridEpisodes} episodes, ${Math.round(p.tokens).toLocaleString("en-US")} tokens, $${p.usd.toFixed(2)}, ${(p.seconds / 3600).toFixed(2)} h`,
      `set race.maxSeedsPerBatch to at least ${seeds} so the race can reach it`,
    ].join("\n") + "\n",
  );
}

async function tune(file: string, flags: TuneFlags): Promise<void> {
  const config = loadTuneConfig(file, (flags.knob ?? []).map(parseKnobFlag));
  const settings = runSettings(flags, defaultOutFor(config.name));
  if (settings.seedBase)
    throw new ConfigError("--seed: a race takes its seeds from race.seedStart and race.seed in the config", {
      field: "seed",
    });
  const env = flags.env ? { ...config.parsed.env, kind: flags.env } : config.parsed.env;
  const envCheck = withTaskFlags({ ...config.parsed, env } as ExperimentConfig, flags);
  if (flags.env || flags.tasks || flags.limit) config.base.env = { ...(config.base.env as object), ...envCheck.env };
  const runtime = runtimeFor(envCheck.env.kind, envCheck.env);
  const tasks = selectTasks(runtime, envCheck.env).map((t) => t.id);
  const ledger = new CostLedger();
  const cache = parseCacheMode(flags.cache ?? "off");
  const calls = { cache, cacheDir: resolve(flags.cacheDir ?? join(settings.out, "model-cache")), ledger };
  const models = usesModels(envCheck);
  const queued = flags.queue !== undefined;
  const processes =
    !queued && envCheck.env.kind === "simdesk" && !models ? processWorkers(settings.workers ?? 1) : undefined;
  const maxCostUsd = optionalNumberFlag("--max-cost-usd", flags.maxCostUsd, {
    min: 0,
    exclusiveMin: true,
    max: 1e9,
    expect: "expected a positive number of US dollars",
    field: "maxCostUsd",
  });
  let preflight = flags.preflight !== false;
  const runGroup: RunGroup = async (cfg, dir, resume) => {
    const filled = fillConfigModels(cfg, { baseUrl: flags.baseUrl, model: flags.model, apiKeyEnv: flags.apiKeyEnv });
    if (queued) return (await runQueued(filled, filled, runtime, { ...flags, resume }, dir, 0, true)).lines;
    // Rounds share the race's blob store and pack their episode records (as the demo's runs do).
    const run = await runExperiment(filled, runtime, {
      out: dir,
      resume,
      workers: settings.workers,
      processes,
      calls,
      preflight,
      blobsDir: join(settings.out, "blobs"),
      osworldFiles: false,
      episodeRecords: "pack",
      ...(maxCostUsd !== undefined && { maxCostUsd }),
      ...(settings.checkpoint && { checkpoint: settings.checkpoint }),
    });
    preflight = false;
    return run.lines;
  };
  const started = Date.now();
  const offInterrupt = onInterrupt(settings.out);
  let run;
  try {
    run = await runTune(config, {
      out: settings.out,
      resume: settings.resume,
      tasks,
      runGroup,
      onRound: (t) => settings.quiet || process.stderr.write(`${t}\n`),
    });
  } finally {
    offInterrupt();
    processes?.close();
  }
  const r = run.result;
  process.stdout.write(
    `\n${safeName(config.name)} (race over ${config.knobs.map((k) => k.path).join(" x ")}, ${tasks.length} task(s) per seed)${run.simulated ? "  [SIMULATED components]" : ""}\n${summaryText(r, run.costUnit, config.objective)}\n`,
  );
  if (run.envErrors)
    process.stdout.write(
      `environment errors: ${run.envErrors} episode(s) scored as failures (the environment, not the agent, failed)\n`,
    );
  if (r.winner)
    process.stdout.write(
      `winner as config: ${safeName(join(run.out, "winner.yaml"), 400)}; as withRecovery options: ${safeName(join(run.out, "winner.ts"), 400)}\n`,
    );
  process.stdout.write(
    `race in ${safeName(run.out, 400)} (${((Date.now() - started) / 1000).toFixed(1)} s); report: npx retrace report ${safeName(run.out, 400)}\n`,
  );
}

export function register(program: Command): void {
  const cmd = addModelConfigFlags(
    addRunFlags(
      program
        .command("tune")
        .description(
          "Race recovery settings (freeze window, budget, max recovery iterations, recovery step, context, detector fields: any config field) on shared task x seed units, eliminating the significantly worse ones round by round (McNemar, Holm); prints the winner or the tied set with its confidence. --plan sizes a decision before paying for it.",
        )
        .argument("<config>", "a tune config (kind: tune; see experiments/configs/tune-freeze-budget.yaml)")
        .option(
          "-k, --knob <path=v1,v2,...>",
          "a knob of the space (repeatable; replaces the config's entry), e.g. options.freezeWindow=0,1,3,5,10 or pair.detector.minConfidence=0.3,0.5",
          (v: string, prev: string[]) => [...prev, v],
          [] as string[],
        )
        .option("--plan", "print the paired units, episodes, tokens, cost and time a decision needs, then stop")
        .option("--baseline <rate>", "--plan: your current success rate (0..1)")
        .option("--gain <points>", "--plan: the gain to detect, in points of success rate", "10")
        .option(
          "--pilot <dir>",
          "--plan: a run folder to measure the baseline, the paired discordance and the cost per episode from",
        )
        .option("--power <p>", "--plan: the power to reach", "0.8")
        .option("--tokens-per-episode <n>", "--plan: tokens per episode (default: from --pilot, else 0)")
        .option("--usd-per-episode <usd>", "--plan: dollars per episode (default: from --pilot, else 0)")
        .option("--seconds-per-episode <s>", "--plan: wall-clock seconds per episode (default: from --pilot, else 0)")
        .option("--tasks <ids>", "race only on these comma-separated task ids")
        .option("--limit <n>", "race only on the first n tasks")
        .option(
          "--queue <url>",
          "distributed: each round's episodes go to this redis:// BullMQ queue for `retrace worker`s",
        )
        .addHelpText(
          "after",
          "\nExamples:\n  retrace tune experiments/configs/tune-freeze-budget.yaml --out runs/tune\n  retrace tune experiments/configs/tune-freeze-budget.yaml --out runs/tune --resume   # after an interruption\n  retrace tune experiments/configs/tune-freeze-budget.yaml --plan --baseline 0.4 --gain 10",
        ),
      "runs/<name>-<timestamp>",
    ),
  );
  addQueueFlags(cmd).action(async (file: string, flags: TuneFlags) =>
    flags.plan ? plan(file, flags) : tune(file, flags),
  );
}
