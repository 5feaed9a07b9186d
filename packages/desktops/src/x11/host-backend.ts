/**
 * The host as a desktop: Xvfb (a free display chosen by `-displayfd`), matchbox-window-manager,
 * a session D-Bus started here (`dbus-daemon --nofork`, PID kept), apps run as an unprivileged
 * user with a per-session home under `<baseDir>/d<display>/home`.
 */
import { chmod, chown, lchown, lutimes, mkdir, rm, writeFile, readdir, lstat } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { ConfigError, EnvironmentError } from "@retrace-cua/core/errors";
import {
  APP_ENV,
  APP_WINDOW_CLASS,
  GTK_SETTINGS_INI,
  PRISTINE_MTIME,
  type AppLaunch,
  type DesktopBackend,
  type ExecOptions,
  type ExecResult,
} from "./backend.ts";
import { rawScreenArgv, rgbFrame, type Frame } from "./frame.ts";
import { HomeFileError, homeFiles, type HomeFiles } from "./home-files.ts";
import { ProcessGroup, runCommand, type RunAs, type TrackedProcess } from "./processes.ts";

/** Options of {@link HostX11Backend}. */
export interface HostX11BackendOptions {
  /** Screen width in pixels. @default 1280 */
  width?: number;
  /** Screen height in pixels. @default 800 */
  height?: number;
  /** Unprivileged user that runs the apps when retrace runs as root. @default "cua" */
  user?: string;
  /** Parent of the per-display session folders. @default "/tmp/retrace-x11" */
  baseDir?: string;
  /** Longest wait for an app window to show, in ms. @default 20000 */
  launchTimeoutMs?: number;
}

/** Resolve the user apps run as: `user` when we are root, ourselves otherwise. */
export function resolveRunAs(user: string): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync("id", ["-u", user], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", user], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    throw new ConfigError(
      `desktop user "${user}" does not exist: create it once with \`useradd -m ${user}\` (apps must not run as root)`,
      { field: "user" },
    );
  }
}

/** Largest home file `readHomeFile` returns (oracles read task files, a few KB). */
const HOME_READ_MAX_BYTES = 256 * 1024 * 1024;

/** Desktop on the host's own X server (Xvfb). */
export class HostX11Backend implements DesktopBackend {
  readonly kind = "x11";
  readonly width: number;
  readonly height: number;
  readonly accessibility = true;
  private readonly procs = new ProcessGroup("x11 desktop");
  private readonly options: Required<HostX11BackendOptions>;
  private runAs: RunAs | undefined;
  private display = "";
  private dir = "";
  private xvfb?: TrackedProcess;
  private bus?: TrackedProcess;
  private apps: TrackedProcess[] = [];
  private started?: Promise<void>;
  private closed = false;

  constructor(options: HostX11BackendOptions = {}) {
    this.options = {
      width: options.width ?? 1280,
      height: options.height ?? 800,
      user: options.user ?? "cua",
      baseDir: options.baseDir ?? "/tmp/retrace-x11",
      launchTimeoutMs: options.launchTimeoutMs ?? 20_000,
    };
    this.width = this.options.width;
    this.height = this.options.height;
  }

  /** The X display in use (":N"), empty before the first session. */
  get displayName(): string {
    return this.display;
  }

  /** PIDs of every process this desktop started and that still runs. */
  pids(): number[] {
    return this.procs.pids();
  }

  private get home(): string {
    return join(this.dir, "home");
  }

  /** Never a sandbox: the host's own desktop runs no arbitrary command. */
  readonly sandboxed = false;

  /** The home's files, as the desktop user, never following a link (home-files.ts). */
  readonly homeFiles: HomeFiles = homeFiles(
    () => this.homeDir,
    () => this.runAs,
    PRISTINE_MTIME,
  );

  get homeDir(): string {
    return this.dir ? this.home : "";
  }

  private get runDir(): string {
    return join(this.dir, "run");
  }

  private start(): Promise<void> {
    this.started ??= this.startServer();
    return this.started;
  }

