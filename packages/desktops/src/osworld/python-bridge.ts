/**
 * Optional bridge to OSWorld's own Python code, for scores identical to the official harness. It
 * spawns `python3` with fixed scripts that import from the user's OSWorld checkout:
 * - `metric`: one of `desktop_env.evaluators.metrics` on values or files retrace already fetched;
 * - `setup`: OSWorld's `SetupController` runs a task's set-up steps against a control server;
 * - `evaluate`: OSWorld's own `DesktopEnv` evaluation (its postconfig, getters, metrics and
 *   conjunction) on an object that carries what that code reads of an environment (the control
 *   server's address, OSWorld's `PythonController` and `SetupController`, the ports, the cache
 *   folder and the last action); OSWorld's getters then call the control server as they call a VM.
 * Model output never reaches these scripts; only task files, addresses and local paths do.
 */
import { spawn, spawnSync } from "node:child_process";
import { ConfigError } from "@retrace-cua/core/errors";

const PROBE = "import desktop_env.evaluators.metrics as m; print('ok')";
/** What `setup` and `evaluate` need: OSWorld's environment class, its controllers and getters. */
const PROBE_FULL =
  "import desktop_env.evaluators.metrics, desktop_env.evaluators.getters, desktop_env.controllers.python, desktop_env.controllers.setup, desktop_env.desktop_env; print('ok')";
const MARK = "RETRACE-BRIDGE-RESULT ";
/**
 * The stand-in for OSWorld's `DesktopEnv` instance: the attributes its `_set_evaluator_info` and
 * `evaluate` methods and OSWorld's getters read. Controllers are built with the keyword arguments
 * the installed OSWorld version accepts (older ones lack the password and screen size).
 */
const DESKTOP = String.raw`
import inspect, json, os, sys
from desktop_env.controllers.python import PythonController
from desktop_env.controllers.setup import SetupController

def _build(cls, **kw):
    params = inspect.signature(cls.__init__).parameters
    return cls(**{k: v for k, v in kw.items() if k in params})

class RetraceDesktop:
    def __init__(self, r):
        self.vm_ip = r["host"]
        self.server_port = int(r["port"])
        self.chromium_port = int(r.get("chromiumPort") or 9222)
        self.vlc_port = int(r.get("vlcPort") or 8080)
        self.vnc_port = 8006
        self.cache_dir_base = r["cacheDir"]
        self.cache_dir = os.path.join(r["cacheDir"], r.get("taskId") or "task")
        os.makedirs(self.cache_dir, exist_ok=True)
        self.client_password = r.get("password") or "password"
        self.screen_width = int(r.get("width") or 1920)
        self.screen_height = int(r.get("height") or 1080)
        self.enable_proxy = False
        self.current_use_proxy = False
        self.is_environment_used = True
        self.action_history = [r["lastAction"]] if r.get("lastAction") else []
        self.controller = _build(PythonController, vm_ip=self.vm_ip, server_port=self.server_port)
        self.setup_controller = _build(SetupController, vm_ip=self.vm_ip, server_port=self.server_port,
            chromium_port=self.chromium_port, vlc_port=self.vlc_port, cache_dir=self.cache_dir,
            client_password=self.client_password, screen_width=self.screen_width, screen_height=self.screen_height)
        if hasattr(self.setup_controller, "reset_cache_dir"):
            self.setup_controller.reset_cache_dir(self.cache_dir)

    @property
    def vm_platform(self):
        return self.controller.get_vm_platform()

    @property
    def vm_screen_size(self):
        return self.controller.get_vm_screen_size()

def _setup(desktop, steps):
    run = desktop.setup_controller.setup
    return run(steps, False) if len(inspect.signature(run).parameters) > 1 else run(steps)

def _answer(obj):
    sys.stdout.write("\n${MARK}" + json.dumps(obj) + "\n")
`;
const SETUP =
  DESKTOP +
  String.raw`
req = json.loads(sys.stdin.read())
ok = _setup(RetraceDesktop(req), req["steps"])
_answer({"ok": ok is not False})
`;
const EVALUATE =
  DESKTOP +
  String.raw`
from desktop_env.desktop_env import DesktopEnv
req = json.loads(sys.stdin.read())
desktop = RetraceDesktop(req)
DesktopEnv._set_evaluator_info(desktop, req["task"])
_answer({"score": float(DesktopEnv.evaluate(desktop))})
`;

