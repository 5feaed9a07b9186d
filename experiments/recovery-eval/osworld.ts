/**
 * The recovery evaluation on OSWorld (`env: { kind: osworld, tasksDir, provider }`): tasks from an
 * OSWorld evaluation_examples folder through the experiment runner's loader (tasks that need
 * OSWorld's Python code are skipped with the reason), and an {@link OsworldEnvironment} whose
 * every reset starts a fresh desktop: `provider: local` (default) = a fresh X11 desktop + retrace's
 * local control server on 127.0.0.1; `provider: { vm }` = OSWorld's docker provider (a fresh VM
 * from the qcow2 image per reset, as OSWorld's snapshot revert).
 */
import { resolve } from "node:path";
import type { BlobStore } from "../../src/blob-store.ts";
import type { Environment } from "../../src/environment.ts";
import { ConfigError } from "../../src/errors.ts";
import type { Task } from "../../src/task.ts";
import { OsworldEnvironment } from "../../adapters/environments/osworld/environment.ts";
import { localOsworldProvider } from "../../adapters/environments/osworld/local-provider.ts";
import { startOsworldVm } from "../../adapters/environments/osworld/provider.ts";
import { createDockerClient } from "../../adapters/environments/docker/engine.ts";
import { runtimeSettings } from "../../src/settings.ts";
import type { SkippedTask } from "../runner/runtime.ts";
import { DEFAULT_OSWORLD_TASKS, osworldTaskSplit } from "../runtime/osworld.ts";
import type { RecoveryEvalConfig } from "./config.ts";

/** The runnable OSWorld tasks of the config's folder and the skipped ones, with the reason. */
export function osworldEvalTasks(env: RecoveryEvalConfig["env"]): { tasks: Task[]; skipped: SkippedTask[] } {
  return osworldTaskSplit(resolve(env.tasksDir ?? DEFAULT_OSWORLD_TASKS));
}

/** An OSWorld environment that starts a fresh desktop (local) or VM per reset. */
export function openOsworldEvalEnv(env: RecoveryEvalConfig["env"], blobs: BlobStore, runId: string): Environment {
  const p = env.provider ?? "local";
  if (p === "local") return new OsworldEnvironment({ blobs, provider: localOsworldProvider({ blobs, width: env.width, height: env.height }) });
  if (!p.vm) throw new ConfigError("env.provider.vm: give the path of OSWorld's Ubuntu.qcow2", { field: "env.provider.vm" });
  const docker = createDockerClient(runtimeSettings().dockerHost);
  return new OsworldEnvironment({ blobs, provider: () => startOsworldVm({ docker, vmPath: resolve(p.vm), runId, ...(p.image && { image: p.image }) }) });
}
