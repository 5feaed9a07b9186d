/**
 * The experiment runtime on real desktops ("x11": apps under Xvfb on this host; "docker": a
 * desktop container per episode): the real-app tasks, and agents from the registry acting on
 * them. Real apps have no ground truth, so a `sim` detector is the task-plan divergence detector
 * and a `sim` selector picks E-1 (both labelled simulated); model agents run for real, including
 * the model recovery sub-agent. A run that asks for model restoration with a simulated recovery
 * sub-agent is refused up front (set `restoration: replay`, or give a model recoverer): the
 * requested mode is never changed silently.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { runtimeSettings } from "@retrace-cua/core/settings";
import { createEnvironmentFactory, tasksForEnvironment } from "@retrace-cua/environments/registry";
import { checkConfigAgents } from "../config/agents.ts";
import type { ExperimentRuntime } from "../runner/runtime.ts";
import { registryAgents } from "./simdesk.ts";

/** Options of {@link withDesktopEnv}. */
export interface DesktopRuntimeOptions {
  /** DOCKER_HOST for "docker". @default runtimeSettings().dockerHost */
  dockerHost?: string;
  /** Run id for container labels. */
  runId?: string;
}

/** The runtime `base` (SimDesk's) on real desktops of `kind`. */
export function withDesktopEnv(
  base: ExperimentRuntime,
  kind: "x11" | "docker",
  options: DesktopRuntimeOptions = {},
): ExperimentRuntime {
  return {
    ...base,
    ...registryAgents(kind),
    checkConfig: (config) => void checkConfigAgents(config, kind),
    groundTruthStability: undefined,
    // No ground truth: replayed prefixes are checked by SSIM >= 0.99 plus probe reports when
    // recorded (experiments/ideal/forward-loop.ts replayMatches), never byte equality.
    sameState: undefined,
    tasks(env) {
      if (env.kind !== kind && env.kind !== "simdesk")
        throw new ConfigError(`config.env.kind: "${env.kind}" but the run uses --env ${kind}`, { field: "env.kind" });
      return [...tasksForEnvironment(kind)];
    },
    createEnv: (_env, blobs) =>
      createEnvironmentFactory(kind, {
        blobs,
        dockerHost: options.dockerHost ?? runtimeSettings().dockerHost,
        runId: options.runId,
      })(),
  };
}
