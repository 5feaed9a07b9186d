/**
 * The recovery evaluation on OSWorld (`env: { kind: osworld, tasksDir, provider }`): tasks from an
 * OSWorld evaluation_examples folder through the experiment runner's loader (tasks that need
 * OSWorld's Python code are skipped with the reason), and an {@link OsworldEnvironment} whose
 * every reset starts a fresh desktop: `provider: local` (default) = a fresh X11 desktop + retrace's
 * local control server on 127.0.0.1; `provider: { vm }` = OSWorld's docker provider (a fresh VM
 * from the qcow2 image per reset, as OSWorld's snapshot revert).
 *
 * With `env.osworldPath` (an OSWorld checkout) the recovery evaluation runs tasks through the
 * Python bridge exactly as experiment runs do (experiments/runtime/osworld.ts): tasks whose setup
 * and getters retrace runs natively but whose metrics only OSWorld's Python evaluators implement
 * become runnable, and every oracle call of theirs (the rollout's success check, N-replay
 * filtering, the genuine-error check, R_TC after recovery) is scored by OSWorld's own metric.
 */
import { resolve } from "node:path";
import type { BlobStore } from "../../src/blob-store.ts";
import type { Environment } from "../../src/environment.ts";
import { ConfigError } from "../../src/errors.ts";
import type { Task } from "../../src/task.ts";
import { OsworldEnvironment } from "../../adapters/environments/osworld/environment.ts";
import { localOsworldProvider } from "../../adapters/environments/osworld/local-provider.ts";
import { startOsworldVm } from "../../adapters/environments/osworld/provider.ts";
import { OsworldPythonBridge } from "../../adapters/environments/osworld/python-bridge.ts";
import { createDockerClient } from "../../adapters/environments/docker/engine.ts";
import { runtimeSettings } from "../../src/settings.ts";
import type { SkippedTask } from "../runner/runtime.ts";
import { DEFAULT_OSWORLD_TASKS, osworldTaskSplit } from "../runtime/osworld.ts";
import type { RecoveryEvalConfig } from "./config.ts";

/** The Python bridge of `env.osworldPath`, when its evaluators import (else why not); none without osworldPath. */
export function osworldEvalBridge(env: RecoveryEvalConfig["env"]): {
  bridge?: OsworldPythonBridge;
  python: { ok: boolean; reason?: string };
} {
  if (!env.osworldPath) return { python: { ok: false } };
  const bridge = new OsworldPythonBridge({
    osworldDir: resolve(env.osworldPath),
    ...(env.python && { python: env.python }),
  });
  const python = bridge.availableSync();
  return python.ok ? { bridge, python } : { python };
}

/** The runnable OSWorld tasks of the config's folder and the skipped ones, with the reason. */
export function osworldEvalTasks(
  env: RecoveryEvalConfig["env"],
  python = osworldEvalBridge(env).python,
): { tasks: Task[]; skipped: SkippedTask[] } {
  return osworldTaskSplit(resolve(env.tasksDir ?? DEFAULT_OSWORLD_TASKS), python);
}

/**
 * An OSWorld environment that starts a fresh desktop (local) or VM per reset, scoring through
 * OSWorld's Python evaluators when `bridge` is given ({@link osworldEvalBridge}).
 */
export function openOsworldEvalEnv(
  env: RecoveryEvalConfig["env"],
  blobs: BlobStore,
  runId: string,
  bridge?: OsworldPythonBridge,
): Environment {
  const p = env.provider ?? "local";
  const python = bridge ? { bridge } : {};
  if (p === "local")
    return new OsworldEnvironment({
      blobs,
      provider: localOsworldProvider({ blobs, width: env.width, height: env.height }),
      ...python,
    });
  if (!p.vm)
    throw new ConfigError("env.provider.vm: give the path of OSWorld's Ubuntu.qcow2", { field: "env.provider.vm" });
  const docker = createDockerClient(runtimeSettings().dockerHost);
  return new OsworldEnvironment({
    blobs,
    provider: () => startOsworldVm({ docker, vmPath: resolve(p.vm), runId, ...(p.image && { image: p.image }) }),
    ...python,
  });
}
