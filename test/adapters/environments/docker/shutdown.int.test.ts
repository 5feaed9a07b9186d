/**
 * A process with a container desktop open that gets SIGTERM or SIGINT stops its container
 * (`docker stop` with the grace period, then removal) before it exits: afterwards no container
 * of its run is left, running or not, and the container ended on SIGTERM (its init script's trap,
 * exit code 0), not by the engine's SIGKILL after the grace period (137). The child is a real Node process opening the
 * real
 * ContainerBackend (its own run id labels the container, so containers of other runs on a
 * shared engine are told apart) and exiting through the same shutdown hooks as `retrace run`.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeSettings } from "../../../../packages/core/src/settings.ts";
import { DEFAULT_DESKTOP_IMAGE } from "../../../../packages/desktops/src/docker/container-backend.ts";
import {
  createDockerClient,
  MANAGED_LABEL,
  removeManagedContainers,
  RUN_LABEL,
} from "../../../../packages/desktops/src/docker/engine.ts";

const ROOT = resolve(import.meta.dirname, "../../../..");
const dockerHost = runtimeSettings().dockerHost;
const docker = createDockerClient(dockerHost);
const engineUp = await docker.ping().then(
  () => true,
  () => false,
);
const imageThere =
  engineUp &&
  (await docker
    .getImage(DEFAULT_DESKTOP_IMAGE)
    .inspect()
    .then(
      () => true,
      () => false,
    ));
const run = imageThere || runtimeSettings().ci;
const started: Array<{ kill(s: NodeJS.Signals): boolean }> = [];
const runIds: string[] = [];
afterAll(async () => {
  started.forEach((p) => p.kill("SIGKILL"));
  for (const id of runIds) await removeManagedContainers(docker, id).catch(() => undefined);
});

/** The child: open a container desktop, say so, then wait to be signalled. */
const CHILD = `
import { createDockerClient } from "./packages/desktops/src/docker/engine.ts";
import { ContainerBackend } from "./packages/desktops/src/docker/container-backend.ts";
const desktop = new ContainerBackend({ docker: createDockerClient(process.env.DOCKER_HOST), runId: process.argv[1] });
await desktop.freshSession({});
process.stdout.write("ready " + desktop.containerId + "\\n");
// After the shutdown hooks stopped the container (stdout on a pipe is written synchronously).
process.on("exit", () => process.stdout.write("stopped " + desktop.lastStopExitCode + "\\n"));
setInterval(() => undefined, 1000);
`;

const containersOf = async (runId: string) =>
  (
    await docker.listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`, `${RUN_LABEL}=${runId}`] } })
  ).map((c) => c.Id);

async function openAndSignal(signal: "SIGTERM" | "SIGINT") {
  const runId = `shutdown-${process.pid}-${signal.toLowerCase()}`;
  runIds.push(runId);
  const p = spawn(
    process.execPath,
    ["--conditions=retrace-dev", "--import", "tsx", "--input-type=module", "-e", CHILD, runId],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, DOCKER_HOST: dockerHost },
    },
  );
  started.push(p);
  let out = "";
  let err = "";
  p.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const ready = new Promise<string>((ok, fail) => {
    p.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /ready (\w+)/.exec(out);
      if (m) ok(m[1]);
    });
    p.on("exit", () => fail(new Error(`the child ended before its desktop was up: ${err}`)));
  });
  // "close": after the exit and its last output (the "stopped" line).
  const exited = new Promise<number | string>((r) => p.on("close", (c, s) => r(c ?? s ?? "?")));
  const id = await ready;
  const running = (await docker.getContainer(id).inspect()).State.Running;
  p.kill(signal);
  const code = await exited;
  const stopped = /stopped (\S+)/.exec(out)?.[1];
  return { id, running, code, stopped, left: await containersOf(runId), err };
}

describe.runIf(run)("a container desktop ended by a signal", () => {
  beforeAll(() => {
    if (!imageThere)
      throw new Error(
        `no Docker engine at DOCKER_HOST=${dockerHost ?? "(default)"} or no ${DEFAULT_DESKTOP_IMAGE} image: run \`. .ci/podman-setup.sh\``,
      );
  });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`stops and removes its container after ${signal}`, async () => {
      const r = await openAndSignal(signal);
      expect(r.running).toBe(true);
      // Ended by the signal: its exit code, after the container was stopped and removed.
      expect(r.code, r.err).toBe(signal === "SIGTERM" ? 143 : 130);
      // Graceful: the init script's trap ended the desktop on SIGTERM (exit 0), no SIGKILL after the grace period
      // (137).
      expect(r.stopped, r.err).toBe("0");
      expect(r.left).toEqual([]);
      await expect(docker.getContainer(r.id).inspect()).rejects.toThrow();
    }, 120_000);
  }
});
