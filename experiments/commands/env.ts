/**
 * `retrace env ...`: real-desktop helpers. `env gc` removes containers a crashed run left behind
 * (label retrace.managed=true); `env tasks` lists the real-app tasks; `env check` says what the
 * one-time setup still lacks. Also exports {@link withDesktopEnv}, which points an experiment
 * runtime at the "x11" or "docker" environments with the same configs as SimDesk.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { ConfigError } from "../../src/errors.ts";
import { runtimeSettings } from "../../src/settings.ts";
import { logger } from "../../src/logger.ts";
import type { RecoveryPolicy } from "../../src/recovery.ts";
import type { RecoveryStepSelector } from "../../src/selector.ts";
import { DESKTOP_TASKS } from "../../adapters/environments/desktop-tasks/tasks.ts";
import { createPlanDivergenceDetector } from "../../adapters/environments/desktop-tasks/plan-detector.ts";
import { DEFAULT_DESKTOP_IMAGE } from "../../adapters/environments/docker/container-backend.ts";
import { createDockerClient, removeManagedContainers } from "../../adapters/environments/docker/engine.ts";
import { createEnvironmentFactory, tasksForEnvironment } from "../../adapters/environments/registry.ts";
import type { ExperimentRuntime } from "../runner/runtime.ts";
import { textTable } from "./run-options.ts";

/** Options of {@link withDesktopEnv}. */
export interface DesktopRuntimeOptions {
  /** DOCKER_HOST for "docker". @default runtimeSettings().dockerHost */
  dockerHost?: string;
  /** Run id for container labels. */
  runId?: string;
}

/**
 * The runtime `base` (SimDesk's) with real desktops: tasks and environments of `kind`, the
 * simulated plan-divergence detector, and error-minus-1 step selection. Real apps have no ground
 * truth, so a simulated recoverer cannot restore them by UI actions: episodes whose options say
 * `restoration: "model"` (the default) run with `"replay"` instead (reset + replay of the kept
 * actions), which is what the same SimDesk configs then measure on real apps.
 */
export function withDesktopEnv(base: ExperimentRuntime, kind: "x11" | "docker", options: DesktopRuntimeOptions = {}): ExperimentRuntime {
  const refuse: RecoveryPolicy = {
    name: "no-model-restoration(real desktop)",
    simulated: true,
    async propose() {
      return { actions: [], restored: false, failure: { kind: "refused", message: `simulated model-based restoration needs SimDesk's ground truth; set restoration: "replay" for env ${kind}` } };
    },
  };
  const selector: RecoveryStepSelector = {
    name: "error-minus-1(real desktop)",
    simulated: true,
    async select(input) {
      return { step: Math.max(0, input.errorStep - 1), reason: "the step before the detected error" };
    },
  };
  return {
    ...base,
    groundTruthStability: undefined,
    sameState: undefined,
    tasks(env) {
      if (env.kind !== kind && env.kind !== "simdesk") throw new ConfigError(`config.env.kind: "${env.kind}" but the run uses --env ${kind}`, { field: "env.kind" });
      return [...tasksForEnvironment(kind)];
    },
    createEnv: (_env, blobs) => createEnvironmentFactory(kind, { blobs, dockerHost: options.dockerHost ?? runtimeSettings().dockerHost, runId: options.runId })(),
    runEpisode: (input) => {
      const restoration = input.options.restoration ?? "model";
      if (restoration === "model") logger.info({ kind }, "real desktop: restoration model -> replay");
      return base.runEpisode({ ...input, options: { ...input.options, restoration: restoration === "model" ? "replay" : restoration } });
    },
    detector: (_spec, ctx) => createPlanDivergenceDetector({ task: ctx.task }),
    recoveryPolicy: () => refuse,
    selector: () => selector,
  };
}

function check(): string[][] {
  const have = (cmd: string) => {
    try {
      execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
      return "ok";
    } catch {
      return "missing";
    }
  };
  const rows = ["Xvfb", "xdotool", "matchbox-window-manager", "dbus-daemon", "mousepad", "galculator", "gnumeric", "ssconvert", "xprop", "xclip"].map((c) => [c, have(c)]);
  rows.push(["/usr/bin/import (imagemagick)", existsSync("/usr/bin/import") ? "ok" : "missing"]);
  rows.push(["pyatspi (python3-pyatspi)", (() => { try { execFileSync("/usr/bin/python3", ["-c", "import pyatspi"], { stdio: "ignore" }); return "ok"; } catch { return "missing"; } })()]);
  if (process.getuid?.() === 0) rows.push(["user cua", (() => { try { execFileSync("id", ["cua"], { stdio: "ignore" }); return "ok"; } catch { return "missing: useradd -m cua"; } })()]);
  rows.push(["podman", have("podman")]);
  return rows;
}

export function register(program: Command): void {
  const env = program.command("env").description("real desktops: clean up containers, list real-app tasks, check the one-time setup");
  env
    .command("gc")
    .description("remove containers labelled retrace.managed=true (leftovers of crashed runs); DOCKER_HOST picks the engine")
    .option("--run <id>", "only containers of this run id")
    .action(async (flags: { run?: string }) => {
      const host = runtimeSettings().dockerHost;
      const docker = createDockerClient(host);
      await docker.ping().catch((err: Error) => {
        throw new ConfigError(`no Docker engine at ${host ?? "/var/run/docker.sock"} (${err.message.split("\n")[0]}); set DOCKER_HOST, e.g. after \`. .ci/podman-setup.sh\``, { field: "DOCKER_HOST" });
      });
      const removed = await removeManagedContainers(docker, flags.run);
      process.stdout.write(`removed ${removed.length} container(s)${removed.length ? `: ${removed.map((id) => id.slice(0, 12)).join(" ")}` : ""}\n`);
    });
  env
    .command("tasks")
    .description("list the real-app tasks (for --env x11 and --env docker)")
    .action(() => {
      const rows = DESKTOP_TASKS.map((t) => [t.id, (t.apps ?? []).join(","), String(t.plan.length), t.horizon]);
      process.stdout.write(textTable(["id", "apps", "steps", "horizon"], rows) + `\n${DESKTOP_TASKS.length} tasks\n`);
    });
  env
    .command("check")
    .description("say which parts of the real-desktop setup are present")
    .action(async () => {
      const rows = check();
      const docker = createDockerClient(runtimeSettings().dockerHost);
      const engine = await docker.ping().then(() => "ok", (e: Error) => `unreachable (${e.message.split("\n")[0]})`);
      rows.push([`engine at DOCKER_HOST=${runtimeSettings().dockerHost ?? "(default socket)"}`, engine]);
      if (engine === "ok") rows.push([`image ${DEFAULT_DESKTOP_IMAGE}`, await docker.getImage(DEFAULT_DESKTOP_IMAGE).inspect().then(() => "ok", () => "missing: experiments/docker/build-image.sh")]);
      process.stdout.write(textTable(["component", "status"], rows) + "\n");
    });
}
