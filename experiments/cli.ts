/**
 * The `retrace` command line. Each command lives in `experiments/commands/<name>.ts` and exports
 * `register(program)`; this file only wires them up. The CLI owns the terminal.
 */
import { Command, CommanderError } from "commander";
import { ConfigError, describeError } from "../src/errors.ts";
import { COMMANDS } from "./commands/index.ts";
import { RunFailedError } from "./runner/errors.ts";
import { terminalText } from "./commands/terminal.ts";
import { redactText } from "../src/secrets.ts";
import { packageVersion } from "./runner/experiment.ts";

/** Build the program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("retrace")
    .description("Online recovery for computer-use agents, and the experiments that show whether it pays off.")
    // Commander's own errors (unknown flag, bad choice, missing argument) as one line, like ours.
    .configureOutput({ outputError: (text, write) => write(`retrace: ${text.replace(/^error: /, "").trim().replace(/\s*\n\s*/g, " ")} (run with --help for usage)\n`) })
    .version(packageVersion(), "-V, --version", "print the retrace version")
    .exitOverride();
  for (const register of COMMANDS) register(program);
  return program;
}

/** Entry point: parse argv, run, and turn errors into one clear line and an exit code. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with 0; an unknown flag, a bad choice or a missing argument is bad
      // input, which exits 2 like every ConfigError (docs/cli.md).
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    const message = err instanceof ConfigError || err instanceof RunFailedError ? err.message : describeError(err);
    // One line, whatever it quotes: control characters escaped, huge names shortened.
    // Redacted like every file retrace writes: a URL's password, a registered key, anything key-like.
    process.stderr.write(`retrace: ${terminalText(redactText(message)).replace(/\s*\n\s*/g, " ").trim()}\n`);
    if (process.env.RETRACE_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
  }
}
