/**
 * The endpoints of OSWorld's control-server API (control-server.ts): state reads (screenshot,
 * accessibility, terminal, cursor, window size, wallpaper, desktop path, directory tree, files),
 * recording, and the set-up endpoints that drive the desktop (upload, download, open_file,
 * activate/close window, change wallpaper). Code execution lives in control-exec.ts.
 * Paths: `~` and OSWorld's `/home/user` are the desktop user's home; the host desktop serves
 * paths inside that home only, a container desktop any path inside the container.
 */
import type { IncomingMessage } from "node:http";
import type { DesktopApp } from "../desktop-tasks/types.ts";
import type { DesktopBackend } from "../x11/backend.ts";
import { frameToPng } from "../x11/frame.ts";
import { dumpOsworldAx, osworldAxXml, type RawAxNode } from "./ax-xml.ts";
import { execRoutes } from "./control-exec.ts";
import { HttpError, json, jsonBody, text, type Route, type RouteContext } from "./control-http.ts";
import { expandUser } from "./host-python.ts";
import { parseForm } from "./multipart.ts";
import { activateWindow, closeWindow, cursorPosition, findSetupWindow, findWindows, waitForWindow, windowSize } from "./windows.ts";

/** How long `activate_window` waits for its window to show (a program the step before started may still be starting). */
const SETUP_WINDOW_WAIT_MS = 5000;

/** The desktop's own apps, by the file extensions they open (the host desktop's `open_file`). */
const OPENERS: Array<[RegExp, DesktopApp]> = [
  [/\.(csv|tsv|xlsx?|ods|gnumeric)$/i, "gnumeric"],
  [/\.(txt|md|py|json|ya?ml|xml|html?|css|js|ts|sh|c|h|cpp|java|log|ini|cfg|conf|tex)$|^[^.]*$/i, "mousepad"],
];

/** A path from a request, resolved for this desktop (or a 403 refusal on the host outside its home). */
export function resolvePath(desktop: DesktopBackend, raw: string): string {
  const home = desktop.homeDir;
  const path = expandUser(raw.replace(/\$HOME\b/g, "~"), home);
  if (desktop.sandboxed) return path;
  const inside = (path === home || path.startsWith(home + "/")) && !path.split("/").includes("..");
  if (!inside) throw new HttpError(403, `the host desktop serves files inside the desktop user's home only (~/ or /home/user/), not ${raw}`);
  return path;
}

function homeRelative(desktop: DesktopBackend, abs: string): string | undefined {
  const home = desktop.homeDir;
  return abs.startsWith(home + "/") ? abs.slice(home.length + 1) : undefined;
}

/** Read a file of the desktop (undefined when it does not exist). */
export async function readDesktopFile(desktop: DesktopBackend, abs: string): Promise<Buffer | undefined> {
  const rel = homeRelative(desktop, abs);
  if (rel !== undefined) return desktop.readHomeFile(rel);
  const r = await desktop.exec(["cat", "--", abs], { timeoutMs: 30_000 });
  return r.code === 0 ? r.stdout : undefined;
}

async function statPath(desktop: DesktopBackend, abs: string): Promise<"file" | "dir" | undefined> {
  const r = await desktop.exec(["stat", "-L", "-c", "%F", "--", abs], { timeoutMs: 5000 });
  if (r.code !== 0) return undefined;
  return r.stdout.toString().includes("directory") ? "dir" : "file";
}

interface DirTree {
  type: "directory" | "file";
  name: string;
  children?: DirTree[];
}

