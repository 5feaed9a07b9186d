/**
 * `retrace run-model`: one SimDesk task with a model-backed agent over HTTP, written as an
 * OSWorld-style episode folder. The lead may fold these flags into `retrace run` (`--policy`).
 */
import { Option, type Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { CACHE_MODES, MODEL_POLICIES, runModelTask, type ModelPolicyKind } from "../model-run.ts";
import type { CacheMode } from "@retrace-cua/models/models/cache";
import { RunFailedError } from "../runner/errors.ts";
import { seedFlag } from "./common-flags.ts";
import { optionalIntFlag } from "./numeric-flags.ts";

/** Parsed `run-model` flags. */
export interface RunModelFlags {
  policy: string;
  baseUrl?: string;
  model?: string;
  task?: string;
  out?: string;
  apiKeyEnv?: string;
  cache: string;
  cacheDir?: string;
  maxSteps: string;
  maxRetries: string;
  timeoutMs: string;
  historyImages?: string;
  /** Episode seed of the model calls' draw identity (`retrace run` has its own --seed). */
  seed?: string;
}

function int(value: string | undefined, flag: string): number | undefined {
  return optionalIntFlag(flag, value, { min: 0, expect: "expected a whole number" });
}

/**
 * Add the model-run flags to a command (all optional here; `runModelFromFlags` checks that --model
 * and --task are given). Exported so `retrace run --policy ...` can delegate to the same code.
 */
export function addModelRunFlags(cmd: Command, options: { embedded?: boolean } = {}): Command {
  // Embedded in `retrace run`: --policy has no default (its presence selects the model run) and
  // --out comes from the run flags.
  const policy = new Option(
    "--policy <kind>",
    "agent: openai = generic pyautogui agent over chat completions; uitars, openai-cua, anthropic",
  ).choices([...MODEL_POLICIES]);
  cmd = cmd.addOption(options.embedded ? policy : policy.default("openai"));
  if (!options.embedded)
    cmd = cmd
      .option("-o, --out <dir>", "output folder (default: runs/model-<task>-<timestamp>)")
      .addOption(
        seedFlag(
          "episode seed: part of every model call's draw identity, sent as the request's seed and keying the cache",
        ),
      );
  return cmd
    .option(
      "--model <name>",
      "model name as the server knows it (with a config: fills every model agent that leaves it out)",
    )
    .option("--task <id>", "SimDesk task id (npx retrace tasks lists them)")
    .option(
      "--base-url <url>",
      "API base URL, e.g. http://127.0.0.1:8000/v1 (default: RETRACE_BASE_URL / OPENAI_BASE_URL, else the vendor's; with a config: fills every model agent that leaves it out)",
    )
    .option(
      "--api-key-env <VAR>",
      "environment variable holding the API key (default: RETRACE_API_KEY / OPENAI_API_KEY / ANTHROPIC_API_KEY)",
    )
    .addOption(
      new Option("--cache <mode>", "record/replay cache of every model call (read: replay only, no endpoint preflight)")
        .choices([...CACHE_MODES])
        .default("off"),
    )
    .option("--cache-dir <dir>", "cache folder, shared between runs to replay them (default: <out>/model-cache)")
    .option("--max-steps <n>", "forward step budget", "15")
    .option(
      "--max-retries <n>",
      "retries on 429/5xx/timeouts (the SDK's backoff) (--policy runs; configs: maxRetries in each model spec, default 2)",
      "2",
    )
    .option(
      "--timeout-ms <n>",
      "per-attempt timeout (--policy runs; configs: timeoutMs in each model spec, default 60000)",
      "60000",
    )
    .option("--history-images <n>", "past screenshots shown to the model");
}

/** Run from parsed flags and print the one-paragraph summary (the CLI owns the terminal). */
export async function runModelFromFlags(flags: RunModelFlags): Promise<void> {
  if (!flags.model) throw new ConfigError("--model: give the model name the server expects", { field: "model" });
  if (!flags.task)
    throw new ConfigError("--task: give a SimDesk task id (npx retrace tasks lists them)", { field: "task" });
  const run = await runModelTask({
    policy: flags.policy as ModelPolicyKind,
    model: flags.model,
    taskId: flags.task,
    baseURL: flags.baseUrl,
    out: flags.out,
    apiKeyEnv: flags.apiKeyEnv,
    cache: flags.cache as CacheMode,
    cacheDir: flags.cacheDir,
    maxSteps: int(flags.maxSteps, "max-steps"),
    maxRetries: int(flags.maxRetries, "max-retries"),
    timeoutMs: int(flags.timeoutMs, "timeout-ms"),
    historyImages: int(flags.historyImages, "history-images"),
    seed: int(flags.seed, "seed"),
  });
  const r = run.result;
  const m = r.accounting.models.policy;
  const modelErrors = r.trajectory.steps.filter((s) => s.failure?.kind === "model-error");
  process.stdout.write(
    `${r.taskId}: ${r.success ? "success" : "failure"} (score ${r.evaluation.score}, ${r.stopReason}) in ${r.accounting.forwardSteps} step(s), ` +
      `${r.accounting.policyFailures} unusable answer(s)${m ? `, ${m.calls} model call(s), ${m.inputTokens}+${m.outputTokens} tokens` : ""}` +
      `${run.cache ? `, cache ${run.cache.hits} hit(s) / ${run.cache.misses} miss(es)` : ""}\nepisode folder: ${run.out}\n`,
  );
  if (modelErrors.length > 0 && !m?.calls)
    throw new RunFailedError(
      `every model call failed (${modelErrors.length} of ${modelErrors.length}; first: ${modelErrors[0].failure?.message?.split("\n")[0] ?? "model error"}); the episode says nothing about the agent. Check --base-url, --model and the key`,
    );
}

/** Register `run-model`. */
export function register(program: Command): void {
  addModelRunFlags(
    program
      .command("run-model")
      .description(
        "Run one SimDesk task with a model-backed agent over an OpenAI-compatible (or OpenAI/Anthropic computer-use) API; no recovery attached.",
      ),
  )
    .addHelpText(
      "after",
      "\nExample:\n  retrace run-model --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-VL-7B-Instruct --task files-trash-menu --out runs/qwen --cache readwrite",
    )
    .action(runModelFromFlags);
}
