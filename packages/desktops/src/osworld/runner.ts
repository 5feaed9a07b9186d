/**
 * Runs an OSWorld task's setup steps and its natively supported evaluators through an
 * {@link OsworldClient} (a real OSWorld VM or retrace's local control server). Unsupported and
 * failed steps are returned by name and fail the task's set-up ({@link setupProblem}), never
 * skipped silently.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { OsworldPythonBridge } from "./python-bridge.ts";
import {
  writeEpisodeOutput,
  type EpisodeOutputOptions,
  type EpisodeOutputSummary,
} from "@retrace-cua/core/store/episode-output";
import { ConfigError, EnvironmentError } from "@retrace-cua/core/errors";
import type { Evaluation } from "@retrace-cua/core/task";
import { CHROME_GETTERS, chromeGetter } from "./chrome-getters.ts";
import type { OsworldClient } from "./client.ts";
import { SUPPORTED_METRICS, SUPPORTED_SETUP, type OsworldTask } from "./tasks.ts";
import { pathInside } from "@retrace-cua/core/store/safe-path";
import { HttpError, type DownloadPolicy } from "./control-http.ts";
import { guardedDownload } from "./download-guard.ts";

/** What {@link runOsworldSetup} did. */
export interface SetupOutcome {
  ran: string[];
  unsupported: string[];
  /** Steps the server refused or that failed, with its message. */
  failed: Array<{ type: string; message: string }>;
}

type Step = OsworldTask["setup"][number];

/** Options of {@link runOsworldSetup}. */
export interface SetupOptions {
  /** Screen size for OSWorld's `{SCREEN_WIDTH}` placeholders. */
  screen?: { width: number; height: number };
  /**
   * Fetch a URL of a `download` step (default: {@link guardedDownload} under `downloads`, 3 tries
   * as OSWorld's SetupController; a refused address is not retried).
   */
  download?: (url: string) => Promise<Buffer>;
  /**
   * What a `download` step may fetch: the same rule as the control server's `/setup/download_file`
   * (./download-guard.ts): public addresses only; `allowLoopback` opts in to 127.0.0.1/::1.
   * @default public addresses only
   */
  downloads?: DownloadPolicy;
  /** Read a local file of an `upload_file` step. */
  readLocal?: (path: string) => Promise<Buffer>;
}

/** The largest file a `download` step fetches (the control server's `/file` and upload limit). */
const SETUP_DOWNLOAD_MAX_BYTES = 100 * 1024 * 1024;

