/**
 * `retrace stand-in`: start the stand-in, retrace's simulated sampling model behind the OpenAI
 * chat-completions API (adapters/testing/stand-in), for offline runs of the real model path. It
 * prints its base URL and model name, serves until SIGINT/SIGTERM, then prints how many requests
 * each role made. Point runs at it with `--base-url` (presets: experiments/configs/stand-in/).
 */
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { STAND_IN_FINGERPRINT, startStandInServer, type StandInServer } from "@retrace-cua/testing/stand-in/server";
import { optionalIntFlag, optionalNumberFlag } from "./numeric-flags.ts";

/** Flags of `retrace stand-in`. */
export interface StandInFlags {
  port?: string;
  errorRate?: string;
  postCutErrorRate?: string;
  ignoreContext?: boolean;
  seed?: string;
  /** commander's negation of --no-prefix-cache (false: report 0 cached tokens). */
  prefixCache?: boolean;
}

/** Start the stand-in from CLI flags (exported for tests). */
export async function startFromFlags(flags: StandInFlags): Promise<StandInServer> {
  const port = optionalIntFlag("port", flags.port, {
    min: 0,
    max: 65535,
    expect: "expected a port from 0 to 65535 (0 = a free one)",
  });
  const errorRate = optionalNumberFlag("error-rate", flags.errorRate, {
    min: 0,
    max: 1,
    expect: "expected a share from 0 to 1, e.g. 0.2",
  });
  const postCutErrorRate = optionalNumberFlag("post-cut-error-rate", flags.postCutErrorRate, {
    min: 0,
    max: 1,
    expect: "expected a share from 0 to 1, e.g. 0.3",
  });
  const seed = optionalIntFlag("seed", flags.seed, { expect: "expected an integer" });
  return startStandInServer({
    ...(port !== undefined && { port }),
    ...(errorRate !== undefined && { errorRate }),
    ...(postCutErrorRate !== undefined && { postCutErrorRate }),
    ...(flags.ignoreContext && { ignoreContext: true }),
    ...(seed !== undefined && { seed }),
    ...(flags.prefixCache === false && { prefixCache: false as const }),
  });
}

export function register(program: Command): void {
  program
    .command("stand-in")
    .description(
      "serve the stand-in: a SIMULATED sampling model behind the OpenAI API that plays SimDesk tasks (offline runs of the model path)",
    )
    .option("--port <n>", "port on 127.0.0.1 (0 = a free one)", "0")
    .option("--error-rate <x>", "share of forward answers that are mistakes at temperature 1", "0.1")
    .option(
      "--post-cut-error-rate <x>",
      "chance that the first forward answer after a cut loses track of the state (short transition string; the detailed one quarters it)",
      "0.3",
    )
    .option(
      "--ignore-context",
      "the recovery sub-agent ignores its context (0-E, 0-R, none and contextualized then answer alike)",
    )
    .option("--seed <n>", "seed of the stream that requests without a seed draw from", "0")
    .option(
      "--no-prefix-cache",
      "report 0 cached prompt tokens (default: a simulated automatic prefix cache, per prompt_cache_key, from 1024 tokens in steps of 128)",
    )
    .action(async (flags: StandInFlags) => {
      const server = await startFromFlags(flags);
      process.stdout.write(
        `stand-in (SIMULATED model "${server.model}", system_fingerprint ${STAND_IN_FINGERPRINT}: every result from it is labelled simulated) listening at ${server.url}\n` +
          `  e.g. retrace run experiments/configs/stand-in/end-to-end.yaml --base-url ${server.url} --out runs/e2e-stand-in\n`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await server.close();
      const byRole: Record<string, number> = {};
      for (const l of server.log) byRole[l.role] = (byRole[l.role] ?? 0) + 1;
      process.stdout.write(
        `stand-in stopped after ${server.calls} request(s)${
          server.calls
            ? `: ${Object.entries(byRole)
                .map(([r, n]) => `${r} ${n}`)
                .join(", ")}`
            : ""
        }\n`,
      );
    });
}
