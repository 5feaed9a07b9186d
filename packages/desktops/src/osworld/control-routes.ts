/**
 * The endpoints of OSWorld's control-server API (control-server.ts): state reads (screenshot,
 * accessibility, terminal, cursor, window size, wallpaper, desktop path, directory tree, files),
 * recording, and the set-up endpoints that drive the desktop (upload, download, open_file,
 * activate/close window, change wallpaper). Code execution lives in control-exec.ts.
 * Paths: `~` and OSWorld's `/home/user` are the desktop user's home; the host desktop serves
 * paths inside that home only, a container desktop any path inside the container.
 */
import { EnvironmentError } from "@retrace-cua/core/errors";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DesktopApp } from "../desktop-tasks/types.ts";
import { frameToPng } from "../x11/frame.ts";
import { dumpOsworldAx, osworldAxXml, type RawAxNode } from "./ax-xml.ts";
import { execRoutes } from "./control-exec.ts";
import { HttpError, json, jsonBody, text, type Route, type RouteContext } from "./control-http.ts";
import { guardedDownload } from "./download-guard.ts";
import {
  FILE_MAX_BYTES,
  homeRelative,
  listDesktopDirectory,
  readDesktopFile,
  resolvePath,
  statPath,
  streamDesktopFile,
  writeDesktopFile,
} from "./control-files.ts";
import { parseForm } from "./multipart.ts";
import {
  activateWindow,
  closeWindow,
  cursorPosition,
  findSetupWindow,
  findWindows,
  waitForWindow,
  windowSize,
} from "./windows.ts";

/**
 * How long `activate_window` waits for its window to show (a program the step before started may still be starting).
 */
const SETUP_WINDOW_WAIT_MS = 5000;

/** The desktop's own apps, by the file extensions they open (the host desktop's `open_file`). */
const OPENERS: Array<[RegExp, DesktopApp]> = [
  [/\.(csv|tsv|xlsx?|ods|gnumeric)$/i, "gnumeric"],
  [/\.(txt|md|py|json|ya?ml|xml|html?|css|js|ts|sh|c|h|cpp|java|log|ini|cfg|conf|tex)$|^[^.]*$/i, "mousepad"],
];

/** The focused terminal's text, as OSWorld's `/terminal` finds it (null when none is active). */
function terminalText(apps: RawAxNode[]): string | null {
  const found: string[] = [];
  const walk = (n: RawAxNode, inActiveFrame: boolean): void => {
    const active = inActiveFrame || (n.role === "frame" && n.states.includes("active"));
    if (active && n.role === "terminal" && n.states.includes("focused")) found.push((n.text ?? "").trimEnd());
    for (const c of n.children ?? []) walk(c, active);
  };
  for (const app of apps) walk(app, false);
  return found.length === 1 ? found[0] : null;
}

/** A text field of a request ("" when absent); anything but a string (or a number) is a 400 naming the field. */
export function str(v: unknown, name = "field"): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  throw new HttpError(400, `${name} must be a string, not ${Array.isArray(v) ? "a list" : typeof v}`);
}

/** Longest `timeout_seconds` of `/setup/open_file` (every request has a deadline: control-server.ts). */
export const OPEN_FILE_MAX_WAIT_S = 120;

