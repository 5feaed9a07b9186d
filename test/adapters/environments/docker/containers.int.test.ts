import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobStore } from "../../../../packages/core/src/blob-store.ts";
import { runtimeSettings } from "../../../../packages/core/src/settings.ts";
import { desktopTask } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";
import type { ContainerBackend } from "../../../../packages/desktops/src/docker/container-backend.ts";
import { DEFAULT_DESKTOP_IMAGE } from "../../../../packages/desktops/src/docker/container-backend.ts";
import { createDockerDesktop } from "../../../../packages/desktops/src/docker/create.ts";
import {
  createDockerClient,
  MANAGED_LABEL,
  removeManagedContainers,
  RUN_LABEL,
} from "../../../../packages/desktops/src/docker/engine.ts";

// The engine is whatever DOCKER_HOST names (CI: podman's API service started by .ci/podman-setup.sh).
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
// Outside CI a machine without the engine or image skips; in CI a missing one fails loudly.
const run = imageThere || runtimeSettings().ci;

describe.runIf(run)("container desktops through dockerode", () => {
  const dir = mkdtempSync(join(tmpdir(), "retrace-docker-test-"));
  const blobs = new BlobStore({ dir: join(dir, "blobs") });
  const runId = `test-${process.pid}`;

  beforeAll(() => {
    if (!imageThere)
      throw new Error(
        `no Docker engine at DOCKER_HOST=${dockerHost ?? "(default)"} or no ${DEFAULT_DESKTOP_IMAGE} image: run \`. .ci/podman-setup.sh\``,
      );
  });
  afterAll(async () => {
    await removeManagedContainers(docker, runId);
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts two desktops in parallel, acts in both, reads their files and removes them", async () => {
    const a = createDockerDesktop({ blobs, docker, runId });
    const b = createDockerDesktop({ blobs, docker, runId });
    const taskA = desktopTask("mousepad-append-line")!;
    const taskB = desktopTask("mousepad-replace-all-text")!;
    const t0 = Date.now();
    await Promise.all([a.reset(taskA), b.reset(taskB)]);
    const startMs = Date.now() - t0;
    const ids = [(a.desktop as ContainerBackend).containerId!, (b.desktop as ContainerBackend).containerId!];
    expect(new Set(ids).size).toBe(2);
    const labelled = await docker.listContainers({
      filters: { label: [`${MANAGED_LABEL}=true`, `${RUN_LABEL}=${runId}`] },
    });
    expect(labelled.map((c) => c.Id).sort()).toEqual([...ids].sort());

    const stepMs: number[] = [];
    await Promise.all(
      [
        [a, taskA],
        [b, taskB],
      ].map(async ([env, task]) => {
        const e = env as typeof a;
        for (const act of (task as typeof taskA).plan) {
          await e.step(act);
          stepMs.push(e.lastTimings!.totalMs);
        }
      }),
    );
    expect(await a.evaluate()).toMatchObject({ score: 1 });
    expect(await b.evaluate()).toMatchObject({ score: 1 });
    expect((await b.desktop.readHomeFile("draft.txt"))?.toString().trim()).toBe("final version");
    process.stderr.write(
      `docker timings: two desktops ready in ${startMs} ms (container start ${(a.desktop as ContainerBackend).lastStartMs}/${(b.desktop as ContainerBackend).lastStartMs} ms), step median ${stepMs.sort((x, y) => x - y)[Math.floor(stepMs.length / 2)]} ms\n`,
    );

    await Promise.all([a.close(), b.close()]);
    const left = await docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${runId}`] } });
    expect(left).toEqual([]);
  }, 120_000);

  it("gives a fresh container on reset, so files are pristine again", async () => {
    const env = createDockerDesktop({ blobs, docker, runId });
    const task = desktopTask("mousepad-clear-file")!;
    await env.reset(task);
    const first = (env.desktop as ContainerBackend).containerId;
    for (const act of task.plan) await env.step(act);
    expect((await env.evaluate()).score).toBe(1);
    await env.reset(task);
    expect((env.desktop as ContainerBackend).containerId).not.toBe(first);
    expect((await env.desktop.readHomeFile("scratch.txt"))?.toString()).toBe("tmp 1\ntmp 2\ntmp 3\n");
    await env.close();
  }, 120_000);

  it("finds and removes labelled leftovers of a crashed run (what `retrace env gc` does)", async () => {
    const leftover = await docker.createContainer({
      Image: DEFAULT_DESKTOP_IMAGE,
      Labels: { [MANAGED_LABEL]: "true", [RUN_LABEL]: runId },
      Cmd: ["true"],
    });
    const removed = await removeManagedContainers(docker, runId);
    expect(removed).toContain(leftover.id);
    await expect(docker.getContainer(leftover.id).inspect()).rejects.toThrow();
  });

  it("removes its container when the host process gets SIGTERM", async () => {
    const childRun = `${runId}-sigterm`;
    const mod = (p: string) => JSON.stringify(new URL(p, import.meta.url).pathname);
    const script = `
      import { createDockerDesktop } from ${mod("../../../../packages/desktops/src/docker/create.ts")};
      import { BlobStore } from ${mod("../../../../packages/core/src/blob-store.ts")};
      import { desktopTask } from ${mod("../../../../packages/desktops/src/desktop-tasks/tasks.ts")};
      const env = createDockerDesktop({ blobs: new BlobStore({ dir: ${JSON.stringify(join(dir, "child-blobs"))} }), dockerHost: ${JSON.stringify(dockerHost ?? "")} || undefined, runId: ${JSON.stringify(childRun)} });
      await env.reset(desktopTask("galculator-add"));
      process.stdout.write("ready\\n");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(
      process.execPath,
      ["--conditions=retrace-dev", "--import", "tsx", "--input-type=module", "-e", script],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d) => String(d).includes("ready") && resolve());
      child.once("exit", (code) => reject(new Error(`child exited early (${code})`)));
    });
    const before = await docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${childRun}`] } });
    expect(before.length).toBe(1);
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    const after = await docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${childRun}`] } });
    expect(after).toEqual([]);
  }, 90_000);
});
