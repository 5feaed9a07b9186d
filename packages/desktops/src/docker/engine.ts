/**
 * The Docker-API engine (Docker or podman's compatible service), selected by DOCKER_HOST as read
 * by packages/core/src/settings.ts and passed in here. Labels mark every container retrace manages.
 */
import type Docker from "dockerode";
import { requireOptional } from "@retrace-cua/core/optional-import";
import { ConfigError } from "@retrace-cua/core/errors";

const loadDocker = (): typeof Docker =>
  requireOptional<typeof Docker>("dockerode", "container desktops (the Docker/podman API)");

/** Label on every container retrace creates; `retrace env gc` removes containers carrying it. */
export const MANAGED_LABEL = "retrace.managed";
/** Label holding the run id that created a container. */
export const RUN_LABEL = "retrace.run";
/** Label holding the container's role ("desktop", "osworld"). */
export const ROLE_LABEL = "retrace.role";

/** A dockerode client for a DOCKER_HOST value (`unix:///path`, `tcp://host:port`), or the default socket. */
export function createDockerClient(dockerHost?: string): Docker {
  const Docker = loadDocker();
  if (!dockerHost) return new Docker({ socketPath: "/var/run/docker.sock" });
  if (dockerHost.startsWith("unix://")) return new Docker({ socketPath: dockerHost.slice("unix://".length) });
  const m = /^(tcp|http|https):\/\/([^:/]+)(?::(\d+))?\/?$/.exec(dockerHost);
  if (!m)
    throw new ConfigError(`DOCKER_HOST "${dockerHost}" is not unix:///path or tcp://host:port`, {
      field: "DOCKER_HOST",
    });
  return new Docker({
    protocol: m[1] === "https" ? "https" : "http",
    host: m[2],
    port: Number(m[3] ?? (m[1] === "https" ? 2376 : 2375)),
  });
}

/** Result of a command run with {@link execIn}. */
export interface ContainerExecResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Run a command in a container to completion and collect its output and exit code. */
export async function execIn(
  docker: Docker,
  container: Docker.Container,
  argv: string[],
  options: { user?: string; env?: string[]; workingDir?: string; timeoutMs?: number } = {},
): Promise<ContainerExecResult> {
  const exec = await container.exec({
    Cmd: argv,
    AttachStdout: true,
    AttachStderr: true,
    User: options.user,
    Env: options.env,
    WorkingDir: options.workingDir,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out: Buffer[] = [];
  let err = "";
  const stdout = { write: (d: Buffer) => (out.push(d), true) } as unknown as NodeJS.WritableStream;
  const stderr = { write: (d: Buffer) => ((err += d.toString()), true) } as unknown as NodeJS.WritableStream;
  docker.modem.demuxStream(stream, stdout, stderr);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      (stream as unknown as { destroy(): void }).destroy();
      reject(new Error(`exec ${argv[0]} timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs ?? 15_000);
    stream.on("end", () => (clearTimeout(timer), resolve()));
    stream.on("close", () => (clearTimeout(timer), resolve()));
    stream.on("error", (e: Error) => (clearTimeout(timer), reject(e)));
  });
  const info = await exec.inspect();
  return { code: info.ExitCode ?? 1, stdout: Buffer.concat(out), stderr: err };
}

/** Read a stream to one buffer. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
  return Buffer.concat(chunks);
}

/** Remove every container carrying the managed label (optionally of one run). Returns their ids. */
export async function removeManagedContainers(docker: Docker, runId?: string): Promise<string[]> {
  const label = runId ? [`${MANAGED_LABEL}=true`, `${RUN_LABEL}=${runId}`] : [`${MANAGED_LABEL}=true`];
  const list = await docker.listContainers({ all: true, filters: { label } });
  await Promise.all(
    list.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  return list.map((c) => c.Id);
}