/** Every endpoint, keyed `METHOD /path`. */
export function osworldRoutes(ctx: RouteContext): Record<string, Route> {
  const { desktop } = ctx;
  const form = (req: IncomingMessage, body: Buffer) => {
    try {
      return parseForm(req.headers["content-type"], body);
    } catch (err) {
      throw new HttpError(400, `unreadable form body: ${(err as Error).message}`);
    }
  };
  const windowArgs = (b: Record<string, unknown>) => ({
    name: str(b.window_name, "window_name"),
    strict: b.strict === true,
    byClass: b.by_class === true,
  });

  return {
    ...execRoutes(ctx),
    "GET /screenshot": async () => ({
      status: 200,
      type: "image/png",
      body: await frameToPng(await desktop.captureFrame()),
    }),
    "GET /platform": async () => text("Linux"),
    "POST /screen_size": async () => json({ width: desktop.width, height: desktop.height }),
    "GET /accessibility": async () => {
      if (!desktop.accessibility)
        throw new HttpError(500, "this desktop has no accessibility support (install python3-pyatspi in it)");
      return json({ AT: osworldAxXml(await dumpOsworldAx(desktop)) });
    },
    "GET /terminal": async () =>
      json({ output: desktop.accessibility ? terminalText(await dumpOsworldAx(desktop)) : null, status: "success" }),
    "GET /cursor_position": async () => {
      const p = await cursorPosition(desktop);
      return json([p.x, p.y]);
    },
    "POST /window_size": async (req, body) => {
      const name = str(form(req, body).fields.app_class_name, "app_class_name");
      if (!name) return json({ error: "app_class_name is required" }, 400);
      const [id] = await findWindows(desktop, { name, byClass: true });
      const size = id ? await windowSize(desktop, id) : undefined;
      return size ? json(size) : json({ error: `no window of class ${name}` }, 404);
    },
    "POST /desktop_path": async () => {
      const path = `${desktop.homeDir}/Desktop`;
      return (await statPath(desktop, path)) === "dir"
        ? json({ desktop_path: path })
        : json({ error: "Unsupported operating system or desktop path not found" }, 404);
    },
    "POST /wallpaper": async () => {
      const file = ctx.state.wallpaper ? await readDesktopFile(desktop, ctx.state.wallpaper) : undefined;
      if (!file) return json({ error: "Wallpaper file not found" }, 404);
      return { status: 200, type: "image/png", body: file };
    },
    "POST /list_directory": async (req, body) => {
      const b = jsonBody(req, body);
      if (!("path" in b)) return json({ error: "Missing 'path' parameter" }, 400);
      const tree = await listDesktopDirectory(desktop, resolvePath(desktop, str(b.path, "path")));
      if (!tree) return json({ error: "The provided path is not a directory" }, 400);
      return json({ directory_tree: tree });
    },
    "POST /file": async (req, body, signal) => {
      const raw = str(form(req, body).fields.file_path, "file_path");
      if (!raw) return json({ error: "file_path is required" }, 400);
      const abs = resolvePath(desktop, raw);
      // on the host, any size streams (the bytes are sent after this request's turn in the queue)
      const file =
        desktop.sandboxed && (await statPath(desktop, abs)) !== "file"
          ? undefined
          : await streamDesktopFile(desktop, abs, signal);
      if (!file) return json({ error: "File not found" }, 404);
      if (Buffer.isBuffer(file))
        return { status: 200, type: "application/octet-stream", body: file, filename: abs.split("/").pop() };
      return { status: 200, type: "application/octet-stream", body: "", stream: file, filename: abs.split("/").pop() };
    },
    "POST /setup/upload": async (req, body) => {
      const f = form(req, body);
      const raw = str(f.fields.file_path, "file_path");
      const file = f.files.file_data;
      if (!raw || !file) return json({ error: "file_path and file_data are required" }, 400);
      await writeDesktopFile(desktop, resolvePath(desktop, raw), file.data);
      return text(`File Uploaded: ${file.data.length} bytes`);
    },
    "POST /setup/download_file": async (req, body) => {
      const b = jsonBody(req, body);
      const url = str(b.url, "url");
      const raw = str(b.path, "path");
      if (!url || !raw) return text("Path or URL not supplied!", 400);
      if (!/^https?:\/\//i.test(url)) throw new HttpError(400, `only http(s) URLs are downloaded, not ${url}`, true);
      const abs = resolvePath(desktop, raw);
      let error = "";
      for (let i = 0; i < 3; i++) {
        try {
          const data = await guardedDownload(url, { policy: ctx.downloads, maxBytes: FILE_MAX_BYTES });
          await writeDesktopFile(desktop, abs, data);
          return text(`File downloaded successfully: ${data.length} bytes`);
        } catch (err) {
          if (err instanceof HttpError) throw err;
          error = (err as Error).message;
        }
      }
      return text(`Failed to download ${url}. No retries left. Error: ${error}`, 500);
    },
    "POST /setup/open_file": async (req, body) => {
      const b = jsonBody(req, body);
      const raw = str(b.path, "path");
      if (!raw) return text("Path not supplied!", 400);
      const timeoutS = b.timeout_seconds === undefined ? 30 : b.timeout_seconds;
      if (
        typeof timeoutS !== "number" ||
        !Number.isFinite(timeoutS) ||
        timeoutS < 0 ||
        timeoutS > OPEN_FILE_MAX_WAIT_S
      ) {
        return text(`timeout_seconds must be a number of seconds from 0 to ${OPEN_FILE_MAX_WAIT_S}`, 400);
      }
      const abs = resolvePath(desktop, raw);
      const kind = await statPath(desktop, abs);
      if (kind === "link") return text(`${raw} is a symbolic link: the host desktop never follows links`, 403);
      if (kind !== "file") return text(`Application/file not found: ${raw}`, 404);
      const name = abs.split("/").pop()!;
      const app = OPENERS.find(([re]) => re.test(name))?.[1];
      if (app) {
        // an absolute path after "--": a file named "--gtk-module=..." is a file, never an option
        await desktop.launch({ app, args: ["--", abs] });
      } else if (desktop.spawnDetached) {
        await desktop.spawnDetached(["xdg-open", abs]);
      } else {
        throw new HttpError(
          501,
          `the host desktop opens files with its own apps only (text files with mousepad, spreadsheets with gnumeric), not ${name}`,
        );
      }
      const candidates = [str(b.window_name, "window_name") || undefined, name, name.replace(/\.[^.]*$/, "")].filter(
        (c): c is string => !!c,
      );
      const id = await waitForWindow(desktop, candidates, timeoutS * 1000);
      if (!id) return text(`Failed to find window for ${JSON.stringify(candidates)} within ${timeoutS} seconds.`, 500);
      await activateWindow(desktop, id);
      return text("File opened and window activated successfully");
    },
    "POST /setup/activate_window": async (req, body) => {
      const q = windowArgs(jsonBody(req, body));
      if (!q.name) return text("window_name required", 400);
      const id = await findSetupWindow(desktop, q, SETUP_WINDOW_WAIT_MS);
      if (!id) return text(`Window ${q.name} not found`, 404);
      if (!(await activateWindow(desktop, id))) return text(`Window ${q.name} could not be activated`, 500);
      return text("Window activated successfully");
    },
    "POST /setup/close_window": async (req, body) => {
      const q = windowArgs(jsonBody(req, body));
      if (!q.name) return text("window_name required", 400);
      const ids = await findWindows(desktop, q);
      if (!ids.length) return text(`Window ${q.name} not found`, 404);
      if (!(await closeWindow(desktop, ids[0]))) return text(`Window ${q.name} could not be closed`, 500);
      return text("Window closed successfully.");
    },
    "POST /setup/change_wallpaper": async (req, body) => {
      const raw = str(jsonBody(req, body).path, "path");
      if (!raw) return text("Path not supplied!", 400);
      const abs = resolvePath(desktop, raw);
      // On the host the image is read safely (home-files.ts) and copied into a folder of our own
      // that the desktop user may read but not change, so display opens no path of the request.
      let copy: { dir: string; file: string } | undefined;
      if (desktop.sandboxed) {
        if ((await statPath(desktop, abs)) !== "file") return text(`File not found: ${abs}`, 404);
      } else {
        const image = await readDesktopFile(desktop, abs);
        if (!image) return text(`File not found: ${abs}`, 404);
        const dir = await mkdtemp(join(tmpdir(), "retrace-wallpaper-"));
        await chmod(dir, 0o755);
        copy = { dir, file: join(dir, "wallpaper") };
        await writeFile(copy.file, image, { mode: 0o644 });
      }
      // ImageMagick's display paints the root window (the desktop's background) and exits; it
      // exits 1 after painting on Xvfb, so only what it prints on stderr counts as a failure.
      const r = await desktop
        .exec(["display", "-window", "root", "-resize", `${desktop.width}x${desktop.height}!`, copy?.file ?? abs], {
          timeoutMs: 15_000,
        })
        .finally(() => (copy ? rm(copy.dir, { recursive: true, force: true }) : undefined));
      if (r.code !== 0 && r.stderr.trim())
        return text(`Failed to change wallpaper. Error: ${r.stderr.trim().split("\n").pop() ?? r.code}`, 500);
      ctx.state.wallpaper = abs;
      return text("Wallpaper changed successfully");
    },
    "POST /start_recording": async () => {
      if (ctx.recorder.running)
        return json(
          { status: "error", message: "Recording is already in progress.", error: "Recording is already in progress." },
          400,
        );
      try {
        await ctx.recorder.start();
      } catch (err) {
        const message = `Failed to start recording. ${(err as Error).message}`;
        return json({ status: "error", message, error: message }, 500);
      }
      return json({ status: "success", message: "Started recording successfully." });
    },
    "POST /end_recording": async () => {
      if (!ctx.recorder.running)
        return json(
          { status: "error", message: "No recording in progress to stop.", error: "No recording in progress to stop." },
          400,
        );
      const { mp4, error } = await ctx.recorder.stop();
      if (!mp4) return json({ status: "error", message: error, error }, 500);
      return { status: 200, type: "video/mp4", body: mp4, filename: "recording.mp4" };
    },
  };
}
