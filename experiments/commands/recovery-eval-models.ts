/**
 * The model flags shared by `retrace dataset build` and `retrace eval-recovery`: `--config` (a
 * `kind: recovery-eval` file such as experiments/configs/models/recovery-eval.yaml), `--env`,
 * `--base-url`/`--model`/`--api-key-env` (filled into every model agent that leaves them out)
 * and the record/replay cache. Also the summary lines about model usage.
 */
import { usdText } from "@retrace-cua/core/usage";
import { checkOutDir } from "@retrace-cua/core/store/out-dir";
import { Option, type Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { CACHE_MODES, type CacheMode } from "@retrace-cua/models/models/cache";
import { EVAL_ENV_KINDS, loadRecoveryEvalConfig, type RecoveryEvalConfig } from "../recovery-eval/config.ts";
import type { ModelUsageFile } from "../recovery-eval/model-usage.ts";
import { parseNumberFlag } from "./numeric-flags.ts";

/** Parsed model flags. */
export interface ModelEvalFlags {
  config?: string;
  env?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  cache: string;
  cacheDir?: string;
  /** false with --no-preflight. */
  preflight: boolean;
  maxCostUsd?: string;
}

/** Add the model flags to a command. */
export function addModelEvalFlags(cmd: Command): Command {
  return cmd
    .option(
      "-c, --config <file>",
      "recovery-eval config with model agents (e.g. experiments/configs/models/recovery-eval.yaml); without it: SimDesk + simulated agents",
    )
    .addOption(new Option("--env <kind>", "environment (overrides the config's env.kind)").choices([...EVAL_ENV_KINDS]))
    .option("--base-url <url>", "API base URL for every model agent that names none, e.g. http://127.0.0.1:8000/v1")
    .option("--model <name>", "model name for every model agent that names none")
    .option("--api-key-env <VAR>", "environment variable holding the API key, for every model agent that names none")
    .addOption(
      new Option("--cache <mode>", "record/replay cache of model calls").choices([...CACHE_MODES]).default("off"),
    )
    .option("--cache-dir <dir>", "cache folder; share it between runs to replay them (default: <out>/model-cache)")
    .option(
      "--max-cost-usd <usd>",
      "stop starting new rollouts / samples once the money spent reaches this (in-flight work finishes; what was done is kept)",
    )
    .option("--no-preflight", "skip asking each model endpoint once (GET /models) before the first episode");
}

/** The config from the flags, or undefined for the simulated path (which refuses model-only flags). */
export function configFromFlags(flags: ModelEvalFlags): RecoveryEvalConfig | undefined {
  if (!flags.config) {
    if (flags.env && flags.env !== "simdesk")
      throw new ConfigError(
        `--env ${flags.env}: the simulated recovery evaluation runs on SimDesk only (its simulated perturber and recoverer read SimDesk's state graph); for ${flags.env}, use model agents: add --config experiments/configs/models/recovery-eval.yaml`,
        { field: "env" },
      );
    const stray = [flags.baseUrl && "--base-url", flags.model && "--model", flags.apiKeyEnv && "--api-key-env"].filter(
      Boolean,
    );
    if (stray.length)
      throw new ConfigError(
        `${stray.join(", ")}: model agents come from a config; add --config experiments/configs/models/recovery-eval.yaml`,
        { field: "config" },
      );
    return undefined;
  }
  return loadRecoveryEvalConfig(flags.config, {
    env: flags.env,
    baseUrl: flags.baseUrl,
    model: flags.model,
    apiKeyEnv: flags.apiKeyEnv,
  });
}

/** Cache, preflight and cost-cap options from the flags. */
export function cacheFromFlags(flags: ModelEvalFlags): {
  cache: CacheMode;
  cacheDir?: string;
  preflight: boolean;
  maxCostUsd?: number;
} {
  let maxCostUsd: number | undefined;
  if (flags.maxCostUsd !== undefined) {
    maxCostUsd = parseNumberFlag("--max-cost-usd", flags.maxCostUsd, {
      min: 0,
      exclusiveMin: true,
      max: 1e9,
      expect: "expected a positive amount of US dollars",
      field: "maxCostUsd",
    });
  }
  if (flags.cacheDir !== undefined) checkOutDir(flags.cacheDir, { flag: "--cache-dir" });
  return {
    cache: flags.cache as CacheMode,
    ...(flags.cacheDir && { cacheDir: flags.cacheDir }),
    preflight: flags.preflight !== false,
    ...(maxCostUsd !== undefined && { maxCostUsd }),
  };
}

/** Lines about model usage; sets a non-zero exit code when every call of a role failed. */
export function usageLines(usage: ModelUsageFile): string[] {
  const lines: string[] = [];
  for (const [role, u] of Object.entries(usage.roles)) {
    if (u)
      lines.push(
        `  ${role}: ${u.calls} call(s), ${u.inputTokens}+${u.outputTokens} tokens, ${usdText(u.costUsd)}, ${u.errors} error(s)${u.simulated ? " - SIMULATED (the server declared itself a stand-in)" : ""}`,
      );
  }
  const dead = Object.entries(usage.roles)
    .filter(([, u]) => u && u.errors > 0 && u.errors === u.calls)
    .map(([r]) => r);
  if (dead.length) {
    lines.push(`every model call failed for: ${dead.join(", ")} (check the server, --base-url and the API key)`);
    process.exitCode = 1;
  }
  const out = lines.length ? ["model usage per role:", ...lines] : [];
  if (usage.stopped) out.push(`stopped early: ${usage.stopped}`);
  return out;
}
