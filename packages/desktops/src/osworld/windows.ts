/**
 * Window look-ups for OSWorld's window endpoints, through xdotool on the desktop's own display
 * (fixed argv; a window name from a task is passed as one argument, never through a shell).
 * OSWorld matches with wmctrl: a case-insensitive substring of the title by default, the whole
 * title case-sensitively when `strict`, the WM_CLASS when `by_class`.
 */
import type { DesktopBackend } from "../x11/backend.ts";

/** How to find a window. */
export interface WindowQuery {
  name: string;
  strict?: boolean;
  byClass?: boolean;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Ids of the visible windows the query matches, in xdotool's order. */
export async function findWindows(backend: DesktopBackend, q: WindowQuery): Promise<string[]> {
  // xdotool matches a POSIX regex, case-insensitively; strict matching is checked on the title below.
  // a leading "-" as "[-]": a window name of the request is never one of xdotool's options
  const pattern = q.strict ? `^${escapeRegex(q.name)}$` : escapeRegex(q.name).replace(/^-/, "[-]");
  const r = await backend.exec(["xdotool", "search", "--onlyvisible", q.byClass ? "--class" : "--name", pattern], {
    asUser: false,
    timeoutMs: 5000,
  });
  const ids = r.stdout
    .toString()
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!q.strict || q.byClass) return ids;
  const exact: string[] = [];
  for (const id of ids) if ((await windowTitle(backend, id)) === q.name) exact.push(id);
  return exact;
}

/** A window's title. */
export async function windowTitle(backend: DesktopBackend, id: string): Promise<string> {
  const r = await backend.exec(["xdotool", "getwindowname", id], { asUser: false, timeoutMs: 5000 });
  return r.stdout.toString().replace(/\n$/, "");
}

/** Raise and focus a window. */
export async function activateWindow(backend: DesktopBackend, id: string): Promise<boolean> {
  const r = await backend.exec(["xdotool", "windowactivate", "--sync", id], { asUser: false, timeoutMs: 5000 });
  if (r.code === 0) return true;
  // Window managers without _NET_ACTIVE_WINDOW support: map, raise and focus directly.
  const f = await backend.exec(["xdotool", "windowmap", id, "windowraise", id, "windowfocus", id], {
    asUser: false,
    timeoutMs: 5000,
  });
  return f.code === 0;
}

/** Ask a window to close, as a window manager's close button does (WM_DELETE_WINDOW). */
export async function closeWindow(backend: DesktopBackend, id: string): Promise<boolean> {
  const r = await backend.exec(["xdotool", "windowclose", id], { asUser: false, timeoutMs: 5000 });
  if (r.code === 0) return true;
  const k = await backend.exec(["xdotool", "windowkill", id], { asUser: false, timeoutMs: 5000 });
  return k.code === 0;
}

/** A window's size. */
export async function windowSize(
  backend: DesktopBackend,
  id: string,
): Promise<{ width: number; height: number } | undefined> {
  const r = await backend.exec(["xdotool", "getwindowgeometry", "--shell", id], { asUser: false, timeoutMs: 5000 });
  const w = /WIDTH=(\d+)/.exec(r.stdout.toString());
  const h = /HEIGHT=(\d+)/.exec(r.stdout.toString());
  return w && h ? { width: Number(w[1]), height: Number(h[1]) } : undefined;
}

/** The pointer's position. */
export async function cursorPosition(backend: DesktopBackend): Promise<{ x: number; y: number }> {
  const r = await backend.exec(["xdotool", "getmouselocation", "--shell"], { asUser: false, timeoutMs: 5000 });
  const text = r.stdout.toString();
  return { x: Number(/X=(-?\d+)/.exec(text)?.[1] ?? 0), y: Number(/Y=(-?\d+)/.exec(text)?.[1] ?? 0) };
}

/**
 * The window a set-up step means, waiting up to `timeoutMs` for it to show (a program started by
 * the step before may still be starting). A plain name that matches no title also matches the
 * window class: gnome-terminal's title is the shell's (`user@host: ~`), its class `Gnome-terminal`,
 * and OSWorld's Linux server answers success for `Terminal` whatever wmctrl found.
 */
export async function findSetupWindow(
  backend: DesktopBackend,
  q: WindowQuery,
  timeoutMs: number,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [id] = await findWindows(backend, q);
    if (id) return id;
    if (!q.strict && !q.byClass) {
      const [byClass] = await findWindows(backend, { ...q, byClass: true });
      if (byClass) return byClass;
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Poll until a window matching one of `names` shows; its id, or undefined at the deadline. */
export async function waitForWindow(
  backend: DesktopBackend,
  names: string[],
  timeoutMs: number,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const name of names) {
      const ids = await findWindows(backend, { name });
      if (ids.length) return ids[0];
    }
    if (Date.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
}
