/** Registry of CLI commands. Add one line per command module. */
import type { Command } from "commander";

export type RegisterCommand = (program: Command) => void;

export const COMMANDS: RegisterCommand[] = [];
