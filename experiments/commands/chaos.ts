/** `retrace chaos <config>`: an end-to-end run under seeded environment and model faults, measured. */
import { safeName } from "./terminal.ts";
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { parseCacheMode } from "@retrace-cua/models/models/cache";
import { loadExperimentConfig } from "../config/load.ts";
import { ENV_FAULTS, MODEL_FAULTS, runChaos } from "../chaos/run.ts";
import type { EnvFault } from "../chaos/env-faults.ts";
import type { ModelFault } from "../chaos/model-server.ts";
import { defaultOutFor, progressReporter, textTable } from "./run-options.ts";
import { outFlag, quietFlag, seedFlag } from "./common-flags.ts";
import { parseIntFlag, parseNumberFlag } from "./numeric-flags.ts";

interface ChaosFlags {
  out?: string;
  seed: string;
  workers: string;
  envFaults: string;
  modelFaults: string;
  envKinds?: string;
  modelKinds?: string;
  envTimeoutMs: string;
  modelTimeoutMs: string;
  maxRetries: string;
  baseUrl?: string;
  cache: string;
  cacheDir?: string;
  resume?: boolean;
  quiet?: boolean;
}

const int = (v: string, flag: string, min: number, max: number) => parseIntFlag(flag, v, { min, max });
const prob = (v: string, flag: string) =>
  parseNumberFlag(flag, v, { min: 0, max: 1, expect: "expected a probability from 0 to 1 (e.g. 0.1)" });
function kinds<T extends string>(v: string | undefined, all: readonly T[], flag: string): T[] | undefined {
  if (v === undefined) return undefined;
  const list = v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.find((k) => !(all as readonly string[]).includes(k));
  if (bad !== undefined || list.length === 0)
    throw new ConfigError(`${flag}: "${bad ?? v}" is not a fault; use a comma-separated list of ${all.join(", ")}`, {
      field: flag,
    });
  return list as T[];
}

export function register(program: Command): void {
  program
    .command("chaos")
    .description(
      "Run an end-to-end or sweep config on SimDesk under seeded faults: environments crash, hang, return corrupt or truncated PNGs, answer slowly or die; " +
        "the LLM detector and selector talk over HTTP to a seeded local server that answers 429, 500, never, malformed JSON, cut-off bodies, refusals and its caller's key. " +
        "Reports episodes recorded, hung, env errors kept out of success rates, detector failures that started a recovery, and files holding the key. Agent answers are SIMULATED.",
    )
    .argument("<config>", "experiment config (end-to-end or sweep)")
    .addOption(outFlag("output folder (default: runs/chaos-<name>-<timestamp>)"))
    .addOption(seedFlag("seed of the faults, also added to the config's seeds"))
    .option("-w, --workers <n>", "parallel in-process workers", "2")
    .option("--env-faults <p>", "probability that an environment call fails", "0.1")
    .option("--model-faults <p>", "probability that a model request fails", "0.2")
    .option("--env-kinds <list>", `environment faults to draw from (default: all of ${ENV_FAULTS.join(", ")})`)
    .option("--model-kinds <list>", `model faults to draw from (default: all of ${MODEL_FAULTS.join(", ")})`)
    .option("--env-timeout-ms <n>", "deadline of each environment call (ends every hang)", "3000")
    .option("--model-timeout-ms <n>", "per-attempt model timeout (ends every unanswered request)", "2000")
    .option("--max-retries <n>", "model retries on 429/5xx/timeouts", "2")
    .option("--base-url <url>", "an OpenAI-compatible endpoint to use instead of the seeded chaos server")
    .option("--cache <mode>", "model-call cache: off, read, write, readwrite", "readwrite")
    .option("--cache-dir <dir>", "cache folder (default: <out>/model-cache)")
    .option("--resume", "continue the chaos run in --out")
    .addOption(quietFlag("no progress bar"))
    .action(async (file: string, flags: ChaosFlags) => {
      const seed = parseIntFlag("--seed", flags.seed, { expect: "expected an integer" });
      const options = {
        seed,
        workers: int(flags.workers, "--workers", 1, 64),
        envFaultRate: prob(flags.envFaults, "--env-faults"),
        modelFaultRate: prob(flags.modelFaults, "--model-faults"),
        envFaults: kinds<EnvFault>(flags.envKinds, ENV_FAULTS, "--env-kinds"),
        modelFaults: kinds<ModelFault>(flags.modelKinds, MODEL_FAULTS, "--model-kinds"),
        envTimeoutMs: int(flags.envTimeoutMs, "--env-timeout-ms", 1, 3_600_000),
        modelTimeoutMs: int(flags.modelTimeoutMs, "--model-timeout-ms", 1, 3_600_000),
        maxRetries: int(flags.maxRetries, "--max-retries", 0, 20),
        cache: parseCacheMode(flags.cache),
      };
      if (flags.baseUrl !== undefined && !/^https?:\/\/[^/\s]+/.test(flags.baseUrl))
        throw new ConfigError(
          `--base-url: expected an http(s) URL such as http://127.0.0.1:8000/v1, got "${flags.baseUrl}"`,
          { field: "base-url" },
        );
      const config = loadExperimentConfig(file);
      const progress = progressReporter(flags.quiet === true, "chaos ");
      let r;
      try {
        r = await runChaos({
          ...options,
          config,
          out: flags.out ?? defaultOutFor(`chaos-${config.name}`),
          baseURL: flags.baseUrl,
          cacheDir: flags.cacheDir,
          resume: flags.resume === true,
          onProgress: progress.onProgress,
        });
      } finally {
        progress.stop();
      }
      const f = r.figures;
      const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "-");
      const rows = [
        [
          "episodes with a recorded outcome",
          `${f.episodesRecorded}/${f.episodesExpected} (${pct(f.episodesRecorded, f.episodesExpected)})`,
        ],
        ["episodes hung", String(f.episodesHung)],
        [
          "env-error episodes (kept out of success rates)",
          `${f.envErrorEpisodes}${f.envErrorsExcluded ? " (excluded: yes)" : " (excluded: NO)"}`,
        ],
        ["episodes that succeeded after an env retry", String(f.episodesRetried)],
        ["success (ok episodes only)", `${f.successes}/${f.okEpisodes}`],
        ["detector failures / calls", `${f.detectorFailures}/${f.detectorCalls}`],
        ["detector failures that started a recovery", String(f.detectorFailuresThatTriggeredRecovery)],
        ["files holding the API key", `${f.filesWithKey.length} of ${f.filesScanned}`],
        [
          "env faults injected",
          Object.entries(r.envFaults)
            .map(([k, v]) => `${k} ${v}`)
            .join(", "),
        ],
        [
          "model faults injected",
          r.modelFaults
            ? `${Object.entries(r.modelFaults)
                .map(([k, v]) => `${k} ${v}`)
                .join(", ")} (of ${r.modelRequests} requests)`
            : "external endpoint",
        ],
        ["longest episode", `${(f.maxEpisodeMs / 1000).toFixed(1)} s`],
      ];
      process.stdout.write(
        `\n${textTable(["chaos figure", "value"], rows)}\nresults in ${safeName(r.run.out, 400)} (${(r.wallMs / 1000).toFixed(1)} s); figures in chaos.json; agents SIMULATED\n`,
      );
      if (f.episodesHung || f.detectorFailuresThatTriggeredRecovery || f.filesWithKey.length || !f.envErrorsExcluded)
        process.exitCode = 1;
    });
}
