/**
 * `retrace env ...`: real-desktop helpers. `env gc` removes containers a crashed run left behind
 * (label retrace.managed=true); `env tasks` lists the real-app tasks; `env check` says what the
 * one-time setup still lacks. Re-exports {@link withDesktopEnv} (experiments/runtime/desktop.ts),
 * which points an experiment runtime at the "x11" or "docker" environments.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { ConfigError } from "@retrace-cua/core/errors";
import { runtimeSettings } from "@retrace-cua/core/settings";
import { DESKTOP_TASKS } from "@retrace-cua/desktops/desktop-tasks/tasks";
import { DEFAULT_DESKTOP_IMAGE } from "@retrace-cua/desktops/docker/container-backend";
import { createDockerClient, removeManagedContainers } from "@retrace-cua/desktops/docker/engine";
import { textTable } from "./run-options.ts";

export { withDesktopEnv, type DesktopRuntimeOptions } from "../runtime/desktop.ts";

function check(): string[][] {
  const have = (cmd: string) => {
    try {
      execFileSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" });
      return "ok";
    } catch {
      return "missing";
    }
  };
  const rows = [
    "Xvfb",
    "xdotool",
    "matchbox-window-manager",
    "dbus-daemon",
    "mousepad",
    "galculator",
    "gnumeric",
    "ssconvert",
    "xprop",
    "xclip",
  ].map((c) => [c, have(c)]);
  rows.push(["/usr/bin/import (imagemagick)", existsSync("/usr/bin/import") ? "ok" : "missing"]);
  rows.push([
    "pyatspi (python3-pyatspi)",
    (() => {
      try {
        execFileSync("/usr/bin/python3", ["-c", "import pyatspi"], { stdio: "ignore" });
        return "ok";
      } catch {
        return "missing";
      }
    })(),
  ]);
  if (process.getuid?.() === 0)
    rows.push([
      "user cua",
      (() => {
        try {
          execFileSync("id", ["cua"], { stdio: "ignore" });
          return "ok";
        } catch {
          return "missing: useradd -m cua";
        }
      })(),
    ]);
  rows.push(["podman", have("podman")]);
  return rows;
}

export function register(program: Command): void {
  const env = program
    .command("env")
    .description("real desktops: clean up containers, list real-app tasks, check the one-time setup");
  env
    .command("gc")
    .description(
      "remove containers labelled retrace.managed=true (leftovers of crashed runs); DOCKER_HOST picks the engine",
    )
    .option("--run <id>", "only containers of this run id")
    .action(async (flags: { run?: string }) => {
      const host = runtimeSettings().dockerHost;
      const docker = createDockerClient(host);
      await docker.ping().catch((err: Error) => {
        throw new ConfigError(
          `no Docker engine at ${host ?? "/var/run/docker.sock"} (${err.message.split("\n")[0]}); set DOCKER_HOST, e.g. after \`. .ci/podman-setup.sh\``,
          { field: "DOCKER_HOST" },
        );
      });
      const removed = await removeManagedContainers(docker, flags.run);
      process.stdout.write(
        `removed ${removed.length} container(s)${removed.length ? `: ${removed.map((id) => id.slice(0, 12)).join(" ")}` : ""}\n`,
      );
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
      const engine = await docker.ping().then(
        () => "ok",
        (e: Error) => `unreachable (${e.message.split("\n")[0]})`,
      );
      rows.push([`engine at DOCKER_HOST=${runtimeSettings().dockerHost ?? "(default socket)"}`, engine]);
      if (engine === "ok")
        rows.push([
          `image ${DEFAULT_DESKTOP_IMAGE}`,
          await docker
            .getImage(DEFAULT_DESKTOP_IMAGE)
            .inspect()
            .then(
              () => "ok",
              () => "missing: experiments/docker/build-image.sh",
            ),
        ]);
      process.stdout.write(textTable(["component", "status"], rows) + "\n");
    });
}
