/** Window geometry shared by the shell and the apps. */
import { MENUBAR_H, TITLE_H, WINDOW_GEOMETRY, type Rect } from "../ui-types.ts";
import type { AppId, Win } from "../types.ts";

/** Apps that draw a menubar under the title bar. */
export const HAS_MENUBAR: Record<AppId, boolean> = { files: true, editor: true, settings: false, sheet: true };

/** Outer rect of a window. */
export function windowRect(win: Pick<Win, "id" | "x" | "y">): Rect {
  const [, , w, h] = WINDOW_GEOMETRY[win.id];
  return [win.x, win.y, w, h];
}

/** The app's body: below the title bar and the menubar (if any). */
export function bodyRect(win: Pick<Win, "id" | "x" | "y">): Rect {
  const [x, y, w, h] = windowRect(win);
  const top = TITLE_H + (HAS_MENUBAR[win.id] ? MENUBAR_H : 0);
  return [x, y + top, w, h - top];
}