/** A `download` step's fetch: only what `policy` allows (every hop checked), 3 tries; a refusal is final. */
async function fetchWithRetries(url: string, policy: DownloadPolicy): Promise<Buffer> {
  if (!/^https?:\/\//i.test(url))
    throw new ConfigError(`only http(s) URLs are downloaded, not ${url}`, { field: "url" });
  let last: unknown;
  for (let i = 0; i < 3; i++) {
    try {
      return await guardedDownload(url, { policy, maxBytes: SETUP_DOWNLOAD_MAX_BYTES, deadlineMs: 300_000 });
    } catch (err) {
      if (err instanceof HttpError) throw new ConfigError(`${url}: ${err.message}`, { field: "url" });
      last = err;
    }
  }
  throw new EnvironmentError(`download of ${url} failed: ${(last as Error).message}`, { cause: last });
}

/**
 * Execute the set-up steps in order, as OSWorld's SetupController does; collect the steps this
 * runtime cannot do and those that failed. The caller fails the task's set-up when either list is
 * not empty ({@link setupProblem}): a task never starts from a half-done set-up.
 */
export async function runOsworldSetup(
  client: OsworldClient,
  steps: Step[],
  screenOrOptions?: { width: number; height: number } | SetupOptions,
): Promise<SetupOutcome> {
  const options: SetupOptions =
    screenOrOptions && "width" in screenOrOptions
      ? { screen: screenOrOptions as { width: number; height: number } }
      : ((screenOrOptions as SetupOptions | undefined) ?? {});
  const download = options.download ?? ((url: string) => fetchWithRetries(url, options.downloads ?? {}));
  const out: SetupOutcome = { ran: [], unsupported: [], failed: [] };
  for (const step of steps) {
    if (!(SUPPORTED_SETUP as readonly string[]).includes(step.type)) {
      out.unsupported.push(step.type);
      continue;
    }
    const p = step.parameters as Record<string, unknown>;
    let r: { status: string; message?: string; error?: string; returncode?: number } = { status: "success" };
    try {
      switch (step.type) {
        case "sleep":
          await new Promise((res) => setTimeout(res, Number(p.seconds ?? 1) * 1000));
          break;
        case "execute":
        case "command": {
          const command = fillScreen(p.command, options.screen);
          r = await client.execute(command as string[] | string, p.shell === true);
          break;
        }
        case "execute_with_verification":
          r = await client.setup("execute_with_verification", { ...p, command: fillScreen(p.command, options.screen) });
          break;
        case "launch":
          r = await client.setup("launch", { command: p.command, shell: p.shell === true });
          break;
        case "open":
          r = await client.setup("open_file", {
            path: p.path,
            ...(p.window_name ? { window_name: p.window_name } : {}),
          });
          break;
        case "activate_window":
        case "close_window":
          r = await client.setup(step.type, {
            window_name: p.window_name,
            strict: p.strict ?? false,
            by_class: p.by_class ?? false,
          });
          break;
        case "change_wallpaper":
          r = await client.setup("change_wallpaper", { path: p.path });
          break;
        case "download":
        case "upload_file": {
          const files = (Array.isArray(p.files) ? p.files : []) as Array<Record<string, unknown>>;
          if (!files.length) throw new ConfigError(`a ${step.type} step without files`);
          for (const f of files) {
            const dest = String(f.path ?? "");
            if (!dest) throw new ConfigError(`a ${step.type} file without a path`);
            const data =
              step.type === "download"
                ? await download(String(f.url ?? ""))
                : await (options.readLocal ?? readFile)(String(f.local_path ?? ""));
            const up = await client.upload(dest, data);
            if (up.status !== "success") {
              r = up;
              break;
            }
          }
          break;
        }
      }
    } catch (err) {
      r = { status: "error", message: (err as Error).message };
    }
    // A command that ran but failed counts as failed only where OSWorld's controller checks it
    // (execute_with_verification).
    if (r.status === "success") out.ran.push(step.type);
    else out.failed.push({ type: step.type, message: r.message ?? r.error ?? r.status });
  }
  return out;
}

/** One line saying why a set-up cannot be trusted, or undefined when every step ran. */
export function setupProblem(taskId: string, o: SetupOutcome): string | undefined {
  const parts = [
    ...o.unsupported.map((t) => `step "${t}" cannot run on this desktop`),
    ...o.failed.map((f) => `step "${f.type}" failed: ${f.message.split("\n")[0].slice(0, 300)}`),
  ];
  return parts.length ? `OSWorld task ${taskId}: set-up not done (${parts.join("; ")})` : undefined;
}

/**
 * The desktop user's password that OSWorld's `{CLIENT_PASSWORD}` stands for (OSWorld's default; the container image
 * sets it).
 */
export const CLIENT_PASSWORD = "password";

/** OSWorld's `{SCREEN_WIDTH}`-style and `{CLIENT_PASSWORD}` placeholders in commands. */
function fillScreen(command: unknown, screen?: { width: number; height: number }): unknown {
  const fill = (s: string) =>
    (screen
      ? s
          .replaceAll("{SCREEN_WIDTH_HALF}", String(screen.width / 2))
          .replaceAll("{SCREEN_HEIGHT_HALF}", String(screen.height / 2))
          .replaceAll("{SCREEN_WIDTH}", String(screen.width))
          .replaceAll("{SCREEN_HEIGHT}", String(screen.height))
      : s
    ).replaceAll("{CLIENT_PASSWORD}", CLIENT_PASSWORD);
  return Array.isArray(command)
    ? command.map((c) => (typeof c === "string" ? fill(c) : c))
    : typeof command === "string"
      ? fill(command)
      : command;
}

type Getter = { type: string; [k: string]: unknown };

async function getValue(client: OsworldClient, g: Getter): Promise<unknown> {
  switch (g.type) {
    case "vm_file": {
      const bytes = await client.file(String(g.path));
      return bytes?.toString("utf8");
    }
    case "vm_command_line": {
      // OSWorld's getter runs the command on the VM and returns its stdout.
      const r = await client.execute(fillScreen(g.command, undefined) as string[] | string, g.shell === true);
      return r.status === "success" ? (r.output ?? "") : null;
    }
    case "vm_terminal_output":
      return client.terminalOutput();
    case "rule":
      return g.rules;
    case "cloud_file_text":
      return g.text;
    default:
      if ((CHROME_GETTERS as readonly string[]).includes(g.type))
        return chromeGetter(client, g.type as (typeof CHROME_GETTERS)[number]);
      throw new ConfigError(`getter "${g.type}" is not supported natively; use the OSWorld Python bridge`);
  }
}

/** Compute one supported metric. */
export function metric(func: string, result: unknown, expected: unknown): number {
  const rules = (expected ?? {}) as Record<string, unknown>;
  switch (func) {
    case "infeasible":
      return 0;
    case "exact_match":
      return result === rules.expected ? 1 : 0;
    case "literal_match":
      return JSON.stringify(result) === JSON.stringify(rules.expected) ? 1 : 0;
    case "match_in_list":
      return Array.isArray(rules.expected) && rules.expected.includes(result) ? 1 : 0;
    case "check_include_exclude": {
      const text = String(result ?? "");
      const inc = (rules.include as string[] | undefined) ?? [];
      const exc = (rules.exclude as string[] | undefined) ?? [];
      return inc.every((s) => text.includes(s)) && !exc.some((s) => text.includes(s)) ? 1 : 0;
    }
    case "compare_text_file":
      return typeof result === "string" && typeof expected === "string" && result === expected ? 1 : 0;
    default:
      throw new ConfigError(`metric "${func}" is not supported natively; use the OSWorld Python bridge`);
  }
}

/**
 * Evaluate a task whose metrics are all native (`task.support.unsupportedMetrics` empty).
 * `infeasible` tasks score 1 only when the agent's last action was FAIL, as in OSWorld.
 */
export async function evaluateOsworldNative(
  client: OsworldClient,
  task: OsworldTask,
  lastActionWasFail = false,
  /** Called with each getter's value (a check counts getters that gave None). */
  onGetter?: (type: string, value: unknown) => void,
): Promise<Evaluation> {
  const ev = task.evaluator;
  const funcs = Array.isArray(ev.func) ? ev.func : [ev.func];
  const missing = funcs.filter((f) => !(SUPPORTED_METRICS as readonly string[]).includes(f));
  if (missing.length)
    throw new ConfigError(
      `task ${task.id}: metrics ${missing.join(", ")} need OSWorld's Python evaluators (the bridge)`,
    );
  if (funcs[0] === "infeasible")
    return { score: lastActionWasFail ? 1 : 0, detail: "infeasible task: success means the agent answered FAIL" };
  const results = (Array.isArray(ev.result) ? ev.result : [ev.result]) as Getter[];
  const expecteds = (Array.isArray(ev.expected) ? ev.expected : [ev.expected]) as Array<Getter | undefined>;
  const scores: number[] = [];
  const value = async (g: Getter) => {
    const v = await getValue(client, g);
    onGetter?.(g.type, v);
    return v;
  };
  for (const [i, func] of funcs.entries()) {
    const got = await value(results[i] ?? results[0]);
    const exp = expecteds[i] ?? expecteds[0];
    scores.push(metric(func, got, exp ? await value(exp) : undefined));
  }
  const score = ev.conj === "or" ? Math.max(...scores) : scores.every((s) => s > 0) ? Math.min(...scores) : 0;
  return { score, detail: `${funcs.join(ev.conj === "or" ? " or " : " and ")}: ${scores.join(", ")}` };
}

/**
 * Evaluate a task whose setup and getters are native but some metrics are not: native metrics run
 * here, the others through OSWorld's own Python code ({@link OsworldPythonBridge}). As in OSWorld,
 * a `vm_file` result reaches a Python metric as a local file path (fetched into `workDir`).
 */
export async function evaluateOsworldBridged(
  client: OsworldClient,
  task: OsworldTask,
  bridge: OsworldPythonBridge,
  workDir: string,
  lastActionWasFail = false,
): Promise<Evaluation> {
  const ev = task.evaluator;
  const funcs = Array.isArray(ev.func) ? ev.func : [ev.func];
  if (funcs[0] === "infeasible")
    return { score: lastActionWasFail ? 1 : 0, detail: "infeasible task: success means the agent answered FAIL" };
  const results = (Array.isArray(ev.result) ? ev.result : [ev.result]) as Getter[];
  const expecteds = (Array.isArray(ev.expected) ? ev.expected : [ev.expected]) as Array<Getter | undefined>;
  const options = (Array.isArray(ev.options) ? ev.options : [ev.options]) as Array<Record<string, unknown> | undefined>;
  const scores: number[] = [];
  for (const [i, func] of funcs.entries()) {
    const exp = expecteds[i] ?? expecteds[0];
    if ((SUPPORTED_METRICS as readonly string[]).includes(func)) {
      scores.push(
        metric(func, await getValue(client, results[i] ?? results[0]), exp ? await getValue(client, exp) : undefined),
      );
      continue;
    }
    const python = async (g: Getter | undefined) => {
      if (!g) return undefined;
      if (g.type !== "vm_file") return getValue(client, g);
      const bytes = await client.file(String(g.path));
      if (!bytes) return null; // OSWorld's getter returns None for a missing file
      mkdirSync(workDir, { recursive: true });
      const local = join(workDir, `${i}-${basename(String(g.dest ?? g.path))}`);
      writeFileSync(local, bytes);
      return local;
    };
    scores.push(
      await bridge.metric(func, await python(results[i] ?? results[0]), await python(exp), options[i] ?? options[0]),
    );
  }
  const score = ev.conj === "or" ? Math.max(...scores) : scores.every((s) => s > 0) ? Math.min(...scores) : 0;
  return {
    score,
    detail: `${funcs.join(ev.conj === "or" ? " or " : " and ")}: ${scores.join(", ")} (OSWorld's Python evaluators)`,
  };
}

/**
 * OSWorld's results folder for one task: `<root>/<action_space>/<observation_type>/<model>/<domain>/<id>`.
 * Every part is an id (a ConfigError otherwise); a model name's `/` (e.g. `Qwen/Qwen2.5-VL`) becomes `_`.
 */
export function osworldResultDir(
  root: string,
  o: { actionSpace: string; observationType: string; model: string; domain: string; taskId: string },
): string {
  return pathInside(
    root,
    [o.actionSpace, o.observationType, o.model.replace(/[/\\]/g, "_"), o.domain, o.taskId],
    `OSWorld result folder of task ${o.taskId}`,
  );
}

/** Write one episode where OSWorld's result viewers look (traj.jsonl, step_N.png, result.txt). */
export function writeOsworldResult(
  root: string,
  where: { actionSpace: string; observationType: string; model: string; domain: string; taskId: string },
  output: Omit<EpisodeOutputOptions, "dir">,
): Promise<EpisodeOutputSummary> {
  return writeEpisodeOutput({ ...output, dir: osworldResultDir(root, where) });
}
