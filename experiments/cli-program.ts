/**
 * The parts of the `retrace` program that need no command module: the program itself (name,
 * description, one-line errors, --version) and running it with one clear error line and an exit
 * code. cli.ts (every command, for tests) and cli-lazy.ts (the launcher's) build on it.
 */
import { Command, CommanderError } from "commander";
import { ConfigError, describeError } from "@retrace-cua/core/errors";
import { diskFullOf } from "@retrace-cua/core/store/write-file";
import { setDeprecationSink } from "@retrace-cua/core/deprecation";
import { RunFailedError } from "./runner/errors.ts";
import { terminalText } from "./commands/terminal.ts";
import { packageVersion } from "./runner/package-info.ts";
import { redactText } from "@retrace-cua/core/secrets";
import { runtimeSettings } from "@retrace-cua/core/settings";

/** The program without its commands. */
export function baseProgram(): Command {
  return (
    new Command("retrace")
      .description("Online recovery for computer-use agents, and the experiments that show whether it pays off.")
      // Commander's own errors (unknown flag, bad choice, missing argument) as one line, like ours.
      .configureOutput({
        outputError: (text, write) =>
          write(
            `retrace: ${text
              .replace(/^error: /, "")
              .trim()
              .replace(/\s*\n\s*/g, " ")} (run with --help for usage)\n`,
          ),
      })
      .version(packageVersion(), "-V, --version", "print the retrace version")
      // The environment's settings (e.g. RETRACE_SHARP_CONCURRENCY) are bad input like a flag: one line, exit 2, before any command runs.
      .hook("preAction", () => void runtimeSettings())
      .exitOverride()
  );
}

/** Parse argv and run; turn errors into one clear line and an exit code. */
export async function runProgram(program: Command, argv: string[]): Promise<void> {
  // The CLI owns the terminal: an old flag or config field name warns as one plain line on stderr.
  setDeprecationSink((message) => process.stderr.write(`retrace: warning: ${terminalText(message)}\n`));
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with 0; an unknown flag, a bad choice or a missing argument is bad
      // input, which exits 2 like every ConfigError (docs/cli.md).
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    // A full disk is one sentence whatever raised it (a bare "ENOSPC: no space left on device, write" names no file).
    const full =
      err instanceof ConfigError || /the disk is full \(/.test(String((err as Error)?.message))
        ? undefined
        : diskFullOf(err);
    const message = full
      ? full.message
      : err instanceof ConfigError || err instanceof RunFailedError
        ? err.message
        : describeError(err);
    // One line, whatever it quotes: control characters escaped, huge names shortened.
    // Redacted like every file retrace writes: a URL's password, a registered key, anything key-like.
    process.stderr.write(
      `retrace: ${terminalText(redactText(message))
        .replace(/\s*\n\s*/g, " ")
        .trim()}\n`,
    );
    if (process.env.RETRACE_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
  }
}
