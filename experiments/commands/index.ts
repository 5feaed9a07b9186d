/** Registry of CLI commands. Add one line per command module. */
import type { Command } from "commander";
import { register as registerRun, registerQueue } from "./run.ts";
import { register as registerSweep } from "./sweep.ts";
import { register as registerReport } from "./report.ts";
import { register as registerDemo } from "./demo.ts";
import { register as registerRunModel } from "./run-model.ts";
import { register as registerTasks } from "./tasks.ts";
import { register as registerSimDesk } from "./simdesk.ts";
import { register as registerDataset } from "./dataset.ts";
import { register as registerEvalRecovery } from "./eval-recovery.ts";
import { register as registerEnv } from "./env.ts";
import { register as registerChaos } from "./chaos.ts";
import { register as registerStandIn } from "./stand-in.ts";
import { register as registerExport } from "./export.ts";
import { register as registerOsworldCheck } from "./osworld-check.ts";
import { register as registerTune } from "./tune.ts";

export type RegisterCommand = (program: Command) => void;

export const COMMANDS: RegisterCommand[] = [
  registerRun,
  registerSweep,
  registerReport,
  registerDemo,
  registerRunModel,
  registerTasks,
  registerSimDesk,
  registerDataset,
  registerEvalRecovery,
  registerEnv,
  registerChaos,
  registerQueue,
  registerStandIn,
  registerExport,
  registerOsworldCheck,
  registerTune,
];
