/**
 * The built-in web apps' server (node:http, 127.0.0.1, an ephemeral port): webmail under /mail,
 * a shop under /shop, admin settings under /admin. Plain server-rendered HTML and form posts
 * (POST, then a redirect). Sessions are a `sid` cookie numbered from the state (`s1`, `s2`...),
 * so a fresh browser context gets the same session in every run.
 *
 * The state endpoint `/__retrace/state` (GET the JSON state, PUT a new one) needs the server's
 * token in `x-retrace-token`, so a page cannot read or change it; it is the protocol a user's own
 * app may implement for snapshots and checkers (see ../tasks/file.ts).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { adminRoute } from "./admin.ts";
import { mailRoute } from "./mail.ts";
import { shopRoute } from "./shop.ts";
import { fixtureState, type AppsState, type FixtureName } from "./state.ts";
import type { AppReply, AppRequest } from "./route.ts";
import { linkBox, page } from "./ui.ts";
import { EnvironmentError } from "@retrace-cua/core/errors";

/** Path of the state endpoint. */
export const STATE_PATH = "/__retrace/state";
/** Header carrying the state endpoint's token. */
export const STATE_TOKEN_HEADER = "x-retrace-token";
const MAX_BODY = 1 << 20;

/** A running app server. */
export interface AppServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  /** Token of the state endpoint. */
  readonly token: string;
  /** The live state (routes mutate it). */
  state: AppsState;
  /** Replace the state with a fresh fixture (every reset). */
  load(fixture: FixtureName): void;
  close(): Promise<void>;
}

/** Options of {@link startAppServer}. */
export interface AppServerOptions {
  /** Port. @default 0 (ephemeral) */
  port?: number;
}

function cookieSid(req: IncomingMessage): string | undefined {
  const m = /(?:^|;\s*)sid=(s\d+)/.exec(req.headers.cookie ?? "");
  return m?.[1];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new EnvironmentError("request body too large");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const HOME = page(
  "Apps",
  [],
  [
    linkBox("/mail", "Webmail", [220, 80, 300, 40]),
    linkBox("/shop", "Shop", [220, 140, 300, 40]),
    linkBox("/admin", "Admin settings", [220, 200, 300, 40]),
  ].join(""),
);

/** Start the apps on 127.0.0.1. Close it to free the port. */
export async function startAppServer(options: AppServerOptions = {}): Promise<AppServer> {
  const token = randomBytes(16).toString("hex");
  let state = fixtureState("default");

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = req.method ?? "GET";
    const body = method === "GET" || method === "HEAD" ? "" : await readBody(req);
    if (url.pathname === STATE_PATH) {
      if (req.headers[STATE_TOKEN_HEADER] !== token)
        return void res.writeHead(403).end("state endpoint: wrong or missing token\n");
      if (method === "GET")
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(state));
      if (method === "PUT") {
        state = JSON.parse(body) as AppsState;
        return void res.writeHead(204).end();
      }
      return void res.writeHead(405).end();
    }
    let session = cookieSid(req);
    const headers: Record<string, string> = { "cache-control": "no-store" };
    if (!session) {
      session = `s${state.nextSession++}`;
      headers["set-cookie"] = `sid=${session}; Path=/; HttpOnly; SameSite=Lax`;
    }
    const appReq: AppRequest = {
      method,
      path: url.pathname.replace(/\/+$/, "") || "/",
      query: url.searchParams,
      form: new URLSearchParams(body),
      session,
      referer: req.headers.referer,
    };
    const p = appReq.path;
    const reply: AppReply =
      p === "/"
        ? { html: HOME }
        : p.startsWith("/mail")
          ? mailRoute(appReq, state)
          : p.startsWith("/shop")
            ? shopRoute(appReq, state)
            : p.startsWith("/admin")
              ? adminRoute(appReq, state)
              : { status: 404, html: page("Not found", [], "") };
    if (reply.redirect) return void res.writeHead(303, { ...headers, location: reply.redirect }).end();
    res
      .writeHead(reply.status ?? 200, { ...headers, "content-type": "text/html; charset=utf-8" })
      .end(reply.html ?? "");
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(400, { "content-type": "text/plain" });
      res.end(`bad request: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    get state() {
      return state;
    },
    set state(s: AppsState) {
      state = s;
    },
    load(fixture) {
      state = fixtureState(fixture);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
