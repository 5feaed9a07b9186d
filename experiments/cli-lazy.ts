/**
 * The launcher's `retrace`: start-up is a feature. `--version` and `--help` load no command
 * module (the top-level help lists commands from commands/summaries.ts); `retrace <command> ...`
 * loads that command's module only (commands/lazy.ts). Same commands, flags and help text as
 * cli.ts's full program (test/experiments/cli-lazy.test.ts).
 */
import { Help, type Command } from "commander";
import { baseProgram, runProgram } from "./cli-program.ts";
import { COMMAND_MODULES } from "./commands/lazy.ts";
import { COMMAND_SUMMARIES } from "./commands/summaries.ts";
import { InternalError } from "@retrace-cua/core/errors";

/** The program for `argv`: the named command's real module, or stubs that only describe each command. */
export async function buildLazyProgram(argv: string[]): Promise<Command> {
  const program = baseProgram();
  const words = argv.slice(2).filter((a) => !a.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  const summary = COMMAND_SUMMARIES.find((c) => c.name === name);
  if (summary) {
    const module = COMMAND_MODULES.find((m) => m.file === summary.module);
    if (!module)
      throw new InternalError(
        `commands/summaries.ts names module ${summary.module}, which commands/lazy.ts does not list; run npm run cli:summaries`,
      );
    for (const register of await module.load()) register(program);
    return program;
  }
  const terms = new Map<Command, string>();
  for (const s of COMMAND_SUMMARIES)
    terms.set(program.command(s.name).description(s.description).allowUnknownOption().allowExcessArguments(), s.term);
  program.configureHelp({
    subcommandTerm(this: Help, cmd: Command): string {
      return terms.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
    },
  });
  return program;
}

/** Entry point of the launcher. */
export async function main(argv: string[]): Promise<void> {
  await runProgram(await buildLazyProgram(argv), argv);
}
