/**
 * Code execution endpoints of the OSWorld control server, by trust level:
 * - pyautogui code (with read-only `print`/`platform`/`os.path` lookups) is parsed on every
 *   desktop and executed as retrace Actions, so actions behave the same on host and container;
 * - anything else runs only on a sandboxed (container) desktop, inside the container, as OSWorld's
 *   VM server runs it; the host desktop refuses it with OSWorld's error shape (`error` included).
 */
import type { Action } from "@retrace-cua/core/action";
import { DESKTOP_APPS, type DesktopApp } from "../desktop-tasks/types.ts";
import { HttpError, json, jsonBody, text, type Reply, type Route, type RouteContext } from "./control-http.ts";
import { resolvePath, statPath } from "./control-files.ts";
import { evaluateHostPython, expandUser } from "./host-python.ts";
import { cursorPosition, findWindows } from "./windows.ts";

/**
 * Commands of OSWorld tasks run in the user's session with GNOME's settings store (dconf), as on
 * OSWorld's VM: `gsettings set` in one command is seen by `gsettings get` in the next. (The apps
 * retrace itself starts keep the in-memory store, for deterministic rendering.)
 */
const sessionCommand = (argv: string[]): string[] => ["/usr/bin/env", "GSETTINGS_BACKEND=dconf", ...argv];

/**
 * Chromium's flags for `google-chrome` in a container (no sandbox: an unprivileged container has no user namespaces for
 * it).
 */
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--password-store=basic",
];

/** How many files each host app may be launched with (options: none). */
const HOST_APP_FILES: Record<DesktopApp, number> = { mousepad: 8, gnumeric: 8, galculator: 0 };

/** How long a command may run (OSWorld's server: 120 s for /execute, 30 s for /run_python). */
const EXEC_TIMEOUT_MS = 120_000;
const PYTHON_TIMEOUT_MS = 30_000;

/** Longest `max_wait_time` and `check_interval` of execute_with_verification, in seconds (a request has a deadline). */
export const VERIFY_MAX_WAIT_S = 120;
/** Longest the code of one host `/execute` may sleep in all (`time.sleep`), in seconds. */
export const MAX_SLEEP_S = 100;

/** A `command` field: a string or a list of strings (anything else is a 400 saying so). */
function checkCommand(command: unknown): void {
  if (typeof command === "string") return;
  if (Array.isArray(command) && command.every((a) => typeof a === "string")) return;
  throw new HttpError(400, "command must be a string or a list of strings");
}

/** A seconds field: `fallback` when absent, else a number from 0 to `max` (a 400 naming the field). */
function seconds(v: unknown, fallback: number, name: string, max: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > max)
    throw new HttpError(400, `${name} must be a number of seconds from 0 to ${max}`);
  return v;
}

/** Coordinates clamped to the screen as pyautogui clamps them (to the last pixel: 1279,799 on 1280x800). */
function clampToScreen(action: Action, width: number, height: number): Action {
  if (!("x" in action) || typeof action.x !== "number" || typeof action.y !== "number") return action;
  return { ...action, x: Math.min(Math.max(action.x, 0), width - 1), y: Math.min(Math.max(action.y, 0), height - 1) };
}

/** Split a command line as Python's shlex.split does for the common cases (quotes, backslashes). */
export function shlexSplit(s: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | undefined;
  let any = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < s.length && '"\\$`'.includes(s[i + 1])) cur += s[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      any = true;
    } else if (c === "\\" && i + 1 < s.length) {
      cur += s[++i];
      any = true;
    } else if (/\s/.test(c)) {
      if (cur || any) out.push(cur);
      cur = "";
      any = false;
    } else cur += c;
  }
  if (quote) throw new HttpError(400, "unbalanced quotes in command");
  if (cur || any) out.push(cur);
  return out;
}

/** The argv of an OSWorld `command` field (a list, or a string split like shlex unless `shell`). */
function commandArgv(command: unknown, shell: boolean, home: string): string[] {
  if (Array.isArray(command))
    return command.map((a) => (typeof a === "string" && a.startsWith("~/") ? expandUser(a, home) : String(a)));
  if (typeof command === "string")
    return shell
      ? ["/bin/bash", "-c", command]
      : shlexSplit(command).map((a) => (a.startsWith("~/") ? expandUser(a, home) : a));
  throw new HttpError(400, "command must be a list of arguments or a string");
}

