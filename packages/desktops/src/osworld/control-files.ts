/**
 * Files for the OSWorld control server (control-routes.ts, control-exec.ts), by trust level:
 * - on the host desktop every path-taking endpoint goes through the desktop's `homeFiles`
 *   (packages/desktops/src/x11/home-files.ts): inside the desktop user's home only, as that user,
 *   never following a link, regular files only, at most {@link FILE_MAX_BYTES}; writes never go
 *   into a dot-file or dot-folder (apps' configuration and plugins, D-Bus services, Python's user
 *   site live there: an uploaded one would run code in the desktop user's session);
 * - a container desktop is a sandbox: any path inside it.
 */
import type { Readable } from "node:stream";
import { HomeFileError, type HomeFiles, type HomeTree } from "../x11/home-files.ts";
import type { DesktopBackend } from "../x11/backend.ts";
import { EnvironmentError } from "@retrace-cua/core/errors";
import { HttpError } from "./control-http.ts";
import { expandUser } from "./host-python.ts";

/** Largest file the host desktop serves, uploads or downloads (a refusal with 413 beyond). */
export const FILE_MAX_BYTES = 100 * 1024 * 1024;
/** How deep `/list_directory` descends. */
const LIST_MAX_DEPTH = 12;

/** A path from a request, resolved for this desktop (or a 403 refusal on the host outside its home). */
export function resolvePath(desktop: DesktopBackend, raw: string): string {
  const home = desktop.homeDir;
  if (raw.includes("\0")) throw new HttpError(400, "a path may not contain NUL");
  const path = expandUser(raw.replace(/\$HOME\b/g, "~"), home);
  if (desktop.sandboxed) return path;
  const inside = (path === home || path.startsWith(home + "/")) && !path.split("/").includes("..");
  if (!inside)
    throw new HttpError(
      403,
      `the host desktop serves files inside the desktop user's home only (~/ or /home/user/), not ${raw}`,
    );
  return path;
}

/** The path relative to the home ("" for the home itself), or undefined outside it. */
export function homeRelative(desktop: DesktopBackend, abs: string): string | undefined {
  const home = desktop.homeDir;
  if (abs === home || abs === home + "/") return "";
  return abs.startsWith(home + "/") ? abs.slice(home.length + 1) : undefined;
}

/** The host desktop's safe file access (a runtime failure when a non-sandboxed desktop has none). */
function hostFiles(desktop: DesktopBackend): HomeFiles {
  if (!desktop.homeFiles)
    throw new EnvironmentError(`the ${desktop.kind} desktop is not a sandbox and has no safe home file access`, {
      retryable: false,
    });
  return desktop.homeFiles;
}

/** A host path's home-relative form (resolvePath already refused paths outside). */
function hostRel(desktop: DesktopBackend, abs: string): string {
  const rel = homeRelative(desktop, abs);
  if (rel === undefined)
    throw new HttpError(403, `the host desktop serves files inside the desktop user's home only, not ${abs}`);
  return rel;
}

/** A refusal of the home's file access as an HTTP refusal with its one line. */
export function homeRefusal(err: unknown): never {
  if (!(err instanceof HomeFileError)) throw err;
  const status =
    err.reason === "too-large"
      ? 413
      : err.reason === "missing" || err.reason === "not-dir" || err.reason === "is-dir"
        ? 404
        : err.reason === "invalid"
          ? 400
          : 403;
  throw new HttpError(status, err.message);
}

/** What a path is: a regular file, a folder, or (host) a link or special file; undefined when missing. */
export async function statPath(
  desktop: DesktopBackend,
  abs: string,
): Promise<"file" | "dir" | "link" | "other" | undefined> {
  if (!desktop.sandboxed) return hostFiles(desktop).stat(hostRel(desktop, abs)).catch(homeRefusal);
  const r = await desktop.exec(["stat", "-L", "-c", "%F", "--", abs], { timeoutMs: 5000 });
  if (r.code !== 0) return undefined;
  return r.stdout.toString().includes("directory") ? "dir" : "file";
}