/** Where OSWorld's code reaches the desktop: the control server, and the ports it forwards. */
export interface OsworldBridgeDesktop {
  /** The control server's URL (e.g. `http://127.0.0.1:5000`). */
  url: string;
  /** Host port of Chromium's remote-debugging endpoint (OSWorld's `chromium_port`). @default 9222 */
  chromiumPort?: number;
  /** Host port of VLC's HTTP interface (OSWorld's `vlc_port`). @default 8080 */
  vlcPort?: number;
  /** The desktop user's sudo password (`{CLIENT_PASSWORD}`). @default "password" */
  password?: string;
  screen?: { width: number; height: number };
  /** OSWorld's cache folder (downloads and fetched files land under `<cacheDir>/<task id>`). */
  cacheDir: string;
}
const CALL = String.raw`
import json, sys, importlib
req = json.loads(sys.stdin.read())
metrics = importlib.import_module("desktop_env.evaluators.metrics")
fn = getattr(metrics, req["func"], None)
if fn is None:
    print(json.dumps({"error": "no metric " + req["func"]})); sys.exit(0)
args = [req["result"], req["expected"]] if req.get("expected") is not None else [req["result"]]
opts = req.get("options") or {}
print(json.dumps({"score": float(fn(*args, **opts))}))
`;

/** Options of {@link OsworldPythonBridge}. */
export interface OsworldPythonBridgeOptions {
  /** Python with OSWorld's requirements installed. @default "python3" */
  python?: string;
  /** The OSWorld checkout (added to PYTHONPATH). */
  osworldDir: string;
  /** @default 120000 */
  timeoutMs?: number;
}

function run(
  python: string,
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number; out: string; err: string; timedOut?: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(python, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), child.kill("SIGKILL")), timeoutMs);
    child.on("error", (e) => (clearTimeout(timer), resolve({ code: 127, out, err: e.message })));
    child.on("close", (code) => (clearTimeout(timer), resolve({ code: code ?? 1, out, err, timedOut })));
    child.stdin.end(input);
  });
}

/** Calls OSWorld's Python metrics where OSWorld is installed. */
export class OsworldPythonBridge {
  private readonly python: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly timeoutMs: number;

  constructor(options: OsworldPythonBridgeOptions) {
    this.python = options.python ?? "python3";
    this.env = { PATH: "/usr/local/bin:/usr/bin:/bin", PYTHONPATH: options.osworldDir, HOME: "/tmp" };
    this.timeoutMs = options.timeoutMs ?? 120_000;
  }

  /**
   * Whether OSWorld's code imports; when not, `reason` says what is missing. `"metrics"` checks its
   * metrics only ({@link metric}); `"full"` also its getters, controllers and environment class
   * ({@link setup}, {@link evaluate}).
   */
  async available(level: "metrics" | "full" = "metrics"): Promise<{ ok: boolean; reason?: string }> {
    const r = await run(this.python, ["-c", level === "full" ? PROBE_FULL : PROBE], "", this.env, 60_000);
    if (r.code === 0 && r.out.includes("ok")) return { ok: true };
    return { ok: false, reason: this.notImportable(level, r.err.trim().split("\n").pop() || `exit ${r.code}`) };
  }

  /** {@link available}, synchronously (for task selection before any episode). */
  availableSync(level: "metrics" | "full" = "metrics"): { ok: boolean; reason?: string } {
    const r = spawnSync(this.python, ["-c", level === "full" ? PROBE_FULL : PROBE], {
      env: this.env,
      timeout: 60_000,
      encoding: "utf8",
    });
    if (r.status === 0 && String(r.stdout).includes("ok")) return { ok: true };
    return {
      ok: false,
      reason: this.notImportable(
        level,
        String(r.stderr ?? r.error?.message ?? "")
          .trim()
          .split("\n")
          .pop() || `exit ${r.status}`,
      ),
    };
  }

