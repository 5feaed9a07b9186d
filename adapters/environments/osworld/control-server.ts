/**
 * OSWorld's control-server protocol served by a local retrace desktop (X11 or container), so
 * OSWorld clients and harness code can drive it. `/execute` accepts ONLY pyautogui code, parsed
 * by adapters/actions/pyautogui (never run), and executed as retrace Actions through xdotool.
 * Endpoints that would run arbitrary code (`/run_python`, `/run_bash_script`, shell commands)
 * answer 501 with the reason.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parsePyautogui } from "../../actions/pyautogui/convert.ts";
import { describeError } from "../../../src/errors.ts";
import { logger } from "../../../src/logger.ts";
import type { AxNode } from "../../../src/observation.ts";
import { DESKTOP_APPS, type DesktopApp } from "../desktop-tasks/types.ts";
import { dumpAxTree } from "../x11/accessibility.ts";
import type { DesktopEnvironment } from "../x11/desktop-environment.ts";
import { frameToPng } from "../x11/frame.ts";

/** Options of {@link startOsworldControlServer}. */
export interface OsworldControlServerOptions {
  /** A desktop already reset to a task. */
  env: DesktopEnvironment;
  /** @default "127.0.0.1" */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
}

/** A running control server. */
export interface OsworldControlServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const HOME_PREFIXES = ["~/", "/home/user/", "/home/cua/"];

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Start the server; it serves until `close()`. */
export async function startOsworldControlServer(options: OsworldControlServerOptions): Promise<OsworldControlServer> {
  const { env } = options;
  const desktop = env.desktop;
  // One request at a time acts on the desktop, as in OSWorld's single-threaded Flask server.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  const routes: Record<string, (req: IncomingMessage, body: Buffer) => Promise<[number, string, Buffer | string]>> = {
    "GET /screenshot": async () => [200, "image/png", await frameToPng(await desktop.captureFrame())],
    "GET /platform": async () => [200, "text/plain", "Linux"],
    "POST /screen_size": async () => json({ width: desktop.width, height: desktop.height }),
    "GET /accessibility": async () => {
      if (!desktop.accessibility) throw new HttpError(501, "this desktop has no accessibility support (install python3-pyatspi in it)");
      return json({ AT: axToXml(await dumpAxTree(desktop)) });
    },
    "POST /execute": async (_req, body) => execute(parseBody(body)),
    "POST /setup/execute": async (_req, body) => execute(parseBody(body)),
    "POST /file": async (req, body) => {
      const fields = req.headers["content-type"]?.includes("json") ? parseBody(body) : Object.fromEntries(new URLSearchParams(body.toString()));
      const path = String(fields.file_path ?? "");
      const rel = homeRelative(path);
      if (!rel) throw new HttpError(404, `file_path must be inside the user's home (${HOME_PREFIXES.join(", ")}): ${path}`);
      const bytes = await desktop.readHomeFile(rel);
      if (!bytes) throw new HttpError(404, `file not found: ${path}`);
      return [200, "application/octet-stream", bytes];
    },
    "POST /setup/launch": async (_req, body) => {
      const { command } = parseBody(body) as { command?: unknown };
      const argv = typeof command === "string" ? command.split(/\s+/) : Array.isArray(command) ? command.map(String) : [];
      if (!DESKTOP_APPS.includes(argv[0] as DesktopApp)) throw new HttpError(501, `launch supports only the desktop's apps (${DESKTOP_APPS.join(", ")}), not "${argv[0] ?? ""}"`);
      await desktop.launch({ app: argv[0] as DesktopApp, args: argv.slice(1) });
      return json({ status: "success", message: `launched ${argv[0]}` });
    },
  };

  async function execute(body: Record<string, unknown>): Promise<[number, string, string]> {
    const code = pythonCode(body.command, body.shell === true);
    let actions;
    try {
      actions = parsePyautogui(code, { screen: { width: desktop.width, height: desktop.height } });
    } catch (err) {
      return json({ status: "error", output: "", error: describeError(err), returncode: 1 }, 400);
    }
    for (const action of actions) await env.step(action);
    return json({ status: "success", output: "", error: "", returncode: 0 });
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const key = `${req.method} ${new URL(req.url ?? "/", "http://x").pathname}`;
      const route = routes[key];
      const handle = route
        ? serial(() => route(req, Buffer.concat(chunks)))
        : Promise.reject(new HttpError(key.includes(" /setup/") || key.endsWith("/run_python") || key.endsWith("/run_bash_script") ? 501 : 404, unsupportedMessage(key)));
      handle.then(
        ([status, type, body]) => send(res, status, type, body),
        (err: unknown) => {
          const status = err instanceof HttpError ? err.status : 500;
          if (status === 500) logger.error({ err: describeError(err), key }, "control server error");
          send(res, status, "application/json", JSON.stringify({ status: "error", message: err instanceof Error ? err.message : String(err) }));
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function unsupportedMessage(key: string): string {
  if (key.endsWith("/run_python") || key.endsWith("/run_bash_script")) {
    return `${key} is not supported: this control server never runs arbitrary code, only pyautogui commands via /execute`;
  }
  if (key.includes(" /setup/")) return `${key} is not supported by retrace's local control server (supported: /setup/execute, /setup/launch)`;
  return `no such endpoint: ${key}`;
}

/** The pyautogui code inside an OSWorld /execute command (`["python", "-c", code]`). */
export function pythonCode(command: unknown, shell: boolean): string {
  let argv: string[];
  if (Array.isArray(command)) argv = command.map(String);
  else if (typeof command === "string" && shell) {
    const m = /^python3?\s+-c\s+(["'])([\s\S]*)\1\s*$/.exec(command.trim());
    if (!m) throw new HttpError(501, "shell commands are not run here; send [\"python\", \"-c\", \"<pyautogui code>\"]");
    return m[2];
  } else throw new HttpError(400, "command must be a list like [\"python\", \"-c\", \"<pyautogui code>\"]");
  if (argv.length === 3 && /^python3?$/.test(argv[0]) && argv[1] === "-c") return argv[2];
  throw new HttpError(501, `only python -c <pyautogui code> is executed here, not "${argv.join(" ").slice(0, 80)}"`);
}

function homeRelative(path: string): string | undefined {
  for (const p of HOME_PREFIXES) {
    if (path.startsWith(p)) {
      const rel = path.slice(p.length);
      return rel && !rel.split("/").includes("..") ? rel : undefined;
    }
  }
  return undefined;
}

function parseBody(body: Buffer): Record<string, unknown> {
  if (!body.length) return {};
  try {
    return JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new HttpError(400, "body must be JSON");
  }
}

function json(value: unknown, status = 200): [number, string, string] {
  return [status, "application/json", JSON.stringify(value)];
}

function send(res: ServerResponse, status: number, type: string, body: Buffer | string): void {
  res.writeHead(status, { "content-type": type });
  res.end(body);
}

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** OSWorld-like XML for an accessibility tree. */
export function axToXml(node: AxNode): string {
  const tag = node.role.replace(/[^a-zA-Z0-9-]+/g, "-") || "node";
  const attrs = [`name="${esc(node.name)}"`];
  if (node.bounds) attrs.push(`screencoord="(${node.bounds[0]}, ${node.bounds[1]})"`, `size="(${node.bounds[2]}, ${node.bounds[3]})"`);
  for (const s of node.states ?? []) attrs.push(`st:${s}="true"`);
  const inner = (node.value ? esc(node.value) : "") + (node.children ?? []).map(axToXml).join("");
  return `<${tag} ${attrs.join(" ")}>${inner}</${tag}>`;
}
