/** `retrace sweep <config> --param name=v1,v2,...`: sweep recovery options (grid or one at a time). */
import { Option, type Command } from "commander";
import { warnDeprecated } from "@retrace-cua/core/deprecation";
import { ConfigError } from "@retrace-cua/core/errors";
import { loadExperimentConfig, parseExperimentConfig } from "../config/load.ts";
import { SWEEP_PRESETS, type ExperimentConfig } from "../config/schema.ts";
import { addRunFlags, type RunFlags } from "./run-options.ts";
import { addModelConfigFlags, runFromCli, type ConfigRunFlags } from "./run.ts";

interface SweepFlags extends RunFlags, ConfigRunFlags {
  param: string[];
  preset?: string;
  mode?: string;
  maxRecoveryIterations?: string;
  /** @deprecated `--retry-cap`, the old name of `--max-recovery-iterations`. */
  retryCap?: string;
}

/** `name=v1,v2` -> [name, values]; numbers and booleans are parsed. */
export function parseParamFlag(text: string): [string, Array<number | string | boolean>] {
  const m = /^([A-Za-z][A-Za-z0-9]*)=(.+)$/.exec(text.trim());
  if (!m)
    throw new ConfigError(`--param: expected name=v1,v2,... (e.g. freezeWindow=0,1,3,5), got "${text}"`, {
      field: "param",
    });
  const values = m[2]
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean)
    .map((v) => (v === "true" ? true : v === "false" ? false : /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v));
  if (values.length === 0) throw new ConfigError(`--param ${m[1]}: no values`, { field: "param" });
  return [m[1], values];
}

/** Turn a config plus sweep flags into a sweep config (an end-to-end config with one pair is accepted). */
export function sweepConfigFrom(
  base: ExperimentConfig,
  flags: Pick<SweepFlags, "param" | "preset" | "mode" | "maxRecoveryIterations" | "retryCap">,
): ExperimentConfig {
  let raw: Record<string, unknown>;
  if (base.kind === "sweep") raw = { ...base };
  else if (base.kind === "end-to-end") {
    if (base.pairs.length !== 1)
      throw new ConfigError(
        `sweep: the end-to-end config has ${base.pairs.length} pairs; a sweep needs exactly one (or a kind: sweep config)`,
        { field: "pairs" },
      );
    const { pairs, maxRecoveryIterations, kind: _k, ...rest } = base;
    raw = { ...rest, kind: "sweep", pair: pairs[0], maxRecoveryIterations, params: {} };
  } else
    throw new ConfigError(`sweep: config kind "${base.kind}" cannot be swept; use an end-to-end or sweep config`, {
      field: "kind",
    });
  const params = { ...(raw.params as Record<string, unknown>) };
  for (const p of flags.param ?? []) {
    const [name, values] = parseParamFlag(p);
    params[name] = values;
  }
  raw.params = params;
  if (flags.preset) raw.preset = flags.preset;
  if (flags.mode) raw.mode = flags.mode;
  let caps = flags.maxRecoveryIterations;
  if (flags.retryCap !== undefined) {
    if (caps !== undefined)
      throw new ConfigError(
        "sweep: give --max-recovery-iterations only (--retry-cap is its deprecated name; both were given)",
        { field: "max-recovery-iterations" },
      );
    warnDeprecated("retrace sweep", "--retry-cap", "--max-recovery-iterations");
    caps = flags.retryCap;
  }
  if (caps) raw.maxRecoveryIterations = parseParamFlag(`maxRecoveryIterations=${caps}`)[1];
  return parseExperimentConfig(raw, "sweep");
}

export function register(program: Command): void {
  addModelConfigFlags(
    addRunFlags(
      program
        .command("sweep")
        .description(
          "Sweep recovery options over lists of values (as a grid, or one at a time), each setting crossed with max recovery iterations; the summary recommends the best setting and says when differences are within noise.",
        )
        .argument("<config>", "a sweep config, or an end-to-end config with one forward/recovery pair")
        .option(
          "-p, --param <name=v1,v2,...>",
          "a recovery option and its values (repeatable), e.g. freezeWindow=0,1,3,5,10",
          (v: string, prev: string[]) => [...prev, v],
          [] as string[],
        )
        .option("--preset <name>", `a first-class sweep: ${Object.keys(SWEEP_PRESETS).join(", ")}`)
        .option("--mode <grid|each>", "grid = every combination; each = one parameter at a time")
        .option(
          "--max-recovery-iterations <list>",
          "values of maxRecoveryIterations (recovery attempts allowed per episode) crossed with every setting, e.g. 1,3,5",
        )
        .addOption(new Option("--retry-cap <list>", "deprecated: use --max-recovery-iterations").hideHelp())
        .option(
          "--tasks <ids>",
          "run only these comma-separated task ids (replaces the config's env.tasks; see `npx retrace tasks`)",
        )
        .option("--limit <n>", "run only the first n tasks of the config")
        .addHelpText(
          "after",
          "\nExamples:\n  retrace sweep experiments/configs/sweep-freeze-window.yaml\n  retrace sweep experiments/configs/sweep-recovery-budget.yaml --param recoveryBudget=1,3,5,10,20 --max-recovery-iterations 1,3",
        ),
      "runs/<name>-<timestamp>",
    ),
  ).action(async (file: string, flags: SweepFlags) =>
    runFromCli(sweepConfigFrom(loadExperimentConfig(file), flags), flags),
  );
}
