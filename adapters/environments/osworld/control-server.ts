/**
 * OSWorld's control-server API served by a local retrace desktop, so OSWorld's own client,
 * `SetupController` and evaluator getters run unchanged against it. Two trust levels
 * (docs/desktops.md, "OSWorld without a VM"):
 * - the host's own X11 desktop never runs code: `/execute` accepts pyautogui code (parsed by
 *   adapters/actions/pyautogui, executed as retrace Actions) and read-only Python lookups
 *   (host-python.ts); `/run_python`, `/run_bash_script`, shell commands and launching anything but
 *   the desktop's own apps are refused with OSWorld's error shape. Every endpoint that reads state
 *   or drives the desktop's own apps is served, for files inside the desktop user's home;
 * - a container desktop is a sandbox: commands run inside it (as OSWorld's VM server runs them),
 *   so the full API is served, `launch` of any installed program included.
 * Status codes and bodies follow OSWorld's server: text bodies where it returns text, `error` in
 * every JSON refusal, Python errors as 200 with `returncode: 1` and the traceback.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describeError } from "../../../src/errors.ts";
import { logger } from "../../../src/logger.ts";
import type { DesktopEnvironment } from "../x11/desktop-environment.ts";
import { HttpError, type Reply, type RouteContext } from "./control-http.ts";
import { osworldRoutes } from "./control-routes.ts";
import { OSWORLD_PORTS } from "./provider.ts";
import { ScreenRecorder } from "./recording.ts";

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
  /**
   * OSWorld's `chromium_port`: the host port that reaches port 9222 inside a container desktop
   * (where the tasks' `socat tcp-listen:9222,fork tcp:localhost:1337` meets Chromium's
   * `--remote-debugging-port=1337`), so the Chrome getters speak CDP to it. Undefined on the host
   * desktop, whose Chromium (if any) is the host's own.
   */
  chromiumPort?: number;
  /** `http://127.0.0.1:<chromiumPort>` for a CDP client (`connect_over_cdp`), when there is one. */
  chromiumUrl?: string;
  close(): Promise<void>;
}

/** Start the server; it serves until `close()`. */
export async function startOsworldControlServer(options: OsworldControlServerOptions): Promise<OsworldControlServer> {
  const { env } = options;
  const recorder = new ScreenRecorder(env.desktop);
  const ctx: RouteContext = { env, desktop: env.desktop, recorder, state: {} };
  const routes = osworldRoutes(ctx);
  // One request at a time acts on the desktop, as in OSWorld's single-threaded Flask server.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const key = `${req.method} ${path}`;
      const route = routes[key];
      const handle: Promise<Reply> = route
        ? serial(() => route(req, Buffer.concat(chunks)))
        : Promise.reject(new HttpError(routes[`POST ${path}`] || routes[`GET ${path}`] ? 405 : 404, `no such endpoint: ${key}`));
      handle.then(
        (reply) => send(res, reply),
        (err: unknown) => {
          const status = err instanceof HttpError ? err.status : 500;
          const message = err instanceof Error ? err.message : String(err);
          if (!(err instanceof HttpError)) logger.error({ err: describeError(err), key }, "control server error");
          if (err instanceof HttpError && err.text) send(res, { status, type: "text/html; charset=utf-8", body: message });
          else send(res, { status, type: "application/json", body: JSON.stringify({ status: "error", message, error: message }) });
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const chromium = env.desktop.forwardPort ? await env.desktop.forwardPort(OSWORLD_PORTS.chromium) : undefined;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    chromiumPort: chromium?.port,
    chromiumUrl: chromium ? `http://127.0.0.1:${chromium.port}` : undefined,
    close: async () => {
      await chromium?.close();
      await recorder.dispose();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.status, { "content-type": reply.type, ...(reply.filename ? { "content-disposition": `attachment; filename=${reply.filename}` } : {}) });
  res.end(reply.body);
}