async function directoryTree(desktop: DesktopBackend, abs: string): Promise<DirTree> {
  const r = await desktop.exec(["find", abs, "-mindepth", "1", "-maxdepth", "12", "-printf", "%y %P\\n"], { timeoutMs: 30_000 });
  const root: DirTree = { type: "directory", name: abs.replace(/\/+$/, "").split("/").pop() ?? "", children: [] };
  for (const line of r.stdout.toString().split("\n").filter(Boolean).sort((a, b) => a.slice(2).localeCompare(b.slice(2)))) {
    const kind = line[0];
    const parts = line.slice(2).split("/");
    let node = root;
    for (const dir of parts.slice(0, -1)) node = node.children?.find((c) => c.name === dir && c.type === "directory") ?? node;
    node.children ??= [];
    node.children.push(kind === "d" ? { type: "directory", name: parts[parts.length - 1], children: [] } : { type: "file", name: parts[parts.length - 1] });
  }
  return root;
}

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

function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

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
  const windowArgs = (b: Record<string, unknown>) => ({ name: str(b.window_name), strict: b.strict === true, byClass: b.by_class === true });

  return {
    ...execRoutes(ctx),
    "GET /screenshot": async () => ({ status: 200, type: "image/png", body: await frameToPng(await desktop.captureFrame()) }),
    "GET /platform": async () => text("Linux"),
    "POST /screen_size": async () => json({ width: desktop.width, height: desktop.height }),
    "GET /accessibility": async () => {
      if (!desktop.accessibility) throw new HttpError(500, "this desktop has no accessibility support (install python3-pyatspi in it)");
      return json({ AT: osworldAxXml(await dumpOsworldAx(desktop)) });
    },
    "GET /terminal": async () => json({ output: desktop.accessibility ? terminalText(await dumpOsworldAx(desktop)) : null, status: "success" }),
    "GET /cursor_position": async () => {
      const p = await cursorPosition(desktop);
      return json([p.x, p.y]);
    },
    "POST /window_size": async (req, body) => {
      const name = str(form(req, body).fields.app_class_name);
      if (!name) return json({ error: "app_class_name is required" }, 400);
      const [id] = await findWindows(desktop, { name, byClass: true });
      const size = id ? await windowSize(desktop, id) : undefined;
      return size ? json(size) : json({ error: `no window of class ${name}` }, 404);
    },
    "POST /desktop_path": async () => {
      const path = `${desktop.homeDir}/Desktop`;
      return (await statPath(desktop, path)) === "dir" ? json({ desktop_path: path }) : json({ error: "Unsupported operating system or desktop path not found" }, 404);
    },
    "POST /wallpaper": async () => {
      const file = ctx.state.wallpaper ? await readDesktopFile(desktop, ctx.state.wallpaper) : undefined;
      if (!file) return json({ error: "Wallpaper file not found" }, 404);
      return { status: 200, type: "image/png", body: file };
    },
    "POST /list_directory": async (req, body) => {
      const b = jsonBody(req, body);
      if (!("path" in b)) return json({ error: "Missing 'path' parameter" }, 400);
      const abs = resolvePath(desktop, str(b.path));
      if ((await statPath(desktop, abs)) !== "dir") return json({ error: "The provided path is not a directory" }, 400);
      return json({ directory_tree: await directoryTree(desktop, abs) });
    },
    "POST /file": async (req, body) => {
      const raw = str(form(req, body).fields.file_path);
      if (!raw) return json({ error: "file_path is required" }, 400);
      const abs = resolvePath(desktop, raw);
      const bytes = (await statPath(desktop, abs)) === "file" ? await readDesktopFile(desktop, abs) : undefined;
      if (!bytes) return json({ error: "File not found" }, 404);
      return { status: 200, type: "application/octet-stream", body: bytes, filename: abs.split("/").pop() };
    },
    "POST /setup/upload": async (req, body) => {
      const f = form(req, body);
      const raw = str(f.fields.file_path);
      const file = f.files.file_data;
      if (!raw || !file) return json({ error: "file_path and file_data are required" }, 400);
      await writeDesktopFile(desktop, resolvePath(desktop, raw), file.data);
      return text(`File Uploaded: ${file.data.length} bytes`);
    },
    "POST /setup/download_file": async (req, body) => {
      const b = jsonBody(req, body);
      const url = str(b.url);
      const raw = str(b.path);
      if (!url || !raw) return text("Path or URL not supplied!", 400);
      if (!/^https?:\/\//i.test(url)) throw new HttpError(400, `only http(s) URLs are downloaded, not ${url}`, true);
      const abs = resolvePath(desktop, raw);
      let error = "";
      for (let i = 0; i < 3; i++) {
        try {
          const res = await fetch(url, { signal: AbortSignal.timeout(300_000) });
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          const data = Buffer.from(await res.arrayBuffer());
          await writeDesktopFile(desktop, abs, data);
          return text(`File downloaded successfully: ${data.length} bytes`);
        } catch (err) {
          error = (err as Error).message;
        }
      }
      return text(`Failed to download ${url}. No retries left. Error: ${error}`, 500);
    },
    "POST /setup/open_file": async (req, body) => {
      const b = jsonBody(req, body);
      const raw = str(b.path);
      if (!raw) return text("Path not supplied!", 400);
      const timeoutS = b.timeout_seconds === undefined ? 30 : Number(b.timeout_seconds);
      if (!Number.isFinite(timeoutS) || timeoutS < 0) return text(`Invalid timeout_seconds: ${str(b.timeout_seconds)}`, 400);
      const abs = resolvePath(desktop, raw);
      if ((await statPath(desktop, abs)) !== "file") return text(`Application/file not found: ${raw}`, 404);
      const name = abs.split("/").pop()!;
      const app = OPENERS.find(([re]) => re.test(name))?.[1];
      if (app) {
        const rel = homeRelative(desktop, abs);
        await desktop.launch({ app, args: [rel ?? abs] });
      } else if (desktop.spawnDetached) {
        await desktop.spawnDetached(["xdg-open", abs]);
      } else {
        throw new HttpError(501, `the host desktop opens files with its own apps only (text files with mousepad, spreadsheets with gnumeric), not ${name}`);
      }
      const candidates = [str(b.window_name) || undefined, name, name.replace(/\.[^.]*$/, "")].filter((c): c is string => !!c);
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
      const raw = str(jsonBody(req, body).path);
      if (!raw) return text("Path not supplied!", 400);
      const abs = resolvePath(desktop, raw);
      if ((await statPath(desktop, abs)) !== "file") return text(`File not found: ${abs}`, 404);
      // ImageMagick's display paints the root window (the desktop's background) and exits; it
      // exits 1 after painting on Xvfb, so only what it prints on stderr counts as a failure.
      const r = await desktop.exec(["display", "-window", "root", "-resize", `${desktop.width}x${desktop.height}!`, abs], { timeoutMs: 15_000 });
      if (r.code !== 0 && r.stderr.trim()) return text(`Failed to change wallpaper. Error: ${r.stderr.trim().split("\n").pop() ?? r.code}`, 500);
      ctx.state.wallpaper = abs;
      return text("Wallpaper changed successfully");
    },
    "POST /start_recording": async () => {
      if (ctx.recorder.running) return json({ status: "error", message: "Recording is already in progress.", error: "Recording is already in progress." }, 400);
      try {
        await ctx.recorder.start();
      } catch (err) {
        const message = `Failed to start recording. ${(err as Error).message}`;
        return json({ status: "error", message, error: message }, 500);
      }
      return json({ status: "success", message: "Started recording successfully." });
    },
    "POST /end_recording": async () => {
      if (!ctx.recorder.running) return json({ status: "error", message: "No recording in progress to stop.", error: "No recording in progress to stop." }, 400);
      const { mp4, error } = await ctx.recorder.stop();
      if (!mp4) return json({ status: "error", message: error, error }, 500);
      return { status: 200, type: "video/mp4", body: mp4, filename: "recording.mp4" };
    },
  };
}

async function writeDesktopFile(desktop: DesktopBackend, abs: string, data: Buffer): Promise<void> {
  const rel = homeRelative(desktop, abs);
  if (rel !== undefined) return desktop.writeHomeFile(rel, data);
  throw new HttpError(403, `files are written inside the desktop user's home only, not ${abs}`);
}
