/**
 * A desktop in a container: one container per episode (reset = a fresh container), the image's
 * init starts Xvfb, matchbox and a session bus; actions and screenshots run through `exec`,
 * files go in with putArchive and come out with getArchive.
 */
import type Docker from "dockerode";
import { randomBytes } from "node:crypto";
import { EnvironmentError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import {
  APP_ENV,
  APP_WINDOW_CLASS,
  GTK_SETTINGS_INI,
  PRISTINE_MTIME,
  type AppLaunch,
  type DesktopBackend,
  type ExecOptions,
  type ExecResult,
} from "../x11/backend.ts";
import { pngToFrame, type Frame } from "../x11/frame.ts";
import { waitFor } from "../x11/host-backend.ts";
import { onShutdown } from "../x11/processes.ts";
import { execIn, MANAGED_LABEL, readAll, ROLE_LABEL, RUN_LABEL } from "./engine.ts";
import { forwardContainerPort, type PortForward } from "./port-forward.ts";
import { packTar, unpackTar } from "./tar.ts";

/** The image built by experiments/docker/build-image.sh (or `docker build`). */
export const DEFAULT_DESKTOP_IMAGE = "retrace-desktop:3";

/** Options of {@link ContainerBackend}. */
export interface ContainerBackendOptions {
  docker: Docker;
  /** @default "retrace-desktop:3" */
  image?: string;
  /** @default 1280 */
  width?: number;
  /** @default 800 */
  height?: number;
  /** Run id put on the containers' labels. @default a random id */
  runId?: string;
  /** Longest wait for the desktop or an app window, in ms. @default 30000 */
  readyTimeoutMs?: number;
}

const HOME = "/home/cua";
const USER_UID = 1000;

/**
 * The create spec of a desktop container: no network at all (not the host's), not privileged, no
 * added capabilities, no host mounts. Model-driven input reaches the desktop only as X events.
 */
export function desktopContainerSpec(o: {
  image: string;
  width: number;
  height: number;
  runId: string;
}): Docker.ContainerCreateOptions {
  return {
    Image: o.image,
    Env: [`RETRACE_SCREEN=${o.width}x${o.height}`],
    Labels: { [MANAGED_LABEL]: "true", [RUN_LABEL]: o.runId, [ROLE_LABEL]: "desktop" },
    HostConfig: { NetworkMode: "none", Privileged: false },
  };
}

/** Seconds a desktop container gets between SIGTERM and SIGKILL when it is stopped. */
const CONTAINER_STOP_GRACE_S = 3;

/** Desktop inside a container managed through dockerode. */
export class ContainerBackend implements DesktopBackend {
  readonly kind = "docker";
  readonly width: number;
  readonly height: number;
  readonly accessibility = true;
  /** Code runs inside the container, never on the host: OSWorld's full server API is served. */
  readonly sandboxed = true;
  readonly homeDir = HOME;
  readonly runId: string;
  /** Milliseconds the last container took from create to a ready X server. */
  lastStartMs = 0;
  /**
   * Exit code of the last container this backend stopped: 0 when its init script ended the
   * desktop on SIGTERM, 137 when the engine had to SIGKILL it after the grace period.
   */
  lastStopExitCode: number | undefined;
  private readonly docker: Docker;
  private readonly image: string;
  private readonly timeoutMs: number;
  private container?: Docker.Container;
  private closed = false;
  /** The process is ending (SIGINT, SIGTERM, SIGHUP): no new container. */
  private ending = false;
  private unhook?: () => void;

  constructor(options: ContainerBackendOptions) {
    this.docker = options.docker;
    this.image = options.image ?? DEFAULT_DESKTOP_IMAGE;
    this.width = options.width ?? 1280;
    this.height = options.height ?? 800;
    this.runId = options.runId ?? randomBytes(6).toString("hex");
    this.timeoutMs = options.readyTimeoutMs ?? 30_000;
  }

  /** The current container's id, if one runs. */
  get containerId(): string | undefined {
    return this.container?.id;
  }

  async freshSession(files: Record<string, string>): Promise<void> {
    if (this.closed || this.ending)
      throw new EnvironmentError(`container desktop is ${this.closed ? "closed" : "ending with the process"}`, {
        retryable: false,
      });
    await this.removeContainer();
    const t0 = Date.now();
    // Ctrl-C or SIGTERM removes the container too; `retrace env gc` catches what a SIGKILL leaves.
    // Hooked before the container exists: one created while the process is ending is removed at once.
    this.unhook ??= onShutdown(() => {
      this.ending = true;
      return this.removeContainer();
    });
    try {
      this.container = await this.docker.createContainer(
        desktopContainerSpec({ image: this.image, width: this.width, height: this.height, runId: this.runId }),
      );
      if (this.ending) {
        await this.removeContainer();
        throw new EnvironmentError("container desktop: the process is ending", { retryable: false });
      }
      await this.container.start();
    } catch (cause) {
      if (cause instanceof EnvironmentError) throw cause;
      const msg = (cause as Error).message ?? String(cause);
      const hint = /no such image|image not known|not found/i.test(msg)
        ? `; build it with experiments/docker/build-image.sh (podman) or \`docker build -t ${this.image} experiments/docker\``
        : "";
      throw new EnvironmentError(`could not start a ${this.image} container: ${msg}${hint}`, {
        cause,
        retryable: !hint,
      });
    }
    await waitFor(
      async () => (await this.exec(["test", "-f", "/tmp/retrace/ready"], { asUser: false })).code === 0,
      this.timeoutMs,
      "the container's X server",
    );
    this.lastStartMs = Date.now() - t0;
    const entries = Object.entries({ ".config/gtk-3.0/settings.ini": GTK_SETTINGS_INI, ...files }).map(
      ([path, text]) => ({ path, data: Buffer.from(text) }),
    );
    await this.container.putArchive(packTar(entries, { uid: USER_UID, gid: USER_UID, mtime: PRISTINE_MTIME }), {
      path: HOME,
    });
  }

  async launch(app: AppLaunch): Promise<void> {
    const c = this.requireContainer();
    const exec = await c.exec({
      Cmd: [app.app, ...app.args],
      User: "cua",
      Env: this.userEnv(),
      WorkingDir: HOME,
      AttachStdout: false,
      AttachStderr: false,
    });
    await exec.start({ Detach: true });
    await waitFor(
      async () => {
        const r = await this.exec(["xdotool", "search", "--onlyvisible", "--class", APP_WINDOW_CLASS[app.app]], {
          asUser: false,
        });
        return r.code === 0 && r.stdout.length > 0;
      },
      this.timeoutMs,
      `the ${app.app} window in the container`,
    );
  }

  private userEnv(): string[] {
    const env = {
      DISPLAY: ":99",
      HOME,
      USER: "cua",
      DBUS_SESSION_BUS_ADDRESS: "unix:path=/tmp/retrace/bus",
      ...APP_ENV,
    };
    return Object.entries(env).map(([k, v]) => `${k}=${v}`);
  }

  async exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const asUser = options.asUser ?? true;
    try {
      return await execIn(this.docker, this.requireContainer(), argv, {
        user: asUser ? "cua" : "root",
        env: asUser ? this.userEnv() : ["DISPLAY=:99"],
        workingDir: asUser ? HOME : "/",
        timeoutMs: options.timeoutMs,
      });
    } catch (cause) {
      if (cause instanceof EnvironmentError) throw cause;
      throw new EnvironmentError(`exec ${argv[0]} in the container failed: ${(cause as Error).message}`, { cause });
    }
  }

  async captureFrame(): Promise<Frame> {
    // PNG, not raw RGB: exec output crosses the API socket, and 3 MB per frame cost ~200 ms more.
    const r = await this.exec(["/usr/bin/import", "-display", ":99", "-window", "root", "png:-"], { asUser: false });
    if (r.code !== 0)
      throw new EnvironmentError(`screen capture in the container failed (${r.code}): ${r.stderr.trim()}`);
    return pngToFrame(r.stdout);
  }

  async readHomeFile(relPath: string): Promise<Buffer | undefined> {
    const c = this.requireContainer();
    let stream: NodeJS.ReadableStream;
    try {
      stream = await c.getArchive({ path: `${HOME}/${relPath}` });
    } catch {
      return undefined;
    }
    const files = unpackTar(await readAll(stream));
    const base = relPath.split("/").pop()!;
    return files.get(base) ?? [...files.values()][0];
  }

  async writeHomeFile(relPath: string, data: Buffer): Promise<void> {
    if (relPath.split("/").includes(".."))
      throw new EnvironmentError(`not a path inside the desktop's home: ${relPath}`, { retryable: false });
    const c = this.requireContainer();
    const parent = relPath.includes("/") ? relPath.slice(0, relPath.lastIndexOf("/")) : "";
    if (parent) await this.exec(["mkdir", "-p", `${HOME}/${parent}`]);
    await c.putArchive(packTar([{ path: relPath, data }], { uid: USER_UID, gid: USER_UID, mtime: PRISTINE_MTIME }), {
      path: HOME,
    });
  }

  async spawnDetached(argv: string[]): Promise<void> {
    const c = this.requireContainer();
    const exec = await c.exec({
      Cmd: argv,
      User: "cua",
      Env: this.userEnv(),
      WorkingDir: HOME,
      AttachStdout: false,
      AttachStderr: false,
    });
    await exec.start({ Detach: true });
  }

  /** A host port piped (through `exec` of socat, the container has no network) to `port` inside the container. */
  async forwardPort(port: number): Promise<PortForward> {
    return forwardContainerPort({ docker: this.docker, container: () => this.requireContainer(), port });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.removeContainer();
    this.unhook?.();
  }

  private requireContainer(): Docker.Container {
    if (!this.container)
      throw new EnvironmentError("container desktop: no container (call reset first)", { retryable: false });
    return this.container;
  }

  private async removeContainer(): Promise<void> {
    const c = this.container;
    this.container = undefined;
    if (!c) return;
    // SIGTERM first (the init script's trap stops Xvfb, the bus and the window manager in turn),
    // SIGKILL only after the grace period; then the container and its volumes go.
    await c.stop({ t: CONTAINER_STOP_GRACE_S }).catch(() => undefined);
    const state = await c.inspect().then(
      (i) => i.State,
      () => undefined,
    );
    this.lastStopExitCode = state?.ExitCode;
    if (state?.ExitCode === 137)
      logger.warn(
        { id: c.id, graceS: CONTAINER_STOP_GRACE_S },
        "desktop container ignored SIGTERM and was killed after the grace period",
      );
    await c
      .remove({ force: true, v: true })
      .catch((err: Error) => logger.warn({ err: err.message, id: c.id }, "could not remove desktop container"));
  }
}