  private async startServer(): Promise<void> {
    this.runAs = resolveRunAs(this.options.user);
    const xvfb = this.procs.start({
      name: "Xvfb",
      argv: [
        "Xvfb",
        "-displayfd",
        "3",
        "-screen",
        "0",
        `${this.width}x${this.height}x24`,
        "-nolisten",
        "tcp",
        "-noreset",
      ],
      extraPipes: 1,
    });
    this.xvfb = xvfb;
    this.display = `:${await readDisplayNumber(xvfb, 10_000)}`;
    this.dir = join(this.options.baseDir, `d${this.display.slice(1)}`);
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true, mode: 0o755 });
    await chmod(this.options.baseDir, 0o755).catch(() => undefined);
    await chmod(this.dir, 0o755);
    this.procs.start({
      name: "matchbox-window-manager",
      argv: ["matchbox-window-manager", "-use_titlebar", "no"],
      env: this.sessionEnv(false),
      runAs: this.runAs,
      logFile: join(this.dir, "wm.log"),
    });
  }

  private sessionEnv(withBus: boolean): NodeJS.ProcessEnv {
    return {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      DISPLAY: this.display,
      HOME: this.home,
      USER: this.options.user,
      XDG_RUNTIME_DIR: this.runDir,
      XDG_CONFIG_HOME: join(this.home, ".config"),
      XDG_DATA_HOME: join(this.home, ".local/share"),
      XDG_CACHE_HOME: join(this.home, ".cache"),
      ...(withBus ? { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(this.runDir, "bus")}` } : {}),
      ...APP_ENV,
      // built from nothing (no variable of ours or of a caller), and no GTK module is loaded
      GTK_MODULES: "",
      GTK3_MODULES: "",
    };
  }

  async freshSession(files: Record<string, string>): Promise<void> {
    if (this.closed) throw new EnvironmentError("x11 desktop is closed", { retryable: false });
    await this.start();
    for (const app of this.apps.reverse()) await this.procs.stop(app, 1000);
    this.apps = [];
    if (this.bus) await this.procs.stop(this.bus, 1000);
    // at-spi-bus-launcher publishes its bus on the root window; a dead session's address would
    // make the next session's apps and pyatspi fail to connect.
    await this.exec(["xprop", "-root", "-remove", "AT_SPI_BUS"], { asUser: false });
    await rm(this.home, { recursive: true, force: true });
    await rm(this.runDir, { recursive: true, force: true });
    await mkdir(this.runDir, { mode: 0o700 });
    const all = { ".config/gtk-3.0/settings.ini": GTK_SETTINGS_INI, ...files };
    for (const [rel, text] of Object.entries(all)) {
      const file = join(this.home, rel);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
    }
    await mkdir(join(this.home, ".cache"), { recursive: true });
    await settleTree(this.home, this.runAs);
    if (this.runAs) await chown(this.runDir, this.runAs.uid, this.runAs.gid);
    this.bus = this.procs.start({
      name: "dbus-daemon",
      argv: ["dbus-daemon", "--session", "--nofork", "--nopidfile", `--address=unix:path=${join(this.runDir, "bus")}`],
      env: this.sessionEnv(false),
      runAs: this.runAs,
      logFile: join(this.dir, "dbus.log"),
    });
    await waitFor(
      async () => (await lstat(join(this.runDir, "bus")).catch(() => undefined)) !== undefined,
      5000,
      "the session D-Bus socket",
    );
  }

  async launch(app: AppLaunch): Promise<void> {
    const proc = this.procs.start({
      name: app.app,
      argv: [app.app, ...app.args],
      env: this.sessionEnv(true),
      cwd: this.home,
      runAs: this.runAs,
      logFile: join(this.dir, `${app.app}.log`),
    });
    this.apps.push(proc);
    await waitFor(
      async () => {
        if (!this.procs.alive(proc))
          throw new EnvironmentError(`${app.app} exited while starting; see ${join(this.dir, `${app.app}.log`)}`);
        const r = await this.exec(["xdotool", "search", "--onlyvisible", "--class", APP_WINDOW_CLASS[app.app]], {
          asUser: false,
          timeoutMs: 5000,
        });
        return r.code === 0 && r.stdout.length > 0;
      },
      this.options.launchTimeoutMs,
      `the ${app.app} window`,
    );
  }

  exec(argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const asUser = options.asUser ?? true;
    return runCommand(argv, {
      env: asUser ? this.sessionEnv(true) : { PATH: "/usr/local/bin:/usr/bin:/bin", DISPLAY: this.display },
      cwd: asUser ? this.home : undefined,
      runAs: asUser ? this.runAs : undefined,
      timeoutMs: options.timeoutMs ?? 15_000,
    });
  }

  async captureFrame(): Promise<Frame> {
    const r = await this.exec(rawScreenArgv(this.display), { asUser: false });
    if (r.code !== 0) throw new EnvironmentError(`screen capture failed (${r.code}): ${r.stderr.trim()}`);
    return rgbFrame(r.stdout, this.width, this.height);
  }

  /** A regular file of the home (a link, a FIFO or a missing file: undefined), read as the desktop user. */
  async readHomeFile(relPath: string): Promise<Buffer | undefined> {
    try {
      return await this.homeFiles.read(relPath, HOME_READ_MAX_BYTES);
    } catch (err) {
      if (err instanceof HomeFileError && err.reason !== "too-large") return undefined;
      throw err;
    }
  }

  /** Written as the desktop user without following links (no chown: the file is its own). */
  async writeHomeFile(relPath: string, data: Buffer): Promise<void> {
    await this.homeFiles.write(relPath, data);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.procs.dispose();
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }
}

async function readDisplayNumber(xvfb: TrackedProcess, timeoutMs: number): Promise<number> {
  const pipe = xvfb.child.stdio[3] as NodeJS.ReadableStream | null;
  if (!pipe) throw new EnvironmentError("Xvfb: no -displayfd pipe");
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(
      () => reject(new EnvironmentError(`Xvfb did not report a display within ${timeoutMs} ms`)),
      timeoutMs,
    );
    pipe.on("data", (d: Buffer) => {
      text += d.toString();
      const m = /^(\d+)\n/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void xvfb.exited.then((code) => {
      clearTimeout(timer);
      reject(
        new EnvironmentError(`Xvfb exited (${code}) before it was ready: is the xvfb package installed?`, {
          retryable: false,
        }),
      );
    });
  });
}

/**
 * Fixed mtimes and ownership for everything under `dir`, a home root just wrote; links are never
 * followed (lchown, lutimes), so a link in it cannot hand a file outside to the desktop user.
 */
async function settleTree(dir: string, runAs: RunAs | undefined): Promise<void> {
  const walk = async (p: string): Promise<void> => {
    const st = await lstat(p);
    if (st.isDirectory()) for (const name of await readdir(p)) await walk(join(p, name));
    if (runAs) await lchown(p, runAs.uid, runAs.gid);
    await lutimes(p, PRISTINE_MTIME, PRISTINE_MTIME);
  };
  await walk(dir);
}

/** Poll `check` every 40 ms until it is true; throws an EnvironmentError naming `what` on timeout. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - start > timeoutMs)
      throw new EnvironmentError(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}