  private notImportable(level: "metrics" | "full", last: string): string {
    const what =
      level === "full" ? "OSWorld's environment, controllers and evaluators are" : "OSWorld's evaluators are";
    return `${what} not importable with ${this.python} (${last}); install OSWorld and its requirements and pass its folder`;
  }

  /**
   * Run set-up steps (a task's `config`, or its evaluator's `postconfig`) with OSWorld's own
   * `SetupController` against the control server. Throws a one-line error when OSWorld's code
   * reports the set-up failed or raises.
   */
  async setup(steps: unknown[], desktop: OsworldBridgeDesktop, taskId?: string): Promise<void> {
    const r = await this.call(SETUP, { steps, ...this.where(desktop, taskId) }, "set-up");
    if (r.ok !== true)
      throw new ConfigError(`OSWorld's SetupController reported a failed set-up${taskId ? ` of task ${taskId}` : ""}`);
  }

  /**
   * Score a task with OSWorld's own evaluation: `DesktopEnv._set_evaluator_info` and
   * `DesktopEnv.evaluate` run unchanged (postconfig, getters, metrics, `conj`, infeasible tasks)
   * on a stand-in that points OSWorld's controllers at the control server. `lastAction` is the
   * agent's closing `DONE`/`FAIL`, which OSWorld's evaluation reads.
   */
  async evaluate(
    task: { id: string; evaluator: unknown },
    desktop: OsworldBridgeDesktop,
    lastAction?: "DONE" | "FAIL",
  ): Promise<number> {
    const r = await this.call(
      EVALUATE,
      { task, lastAction, ...this.where(desktop, task.id) },
      `evaluation of task ${task.id}`,
    );
    if (typeof r.score !== "number" || !Number.isFinite(r.score))
      throw new ConfigError(`OSWorld's evaluation of task ${task.id} gave no score`);
    return r.score;
  }

  private where(d: OsworldBridgeDesktop, taskId?: string): Record<string, unknown> {
    let u: URL;
    try {
      u = new URL(d.url);
    } catch {
      throw new ConfigError(`OSWorld bridge: not a control server URL: ${d.url}`);
    }
    return {
      host: u.hostname.replace(/^\[|\]$/g, ""),
      port: Number(u.port || (u.protocol === "https:" ? 443 : 80)),
      chromiumPort: d.chromiumPort,
      vlcPort: d.vlcPort,
      password: d.password,
      width: d.screen?.width,
      height: d.screen?.height,
      cacheDir: d.cacheDir,
      taskId,
    };
  }

  private async call(
    script: string,
    req: Record<string, unknown>,
    what: string,
  ): Promise<{ ok?: boolean; score?: number }> {
    const r = await run(this.python, ["-c", script], JSON.stringify(req), this.env, this.timeoutMs);
    const line = r.out
      .split("\n")
      .reverse()
      .find((l) => l.startsWith(MARK));
    if (line) return JSON.parse(line.slice(MARK.length)) as { ok?: boolean; score?: number };
    const last = r.timedOut
      ? `no answer within ${this.timeoutMs} ms`
      : r.err.trim().split("\n").pop() || `exit ${r.code}`;
    throw new ConfigError(`OSWorld's ${what} failed in Python: ${last}`);
  }

  /**
   * Score `func(result, expected, **options)`; result/expected are values or local file paths as OSWorld's getters
   * return.
   */
  async metric(func: string, result: unknown, expected?: unknown, options?: Record<string, unknown>): Promise<number> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(func)) throw new ConfigError(`not a metric name: ${func}`);
    const r = await run(
      this.python,
      ["-c", CALL],
      JSON.stringify({ func, result, expected, options }),
      this.env,
      this.timeoutMs,
    );
    const line = r.out.trim().split("\n").pop() ?? "";
    try {
      const parsed = JSON.parse(line) as { score?: number; error?: string };
      if (typeof parsed.score === "number") return parsed.score;
      throw new ConfigError(`OSWorld metric ${func}: ${parsed.error ?? "no score"}`);
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError(`OSWorld metric ${func} failed: ${r.err.trim().split("\n").pop() ?? line}`);
    }
  }
}
