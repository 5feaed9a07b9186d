/**
 * Replies and errors of the OSWorld control server (control-server.ts), shared by its route
 * handlers (control-routes.ts, control-exec.ts).
 */
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { RetraceError, type RetraceErrorCode } from "@retrace-cua/core/errors";
import type { DesktopBackend } from "../x11/backend.ts";
import type { DesktopEnvironment } from "../x11/desktop-environment.ts";
import type { ScreenRecorder } from "./recording.ts";

/** One HTTP reply. */
export interface Reply {
  status: number;
  type: string;
  body: Buffer | string;
  /** Sent as an attachment with this name (OSWorld's `send_file(..., as_attachment=True)`). */
  filename?: string;
  /**
   * Sent instead of `body`: `size` bytes from `body` as they come (a large `/file`), after the
   * request's turn in the queue; the request's deadline still ends it (the connection is cut).
   */
  stream?: { size: number; body: Readable };
}

/**
 * An answer other than success, with OSWorld's status code: the control server refuses a request (code HTTP_REFUSAL).
 */
export class HttpError extends RetraceError {
  readonly code: RetraceErrorCode = "HTTP_REFUSAL";
  constructor(
    readonly status: number,
    message: string,
    /** Reply as plain text (OSWorld's set-up endpoints) instead of a JSON `{status, message, error}`. */
    readonly text = false,
  ) {
    super(message);
  }
}

/** A JSON reply. */
export function json(value: unknown, status = 200): Reply {
  return { status, type: "application/json", body: JSON.stringify(value) };
}

/** A plain-text reply, as Flask sends a returned string. */
export function text(body: string, status = 200): Reply {
  return { status, type: "text/html; charset=utf-8", body };
}

/** Deepest nesting of objects and lists a JSON body may have (OSWorld's bodies have 3 or 4). */
export const JSON_MAX_DEPTH = 32;

/** Parse JSON text, refusing deeper nesting than {@link JSON_MAX_DEPTH} before parsing (one linear scan). */
export function parseJson(source: string): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > JSON_MAX_DEPTH)
        throw new HttpError(400, `the JSON body is nested deeper than ${JSON_MAX_DEPTH} levels`);
    } else if (c === 93 || c === 125) depth--;
  }
  return JSON.parse(source) as unknown;
}

/** The request's JSON body, or a 400. */
export function jsonBody(req: IncomingMessage, body: Buffer): Record<string, unknown> {
  if (!body.length) return {};
  try {
    const v = parseJson(body.toString("utf8"));
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch (err) {
    if (err instanceof HttpError) throw err;
  }
  throw new HttpError(400, `body must be a JSON object (content-type ${req.headers["content-type"] ?? "none"})`);
}

/** What `/setup/download_file` may fetch (./download-guard.ts). */
export interface DownloadPolicy {
  /** Allow 127.0.0.0/8 and ::1 (tests serve their files there). @default false */
  allowLoopback?: boolean;
}

/** What the route handlers share. */
export interface RouteContext {
  env: DesktopEnvironment;
  desktop: DesktopBackend;
  recorder: ScreenRecorder;
  /** Per-server state: the wallpaper set through `/setup/change_wallpaper`. */
  state: { wallpaper?: string };
  /** What `/setup/download_file` may fetch (./download-guard.ts). @default public addresses only */
  downloads?: DownloadPolicy;
}

/** A handler of one endpoint; `signal` aborts when the request passes its deadline. */
export type Route = (req: IncomingMessage, body: Buffer, signal: AbortSignal) => Promise<Reply>;
