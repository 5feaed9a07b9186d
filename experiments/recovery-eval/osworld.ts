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
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import type { Task } from "@retrace-cua/core/task";
import { OsworldEnvironment } from "@retrace-cua/desktops/osworld/environment";
import { localOsworldProvider } from "@retrace-cua/desktops/osworld/local-provider";
import { startOsworldVm } from "@retrace-cua/desktops/osworld/provider";
import { OsworldPythonBridge } from "@retrace-cua/desktops/osworld/python-bridge";
import { createDockerClient } from "@retrace-cua/desktops/docker/engine";
import { runtimeSettings } from "@retrace-cua/core/settings";
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
