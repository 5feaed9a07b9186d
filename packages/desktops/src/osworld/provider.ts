/**
 * OSWorld's docker provider through dockerode: `happysixd/osworld-docker` runs the OSWorld VM
 * (QEMU) with the qcow2 image mounted read-only at /System.qcow2, ports 5000 (control server),
 * 8006 (VNC web), 9222 (Chromium devtools) and 8080 (VLC) published on free host ports, /dev/kvm
 * passed through when present (else `KVM=N`, very slow), readiness = /screenshot answers.
 * Port allocation holds a lock file across processes, as OSWorld's FileLock does, and also
 * skips ports reserved in this process and ports published by running containers.
 */
import type Docker from "dockerode";
import { existsSync } from "node:fs";
import { open, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { resolve as resolvePath } from "node:path";
import { ConfigError, EnvironmentError } from "@retrace-cua/core/errors";
import { MANAGED_LABEL, ROLE_LABEL, RUN_LABEL } from "../docker/engine.ts";
import { OsworldClient } from "./client.ts";

export const OSWORLD_IMAGE = "happysixd/osworld-docker";
/** Container port -> the first host port OSWorld tries. */
export const OSWORLD_PORTS = { server: 5000, vnc: 8006, chromium: 9222, vlc: 8080 } as const;
export type OsworldPorts = { -readonly [K in keyof typeof OSWORLD_PORTS]: number };

/** Options of {@link osworldContainerSpec}. */
export interface OsworldContainerOptions {
  /** Path of the OSWorld VM image (Ubuntu.qcow2). */
  vmPath: string;
  ports: OsworldPorts;
  /** Pass /dev/kvm through. */
  kvm: boolean;
  /** @default "happysixd/osworld-docker" */
  image?: string;
  runId: string;
  /** @default { DISK_SIZE: "32G", RAM_SIZE: "4G", CPU_CORES: "4" } (OSWorld's) */
  resources?: { DISK_SIZE?: string; RAM_SIZE?: string; CPU_CORES?: string };
}

/** The dockerode create options OSWorld's provider uses (`containers.run(...)`). */
export function osworldContainerSpec(o: OsworldContainerOptions): Docker.ContainerCreateOptions {
  const env = { DISK_SIZE: "32G", RAM_SIZE: "4G", CPU_CORES: "4", ...o.resources, ...(o.kvm ? {} : { KVM: "N" }) };
  const bindings: Record<string, Array<{ HostPort: string }>> = {};
  const exposed: Record<string, object> = {};
  for (const key of Object.keys(OSWORLD_PORTS) as Array<keyof OsworldPorts>) {
    bindings[`${OSWORLD_PORTS[key]}/tcp`] = [{ HostPort: String(o.ports[key]) }];
    exposed[`${OSWORLD_PORTS[key]}/tcp`] = {};
  }
  return {
    Image: o.image ?? OSWORLD_IMAGE,
    Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    ExposedPorts: exposed,
    Labels: { [MANAGED_LABEL]: "true", [RUN_LABEL]: o.runId, [ROLE_LABEL]: "osworld" },
    HostConfig: {
      CapAdd: ["NET_ADMIN"],
      Devices: o.kvm ? [{ PathOnHost: "/dev/kvm", PathInContainer: "/dev/kvm", CgroupPermissions: "rwm" }] : [],
      Binds: [`${resolvePath(o.vmPath)}:/System.qcow2:ro`],
      PortBindings: bindings,
    },
  };
}

/** Whether KVM acceleration is available (`/dev/kvm` exists). */
export function detectKvm(devicePath = "/dev/kvm"): boolean {
  return existsSync(devicePath);
}

const reserved = new Set<number>();
let inProcess: Promise<unknown> = Promise.resolve();

/** Whether a TCP port can be bound on all interfaces right now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, () => srv.close(() => resolve(true)));
  });
}

/** Options of {@link allocateOsworldPorts}. */
export interface PortAllocationOptions {
  /** Ports already taken elsewhere (e.g. published by running containers). */
  used?: Iterable<number>;
  /** Lock file shared by parallel workers. @default "/tmp/retrace-osworld-ports.lck" */
  lockFile?: string;
  /** Highest port tried. @default 65354 (OSWorld's) */
  maxPort?: number;
}

/**
 * Four free host ports, from OSWorld's defaults upward. Safe across parallel workers: one
 * allocation at a time per process and per machine (exclusive lock file), and ports handed out
 * stay reserved in this process until {@link releaseOsworldPorts}.
 */
export function allocateOsworldPorts(options: PortAllocationOptions = {}): Promise<OsworldPorts> {
  const run = async (): Promise<OsworldPorts> => {
    const unlock = await lockFile(options.lockFile ?? "/tmp/retrace-osworld-ports.lck");
    try {
      const used = new Set(options.used ?? []);
      const out = {} as OsworldPorts;
      for (const key of Object.keys(OSWORLD_PORTS) as Array<keyof OsworldPorts>) {
        let port = OSWORLD_PORTS[key];
        while (
          port <= (options.maxPort ?? 65354) &&
          (used.has(port) || reserved.has(port) || !(await portIsFree(port)))
        )
          port++;
        if (port > (options.maxPort ?? 65354)) throw new EnvironmentError(`no free port for OSWorld's ${key} port`);
        reserved.add(port);
        used.add(port);
        out[key] = port;
      }
      return out;
    } finally {
      await unlock();
    }
  };
  const next = inProcess.then(run, run);
  inProcess = next.catch(() => undefined);
  return next;
}

/** Give ports back after the container is gone. */
export function releaseOsworldPorts(ports: OsworldPorts): void {
  for (const p of Object.values(ports)) reserved.delete(p);
}

async function lockFile(path: string, timeoutMs = 30_000): Promise<() => Promise<void>> {
  const start = Date.now();
  for (;;) {
    try {
      const fh = await open(path, "wx");
      await fh.writeFile(String(process.pid));
      await fh.close();
      return () => rm(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      // A lock older than the timeout belongs to a crashed worker.
      const st = await stat(path).catch(() => undefined);
      if (st && Date.now() - st.mtimeMs > timeoutMs) await rm(path, { force: true });
      if (Date.now() - start > timeoutMs * 2) throw new EnvironmentError(`could not lock ${path} for port allocation`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Host ports published by running containers (so two engines' workers do not collide). */
export async function containerPorts(docker: Docker): Promise<number[]> {
  const list = await docker.listContainers();
  return list.flatMap((c) =>
    (c.Ports ?? []).map((p) => p.PublicPort).filter((p): p is number => typeof p === "number"),
  );
}

/** Options of {@link startOsworldVm}. */
export interface StartOsworldVmOptions {
  docker: Docker;
  vmPath: string;
  runId: string;
  image?: string;
  /** Longest wait for the control server, in ms. @default 300000 (OSWorld's) */
  readyTimeoutMs?: number;
}

/** A running OSWorld VM container. */
export interface OsworldVm {
  client: OsworldClient;
  ports: OsworldPorts;
  containerId: string;
  stop(): Promise<void>;
}

/** Start an OSWorld VM container and wait until its control server serves screenshots. */
export async function startOsworldVm(o: StartOsworldVmOptions): Promise<OsworldVm> {
  if (!existsSync(o.vmPath))
    throw new ConfigError(`OSWorld VM image not found: ${o.vmPath} (download Ubuntu.qcow2 as OSWorld's README says)`, {
      field: "vmPath",
    });
  const ports = await allocateOsworldPorts({ used: await containerPorts(o.docker) });
  const container = await o.docker.createContainer(
    osworldContainerSpec({ vmPath: o.vmPath, ports, kvm: detectKvm(), image: o.image, runId: o.runId }),
  );
  const stop = async () => {
    await container.remove({ force: true, v: true }).catch(() => undefined);
    releaseOsworldPorts(ports);
  };
  try {
    await container.start();
    const client = new OsworldClient({ baseUrl: `http://127.0.0.1:${ports.server}`, retryTimes: 1, timeoutMs: 10_000 });
    const deadline = Date.now() + (o.readyTimeoutMs ?? 300_000);
    while (!(await client.screenshot().catch(() => undefined))) {
      if (Date.now() > deadline)
        throw new EnvironmentError(`OSWorld VM not ready after ${o.readyTimeoutMs ?? 300_000} ms`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    return {
      client: new OsworldClient({ baseUrl: client.baseUrl, chromiumUrl: `http://127.0.0.1:${ports.chromium}` }),
      ports,
      containerId: container.id,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
