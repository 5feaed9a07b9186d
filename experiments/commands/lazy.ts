/**
 * The CLI's command modules, each loaded only when its command runs: `retrace --version` and
 * `--help` load none of them (the top-level help comes from summaries.ts, generated from the full
 * program by `npm run cli:summaries` and checked by test/experiments/cli-lazy.test.ts), and
 * `retrace report ...` loads the report's code only. Same order as COMMANDS in index.ts.
 */
import type { RegisterCommand } from "./index.ts";

/** One command module: its file (for the summaries' `module` field) and how to load its register functions. */
export interface CommandModule {
  file: string;
  load: () => Promise<RegisterCommand[]>;
}

export const COMMAND_MODULES: CommandModule[] = [
  { file: "run", load: async () => [(await import("./run.ts")).register] },
  { file: "sweep", load: async () => [(await import("./sweep.ts")).register] },
  { file: "report", load: async () => [(await import("./report.ts")).register] },
  { file: "demo", load: async () => [(await import("./demo.ts")).register] },
  { file: "run-model", load: async () => [(await import("./run-model.ts")).register] },
  { file: "tasks", load: async () => [(await import("./tasks.ts")).register] },
  { file: "simdesk", load: async () => [(await import("./simdesk.ts")).register] },
  { file: "dataset", load: async () => [(await import("./dataset.ts")).register] },
  { file: "eval-recovery", load: async () => [(await import("./eval-recovery.ts")).register] },
  { file: "env", load: async () => [(await import("./env.ts")).register] },
  { file: "chaos", load: async () => [(await import("./chaos.ts")).register] },
  { file: "queue", load: async () => [(await import("./run.ts")).registerQueue] },
  { file: "stand-in", load: async () => [(await import("./stand-in.ts")).register] },
  { file: "export", load: async () => [(await import("./export.ts")).register] },
  { file: "osworld-check", load: async () => [(await import("./osworld-check.ts")).register] },
  { file: "tune", load: async () => [(await import("./tune.ts")).register] },
];
