/**
 * The tasks and the environment of a recovery-eval config: its tasks in config order (OSWorld tasks the environment
 * cannot run are reported, not failed), and a fresh environment of its kind.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import type { Task } from "@retrace-cua/core/task";
import { createEnvironmentFactory, tasksForEnvironment } from "@retrace-cua/environments/registry";
import type { RecoveryEvalConfig } from "./config.ts";
import { createEvalSimDesk } from "./simdesk.ts";
import { openOsworldEvalEnv, osworldEvalBridge, osworldEvalTasks } from "./osworld.ts";

/** The tasks of the config's environment, in config order. */
export function selectTasks(config: RecoveryEvalConfig, onSkipped?: (task: string, reason: string) => void): Task[] {
  let all: readonly Task[];
  const skippedIds = new Set<string>();
  if (config.env.kind === "osworld") {
    const split = osworldEvalTasks(config.env, osworldEvalBridge(config.env).python);
    const wanted = config.env.tasks && new Set(config.env.tasks);
    for (const s of split.skipped) {
      skippedIds.add(s.task);
      if (!wanted || wanted.has(s.task)) onSkipped?.(s.task, s.reason);
    }
    all = split.tasks;
  } else all = tasksForEnvironment(config.env.kind);
  const byId = new Map(all.map((t) => [t.id, t]));
  const tasks = config.env.tasks
    ? config.env.tasks
        .map((id, i) => {
          const t = byId.get(id);
          if (!t && skippedIds.has(id)) return undefined; // reported through onSkipped
          if (!t)
            throw new ConfigError(
              `env.tasks.${i}: "${id}" is not a ${config.env.kind} task (\`retrace tasks\` lists them)`,
              { field: `env.tasks.${i}` },
            );
          return t;
        })
        .filter((t): t is Task => t !== undefined)
    : [...all];
  return config.env.limit ? tasks.slice(0, config.env.limit) : tasks;
}

/** A fresh environment of the config's kind; SimDesk keeps state snapshots in `stateDir`. */
export async function openEnv(config: RecoveryEvalConfig, blobs: BlobStore, stateDir: string): Promise<Environment> {
  const size = { width: config.env.width, height: config.env.height };
  if (config.env.kind === "simdesk") return createEvalSimDesk(blobs, stateDir, size);
  if (config.env.kind === "osworld")
    return openOsworldEvalEnv(config.env, blobs, config.name, osworldEvalBridge(config.env).bridge);
  return createEnvironmentFactory(config.env.kind, { blobs, ...size })();
}