/** The Python code of `python -c <code>` (argv or shell string), if that is what the command is. */
function pythonCodeOf(command: unknown, shell: boolean): string | undefined {
  let argv: string[];
  try {
    argv = Array.isArray(command) ? command.map(String) : typeof command === "string" ? shlexSplit(command) : [];
  } catch {
    return undefined;
  }
  if (shell && typeof command === "string" && /[;&|<>`$]/.test(command.replace(/(["'])[\s\S]*?\1/g, "")))
    return undefined;
  return argv.length === 3 && /^(\/usr\/bin\/)?python3?$/.test(argv[0]) && argv[1] === "-c" ? argv[2] : undefined;
}

/** The code execution routes. */
export function execRoutes(ctx: RouteContext): Record<string, Route> {
  const { env, desktop } = ctx;

  const refuse = (message: string): Reply =>
    json({ status: "error", message, error: message, output: "", returncode: -1 }, 501);

  async function execute(b: Record<string, unknown>, signal: AbortSignal): Promise<Reply> {
    checkCommand(b.command);
    const shell = b.shell === true;
    const code = pythonCodeOf(b.command, shell);
    if (code !== undefined) {
      const r = await evaluateHostPython(code, {
        screen: { width: desktop.width, height: desktop.height },
        cursor: await cursorPosition(desktop),
        home: desktop.homeDir,
        stat: async (p) => {
          const kind = await statPath(desktop, p);
          return kind === "file" || kind === "dir" ? kind : undefined;
        },
      });
      if (r.kind === "ok") {
        const waited = r.actions.reduce((t, a) => t + (a.type === "WAIT" ? (a.seconds ?? 0) : 0), 0);
        if (waited > MAX_SLEEP_S)
          throw new HttpError(400, `the code sleeps ${waited} s in all; at most ${MAX_SLEEP_S} s per request`);
        for (const action of r.actions) {
          if (signal.aborted) break;
          await env.step(clampToScreen(action, desktop.width, desktop.height));
        }
        return json({ status: "success", output: r.output, error: "", returncode: 0 });
      }
      if (!desktop.sandboxed) {
        if (r.kind === "python-error")
          return json({ status: "success", output: "", error: r.traceback, returncode: 1 });
        return refuse(r.message);
      }
    } else if (!desktop.sandboxed) {
      return refuse(
        'the host desktop never runs commands: send ["python", "-c", "<pyautogui code>"] (use a container desktop, --env docker, for OSWorld\'s full API)',
      );
    }
    const argv = commandArgv(b.command, shell, desktop.homeDir);
    if (!argv.length) throw new HttpError(400, "empty command");
    const r = await desktop.exec(sessionCommand(argv), { timeoutMs: EXEC_TIMEOUT_MS });
    return json({ status: "success", output: r.stdout.toString("utf8"), error: r.stderr, returncode: r.code });
  }

  async function verified(b: Record<string, unknown>, signal: AbortSignal): Promise<Reply> {
    const given = b.verification ?? {};
    if (!given || typeof given !== "object" || Array.isArray(given))
      throw new HttpError(400, "verification must be an object ({window_exists} or {command_success})");
    const checks = given as Record<string, unknown>;
    for (const k of ["window_exists", "command_success"]) {
      if (checks[k] !== undefined && typeof checks[k] !== "string")
        throw new HttpError(400, `verification.${k} must be a string`);
    }
    const maxWaitS = seconds(b.max_wait_time, 10, "max_wait_time", VERIFY_MAX_WAIT_S);
    const intervalS = seconds(b.check_interval, 1, "check_interval", VERIFY_MAX_WAIT_S);
    if ("command_success" in checks && !desktop.sandboxed)
      return refuse(
        "verification by command_success runs a command; the host desktop never does (use a container desktop)",
      );
    const first = await execute(b, signal);
    if (first.status !== 200) return first;
    const result = JSON.parse(String(first.body)) as Record<string, unknown>;
    if (Object.keys(checks).length === 0) return first;
    const v = checks;
    const t0 = Date.now();
    while ((Date.now() - t0) / 1000 < maxWaitS && !signal.aborted) {
      let ok = true;
      if (typeof v.window_exists === "string")
        ok &&= (await findWindows(desktop, { name: v.window_exists })).length > 0;
      if (ok && typeof v.command_success === "string")
        ok =
          (await desktop.exec(sessionCommand(["/bin/bash", "-c", v.command_success]), { timeoutMs: 5000 })).code === 0;
      if (ok) return json({ ...result, verification: "passed", wait_time: (Date.now() - t0) / 1000 });
      await new Promise((r) => setTimeout(r, Math.max(50, intervalS * 1000)));
    }
    return json({ ...result, status: "verification_failed", verification: "failed", wait_time: maxWaitS }, 500);
  }

  /**
   * The host desktop's own app with no caller-controlled option: the only arguments accepted are
   * files inside the home (never for galculator), passed as absolute paths after "--"; the app
   * gets the desktop's fixed environment (host-backend.ts), none of the request's.
   */
  async function launchHostApp(app: DesktopApp, args: string[], shown: string): Promise<Reply> {
    if (args.length > HOST_APP_FILES[app])
      return refuse(
        `${app} on the host desktop takes ${HOST_APP_FILES[app] ? `at most ${HOST_APP_FILES[app]} file` : "no argument"}, not ${JSON.stringify(args)}`,
      );
    const files: string[] = [];
    for (const arg of args) {
      if (arg.startsWith("-"))
        return refuse(`the host desktop passes no option to its apps ("${arg}"): only files inside the home`);
      const abs = resolvePath(desktop, arg);
      const kind = await statPath(desktop, abs);
      if (kind !== "file")
        return json(
          {
            status: "error",
            message: `${arg} is not a file inside the home`,
            error: `${arg} is not a file inside the home`,
          },
          kind === "link" ? 403 : 404,
        );
      files.push(abs);
    }
    await desktop.launch({ app, args: files.length ? ["--", ...files] : [] });
    return text(`${shown} launched successfully`);
  }

  async function launch(b: Record<string, unknown>): Promise<Reply> {
    checkCommand(b.command);
    const shell = b.shell === true;
    let argv = commandArgv(b.command, shell, desktop.homeDir);
    if (!argv.length) throw new HttpError(400, "empty command");
    const shown = shell ? String(b.command) : argv.join(" ");
    if (!desktop.sandboxed || !desktop.spawnDetached) {
      const app = argv[0].split("/").pop()!;
      if (shell || !DESKTOP_APPS.includes(app as DesktopApp))
        return refuse(
          `the host desktop launches only its own apps (${DESKTOP_APPS.join(", ")}), not "${shell ? shown : argv[0]}"; use a container desktop (--env docker) to launch other programs`,
        );
      return launchHostApp(app as DesktopApp, argv.slice(1), shown);
    }
    if (!shell) {
      // google-chrome is the image's Chromium, with its remote-debugging port as the task asks: the
      // apps image's `google-chrome` wrapper (Chrome's profile folder, a process named chrome), or
      // else Chromium itself with the same flags.
      if (
        (argv[0] === "google-chrome" || argv[0] === "google-chrome-stable") &&
        (await desktop.exec(["sh", "-c", 'command -v -- "$0"', argv[0]], { timeoutMs: 5000 })).code !== 0
      ) {
        argv = [
          "chromium",
          ...CHROMIUM_FLAGS,
          `--user-data-dir=${desktop.homeDir}/.config/google-chrome`,
          ...argv.slice(1),
        ];
      }
      const which = await desktop.exec(["sh", "-c", 'command -v -- "$0"', argv[0]], { timeoutMs: 5000 });
      if (which.code !== 0)
        return json(
          {
            status: "error",
            message: `${argv[0]} is not installed in the desktop image`,
            error: `${argv[0]} is not installed in the desktop image`,
          },
          500,
        );
    }
    await desktop.spawnDetached(sessionCommand(argv));
    return text(`${shown} launched successfully`);
  }

  return {
    "POST /execute": async (req, body, signal) => execute(jsonBody(req, body), signal),
    "POST /setup/execute": async (req, body, signal) => execute(jsonBody(req, body), signal),
    "POST /execute_with_verification": async (req, body, signal) => verified(jsonBody(req, body), signal),
    "POST /setup/execute_with_verification": async (req, body, signal) => verified(jsonBody(req, body), signal),
    "POST /setup/launch": async (req, body) => launch(jsonBody(req, body)),
    "POST /run_python": async (req, body) => {
      const code = jsonBody(req, body).code;
      if (typeof code !== "string" || !code)
        return json({ status: "error", message: "Code not supplied!", error: "Code not supplied!" }, 400);
      if (!desktop.sandboxed)
        return refuse(
          "/run_python is refused: the host desktop never runs arbitrary code (use a container desktop, --env docker, for OSWorld's full API)",
        );
      const r = await desktop.exec(sessionCommand(["/usr/bin/python3", "-c", code]), { timeoutMs: PYTHON_TIMEOUT_MS });
      const out = r.stdout.toString("utf8");
      let err = r.stderr;
      if (r.code !== 0 && !err) err = `Process exited with code ${r.code}`;
      const message = out && err ? `${out}\n${err}` : out || err;
      return json({
        status: r.code === 0 ? "success" : "error",
        message,
        need_more: false,
        output: out,
        error: err,
        return_code: r.code,
      });
    },
    "POST /run_bash_script": async (req, body) => {
      const b = jsonBody(req, body);
      const script = typeof b.script === "string" ? b.script : "";
      if (!script)
        return json(
          { status: "error", output: "Script not supplied!", error: "Script not supplied!", returncode: -1 },
          400,
        );
      if (!desktop.sandboxed)
        return refuse(
          "/run_bash_script is refused: the host desktop never runs arbitrary code (use a container desktop, --env docker, for OSWorld's full API)",
        );
      const timeoutS = Number(b.timeout ?? 100);
      const dir =
        typeof b.working_dir === "string" && b.working_dir ? expandUser(b.working_dir, desktop.homeDir) : undefined;
      if (dir && (await desktop.exec(["test", "-d", dir])).code !== 0)
        return json(
          { status: "error", output: `Working directory does not exist: ${dir}`, error: "", returncode: -1 },
          400,
        );
      const argv = dir
        ? ["/bin/bash", "-c", 'cd -- "$0" && exec /bin/bash -c "$1" 2>&1', dir, script]
        : ["/bin/bash", "-c", 'exec /bin/bash -c "$0" 2>&1', script];
      const r = await desktop.exec(sessionCommand(argv), { timeoutMs: Math.max(1, timeoutS) * 1000 });
      return json({
        status: r.code === 0 ? "success" : "error",
        output: r.stdout.toString("utf8") + r.stderr,
        error: "",
        returncode: r.code,
      });
    },
  };
}