/** Read a file of the desktop (undefined when it does not exist; refusals as HttpError on the host). */
export async function readDesktopFile(desktop: DesktopBackend, abs: string): Promise<Buffer | undefined> {
  if (!desktop.sandboxed) {
    try {
      return await hostFiles(desktop).read(hostRel(desktop, abs), FILE_MAX_BYTES);
    } catch (err) {
      if (
        err instanceof HomeFileError &&
        (err.reason === "missing" || err.reason === "is-dir" || err.reason === "not-dir")
      )
        return undefined;
      return homeRefusal(err);
    }
  }
  const rel = homeRelative(desktop, abs);
  if (rel) return desktop.readHomeFile(rel);
  const r = await desktop.exec(["cat", "--", abs], { timeoutMs: 30_000 });
  return r.code === 0 ? r.stdout : undefined;
}

/**
 * A file of the desktop for `/file`: on the host, streamed from the desktop user's home whatever its
 * size (same resolution and refusals as {@link readDesktopFile}; `signal` is the request's); in a
 * sandbox, read whole as before. Undefined when it does not exist.
 */
export async function streamDesktopFile(
  desktop: DesktopBackend,
  abs: string,
  signal: AbortSignal,
): Promise<{ size: number; body: Readable } | Buffer | undefined> {
  if (desktop.sandboxed) return readDesktopFile(desktop, abs);
  try {
    return await hostFiles(desktop).stream(hostRel(desktop, abs), signal);
  } catch (err) {
    if (
      err instanceof HomeFileError &&
      (err.reason === "missing" || err.reason === "is-dir" || err.reason === "not-dir")
    )
      return undefined;
    return homeRefusal(err);
  }
}

/** Write a file of the desktop: the host's home (no dot-files), a container's home. */
export async function writeDesktopFile(desktop: DesktopBackend, abs: string, data: Buffer): Promise<void> {
  if (data.length > FILE_MAX_BYTES)
    throw new HttpError(413, `the file is ${data.length} bytes; the largest accepted is ${FILE_MAX_BYTES}`);
  if (!desktop.sandboxed) {
    const rel = hostRel(desktop, abs);
    const hidden = rel.split("/").find((p) => p.startsWith("."));
    if (hidden !== undefined)
      throw new HttpError(
        403,
        `the host desktop writes no dot-file or dot-folder ("${hidden}" in ~/${rel}): apps would read it as configuration`,
      );
    return hostFiles(desktop).write(rel, data).catch(homeRefusal);
  }
  const rel = homeRelative(desktop, abs);
  if (rel) return desktop.writeHomeFile(rel, data);
  throw new HttpError(403, `files are written inside the desktop user's home only, not ${abs}`);
}

/** The tree under a folder; undefined when the path is not a folder (a link on the host is refused). */
export async function listDesktopDirectory(desktop: DesktopBackend, abs: string): Promise<HomeTree | undefined> {
  if (!desktop.sandboxed) {
    const rel = hostRel(desktop, abs);
    const kind = await statPath(desktop, abs);
    if (kind === "link")
      throw new HttpError(403, `${rel ? `~/${rel}` : "~"} is a symbolic link: the host desktop never follows links`);
    if (kind !== "dir") return undefined;
    const tree = await hostFiles(desktop).list(rel, LIST_MAX_DEPTH).catch(homeRefusal);
    return { ...tree, name: abs.replace(/\/+$/, "").split("/").pop() ?? "" };
  }
  if ((await statPath(desktop, abs)) !== "dir") return undefined;
  return containerTree(desktop, abs);
}

async function containerTree(desktop: DesktopBackend, abs: string): Promise<HomeTree> {
  const r = await desktop.exec(
    ["find", abs, "-mindepth", "1", "-maxdepth", String(LIST_MAX_DEPTH), "-printf", "%y %P\\n"],
    { timeoutMs: 30_000 },
  );
  const root: HomeTree = { type: "directory", name: abs.replace(/\/+$/, "").split("/").pop() ?? "", children: [] };
  for (const line of r.stdout
    .toString()
    .split("\n")
    .filter(Boolean)
    .sort((a, b) => a.slice(2).localeCompare(b.slice(2)))) {
    const kind = line[0];
    const parts = line.slice(2).split("/");
    let node = root;
    for (const dir of parts.slice(0, -1))
      node = node.children?.find((c) => c.name === dir && c.type === "directory") ?? node;
    node.children ??= [];
    node.children.push(
      kind === "d"
        ? { type: "directory", name: parts[parts.length - 1], children: [] }
        : { type: "file", name: parts[parts.length - 1] },
    );
  }
  return root;
}
