/**
 * The `retrace` command line with every command registered (tests and `buildProgram` users). Each
 * command lives in `experiments/commands/<name>.ts` and exports `register(program)`; this file
 * only wires them up. The launcher (experiments/bin/retrace.mjs) runs cli-lazy.ts instead, which
 * loads a command's module only when that command runs. The CLI owns the terminal.
 */
import type { Command } from "commander";
import { COMMANDS } from "./commands/index.ts";
import { baseProgram, runProgram } from "./cli-program.ts";

/** Build the program (exported for tests). */
export function buildProgram(): Command {
  const program = baseProgram();
  for (const register of COMMANDS) register(program);
  return program;
}

/** Entry point: parse argv, run, and turn errors into one clear line and an exit code. */
export async function main(argv: string[]): Promise<void> {
  await runProgram(buildProgram(), argv);
}
