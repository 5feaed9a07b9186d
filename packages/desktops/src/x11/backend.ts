/**
 * What a desktop environment needs from the machine that hosts the X server: the host itself
 * (`HostX11Backend`) or a container (`ContainerBackend` in adapters/environments/docker).
 * The environment logic (actions, settling, oracles) is shared on top of this.
 */
import type { Frame } from "./frame.ts";
import type { DesktopApp } from "../desktop-tasks/types.ts";
import type { HomeFiles } from "./home-files.ts";

/** Result of a short command run on the desktop. */
export interface ExecResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Options of {@link DesktopBackend.exec}. */
export interface ExecOptions {
  /** Run as the desktop user with its session environment (DISPLAY, HOME, D-Bus). @default true */
  asUser?: boolean;
  /** Kill the command after this long. @default 15000 */
  timeoutMs?: number;
}

/** An app to start in the user's session (cwd = home). */
export interface AppLaunch {
  app: DesktopApp;
  args: string[];
}

/** A machine with an X server, a window manager, a session bus and a desktop user. */
export interface DesktopBackend {
  /** "x11" or "docker". */
  readonly kind: string;
  readonly width: number;
  readonly height: number;
  /** Whether `python3` with pyatspi is available for accessibility trees. */
  readonly accessibility: boolean;
  /**
   * Whether arbitrary commands may run on this desktop because it is a sandbox (a container):
   * OSWorld's `/run_python`, `/run_bash_script`, shell set-up commands and `launch` of any program
   * are served only then. The host's own X11 desktop is never a sandbox.
   */
  readonly sandboxed: boolean;
  /** The desktop user's home as `exec` sees it (absolute); empty before the first session. */
  readonly homeDir: string;
  /** Start a fresh session: end running apps, restore the home from `files`, restart the bus. */
  freshSession(files: Record<string, string>): Promise<void>;
  /** Start an app in the background (tracked, ended by the next freshSession/close). */
  launch(app: AppLaunch): Promise<void>;
  /** Run a short command to completion. */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /** One raw screen frame. */
  captureFrame(): Promise<Frame>;
  /** A file of the user's home, or undefined when it does not exist. */
  readHomeFile(relPath: string): Promise<Buffer | undefined>;
  /** Write a file into the user's home (parent folders created), owned by the desktop user. */
  writeHomeFile(relPath: string, data: Buffer): Promise<void>;
  /**
   * The home's files as the desktop user, never following a link, refusing special files
   * (home-files.ts). The host desktop has it; a container's files are inside its sandbox.
   */
  readonly homeFiles?: HomeFiles;
  /**
   * Start any program in the user's session in the background (tracked, ended with the session).
   * Only sandboxed desktops have it: on the host only the desktop's own apps start ({@link launch}).
   */
  spawnDetached?(argv: string[]): Promise<void>;
  /**
   * Reach a TCP port of the desktop's own loopback from the host (127.0.0.1:<returned port>), as
   * OSWorld publishes its VM's Chromium debugging port. Only container desktops have it.
   */
  forwardPort?(port: number): Promise<{ port: number; close(): Promise<void> }>;
  /** End everything. Safe to call twice. */
  close(): Promise<void>;
}

/** The WM_CLASS of each app's main window, for waiting until it shows. */
export const APP_WINDOW_CLASS: Record<DesktopApp, string> = {
  mousepad: "mousepad",
  galculator: "galculator",
  gnumeric: "gnumeric",
};

/** Environment variables every app gets (deterministic rendering, no settings daemons). */
export const APP_ENV: Record<string, string> = {
  GSETTINGS_BACKEND: "memory",
  GTK_OVERLAY_SCROLLING: "0",
  NO_AT_BRIDGE: "0",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  TZ: "UTC",
};

/** The GTK 3 settings file written into every fresh home: no cursor blink, no animations. */
export const GTK_SETTINGS_INI = "[Settings]\ngtk-cursor-blink=false\ngtk-enable-animations=false\n";

/** Fixed modification time of restored files, so file dialogs look the same every run. */
export const PRISTINE_MTIME = new Date("2024-01-01T00:00:00Z");
