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
import { describeError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import type { DesktopEnvironment } from "../x11/desktop-environment.ts";
import { FILE_MAX_BYTES } from "./control-files.ts";
import { HttpError, type DownloadPolicy, type Reply, type RouteContext } from "./control-http.ts";
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
  /**
   * Longest a request may take, from its first byte to its answer (a 504 beyond, and the next
   * request is served). @default 180000 (above `/execute`'s 120 s command deadline)
   */
  requestDeadlineMs?: number;
  /**
   * What `/setup/download_file` may fetch: public addresses only, plus loopback with `allowLoopback`
   * (./download-guard.ts).
   */
  downloads?: DownloadPolicy;
}

/**
 * Largest request body by endpoint (default {@link BODY_LIMIT_BYTES}); refused with 413 while it arrives, never
 * buffered whole.
 */
export const BODY_LIMITS: Record<string, number> = {
  "/setup/upload": FILE_MAX_BYTES + 1024 * 1024,
};
/** Largest body of any other endpoint (code, paths, window names). */
export const BODY_LIMIT_BYTES = 256 * 1024;
/** After a handler is aborted at its deadline, how long the next request waits for it to settle. */
const ABORT_GRACE_MS = 5_000;
const DEFAULT_DEADLINE_MS = 180_000;

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
  const ctx: RouteContext = {
    env,
    desktop: env.desktop,
    recorder,
    state: {},
    ...(options.downloads && { downloads: options.downloads }),
  };
  const routes = osworldRoutes(ctx);
  const deadlineMs = options.requestDeadlineMs ?? DEFAULT_DEADLINE_MS;
  // One request at a time acts on the desktop, as in OSWorld's single-threaded Flask server; a
  // request past its deadline is answered 504 and its signal aborted, and the next one goes on.
  // The next request starts only when the previous handler has settled (it is aborted at its
  // deadline, and its caller answered 504 then), or ABORT_GRACE_MS after that abort when a handler
  // ignores its signal: two requests never act on the desktop at once, and none holds the server.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = (fn: (signal: AbortSignal) => Promise<Reply>, deadline: number): Promise<Reply> => {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const run = (): Promise<Reply> => {
      const left = deadline - Date.now();
      if (left <= 0) {
        release();
        return Promise.reject(
          new HttpError(504, `the request waited past its deadline of ${deadlineMs} ms behind others`),
        );
      }
      const abort = new AbortController();
      const work = fn(abort.signal);
      let timer: NodeJS.Timeout | undefined;
      let grace: NodeJS.Timeout | undefined;
      void work.then(
        () => release(),
        () => release(),
      );
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          abort.abort();
          grace = setTimeout(release, ABORT_GRACE_MS);
          reject(new HttpError(504, `the request took longer than its deadline of ${deadlineMs} ms`));
        }, left);
      });
      void done.then(() => clearTimeout(grace));
      return Promise.race([work, expired]).finally(() => clearTimeout(timer));
    };
    const next = queue.then(run, run);
    queue = done;
    return next;
  };

  const server: Server = createServer((req, res) => {
    const deadline = Date.now() + deadlineMs;
    let path: string;
    try {
      path = new URL(req.url ?? "/", "http://x").pathname;
    } catch {
      res.setHeader("connection", "close");
      send(res, {
        status: 400,
        type: "application/json",
        body: JSON.stringify({
          status: "error",
          message: "the request line names no valid path",
          error: "the request line names no valid path",
        }),
      });
      return;
    }
    const key = `${req.method} ${path}`;
    const route = routes[key];
    const fail = (err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = oneLine(err instanceof Error ? err.message : String(err));
      if (!(err instanceof HttpError)) logger.error({ err: describeError(err), key }, "control server error");
      if (err instanceof HttpError && err.text) send(res, { status, type: "text/html; charset=utf-8", body: message });
      else
        send(res, {
          status,
          type: "application/json",
          body: JSON.stringify({ status: "error", message, error: message }),
        });
    };
    const limit = BODY_LIMITS[path] ?? BODY_LIMIT_BYTES;
    const tooLarge = (size: number) => {
      // answered at once; the rest of the body is never read (the connection closes after the answer)
      res.setHeader("connection", "close");
      res.once("finish", () => req.socket.destroy());
      fail(new HttpError(413, `the request body is ${size} bytes or more; ${path} accepts at most ${limit}`));
    };
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limit) {
      req.pause();
      tooLarge(declared);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        req.pause();
        tooLarge(size);
      } else chunks.push(c);
    });
    req.on("error", () => undefined);
    req.on("end", () => {
      if (refused) return;
      const handle: Promise<Reply> = route
        ? serial(async (signal) => route(req, Buffer.concat(chunks), signal), deadline)
        : Promise.reject(
            new HttpError(routes[`POST ${path}`] || routes[`GET ${path}`] ? 405 : 404, `no such endpoint: ${key}`),
          );
      handle.then((reply) => send(res, reply, deadline), fail);
    });
  });
  // the body itself has a deadline too: a client that trickles it is cut off
  server.requestTimeout = Math.min(deadlineMs, 120_000);
  server.headersTimeout = Math.min(deadlineMs, 20_000);
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

/** The first line of an error message, at most 500 characters (a refusal is one line). */
function oneLine(message: string): string {
  const line = message.split("\n")[0] ?? "";
  return line.length > 500 ? `${line.slice(0, 500)}...` : line;
}

function send(res: ServerResponse, reply: Reply, deadline = Infinity): void {
  if (res.headersSent) {
    reply.stream?.body.destroy();
    return;
  }
  const headers = {
    "content-type": reply.type,
    ...(reply.filename ? { "content-disposition": `attachment; filename=${reply.filename}` } : {}),
  };
  if (!reply.stream) {
    res.writeHead(reply.status, headers);
    res.end(reply.body);
    return;
  }
  // A streamed file: Content-Length up front; the request's deadline cuts the connection, and a
  // read that ends short (the file shrank, the reader died) cuts it too, so a client never takes a
  // short body for the whole file. Closing the response kills the reading process.
  const { size, body } = reply.stream;
  res.writeHead(reply.status, { ...headers, "content-length": String(size) });
  const cut = () => {
    body.destroy();
    res.destroy();
  };
  const timer = setTimeout(cut, Math.max(0, Math.min(deadline - Date.now(), 2 ** 31 - 1)));
  res.once("close", () => {
    clearTimeout(timer);
    body.destroy();
  });
  body.once("error", cut);
  body.pipe(res);
}
