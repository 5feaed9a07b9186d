/**
 * The experiment runtime on the browser environment ("browser": headless Chromium on the
 * built-in web apps, or on a user's own apps with `env.tasksFile`). Agents come from the registry
 * as on the real desktops: a `sim` forward agent follows the task's reference plan with seeded
 * slips, a `sim` detector is the plan-divergence detector and a `sim` selector picks E-1 (all
 * labelled simulated); model agents run for real. Restoration by `snapshot` (server state,
 * cookies, localStorage, URL, form values) and `replay` (a fresh context) work with simulated
 * agents; `model` restoration needs a model recovery sub-agent, as on the real desktops.
 */
import { resolve } from "node:path";
import { ConfigError } from "@retrace-cua/core/errors";
import type { Task } from "@retrace-cua/core/task";
import { createEnvironmentFactory } from "@retrace-cua/environments/registry";
import { BROWSER_TASKS } from "@retrace-cua/browser/tasks/index";
import { loadBrowserTaskFile } from "@retrace-cua/browser/tasks/file";
import { checkTaskCheckers } from "@retrace-cua/browser/checker";
import { checkConfigAgents } from "../config/agents.ts";
import type { EnvSpec } from "../config/schema.ts";
import type { ExperimentRuntime } from "../runner/runtime.ts";
import { registryAgents } from "./simdesk.ts";

/** The tasks of a browser env spec: the built-in suite, or the user's task file. */
export function browserTasks(env: Pick<EnvSpec, "tasksFile">): Task[] {
  return env.tasksFile ? loadBrowserTaskFile(resolve(env.tasksFile)) : [...BROWSER_TASKS];
}

/** The runtime `base` (SimDesk's: runner hooks, episode folders) on the browser environment. */
export function withBrowserEnv(base: ExperimentRuntime): ExperimentRuntime {
  return {
    ...base,
    ...registryAgents("browser"),
    checkConfig: (config) => void checkConfigAgents(config, "browser"),
    groundTruthStability: undefined,
    sameState: undefined,
    tasks(env) {
      if (env.kind !== "browser" && env.kind !== "simdesk")
        throw new ConfigError(`config.env.kind: "${env.kind}" but the run uses --env browser`, { field: "env.kind" });
      return browserTasks(env);
    },
    checkTasks: checkTaskCheckers,
    createEnv: (_env, blobs) => createEnvironmentFactory("browser", { blobs })(),
  };
}
