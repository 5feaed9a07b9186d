/**
 * Optional bridge to OSWorld's own Python evaluators, for scores identical to the official
 * harness. It spawns `python3` with a fixed script that imports `desktop_env.evaluators.metrics`
 * from the user's OSWorld checkout and calls one metric on files retrace already fetched.
 * Model output never reaches this script; only task-file metric names and local file paths do.
 */
import { spawn, spawnSync } from "node:child_process";
import { ConfigError } from "../../../src/errors.ts";

const PROBE = "import desktop_env.evaluators.metrics as m; print('ok')";
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

function run(python: string, args: string[], input: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(python, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (e) => (clearTimeout(timer), resolve({ code: 127, out, err: e.message })));
    child.on("close", (code) => (clearTimeout(timer), resolve({ code: code ?? 1, out, err })));
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

  /** Whether OSWorld's evaluators import; when not, `reason` says what is missing. */
  async available(): Promise<{ ok: boolean; reason?: string }> {
    const r = await run(this.python, ["-c", PROBE], "", this.env, 60_000);
    if (r.code === 0 && r.out.includes("ok")) return { ok: true };
    const last = r.err.trim().split("\n").pop() ?? `exit ${r.code}`;
    return { ok: false, reason: `OSWorld's evaluators are not importable with ${this.python} (${last}); install OSWorld and its requirements and pass its folder` };
  }

  /** {@link available}, synchronously (for task selection before any episode). */
  availableSync(): { ok: boolean; reason?: string } {
    const r = spawnSync(this.python, ["-c", PROBE], { env: this.env, timeout: 60_000, encoding: "utf8" });
    if (r.status === 0 && String(r.stdout).includes("ok")) return { ok: true };
    const last = String(r.stderr ?? r.error?.message ?? "").trim().split("\n").pop() || `exit ${r.status}`;
    return { ok: false, reason: `OSWorld's evaluators are not importable with ${this.python} (${last}); install OSWorld and its requirements and pass its folder` };
  }

  /** Score `func(result, expected, **options)`; result/expected are values or local file paths as OSWorld's getters return. */
  async metric(func: string, result: unknown, expected?: unknown, options?: Record<string, unknown>): Promise<number> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(func)) throw new ConfigError(`not a metric name: ${func}`);
    const r = await run(this.python, ["-c", CALL], JSON.stringify({ func, result, expected, options }), this.env, this.timeoutMs);
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
