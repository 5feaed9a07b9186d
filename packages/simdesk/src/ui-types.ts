/**
 * The UI tree: what is on screen, built from the state by ui.ts. One tree drives rendering
 * (render.ts), hit-testing (engine.ts), the accessibility tree (ax.ts) and plan building.
 * Layout is anchored top-left (taskbar on top, windows at fixed default places), so plans built
 * at 1280x800 also work on larger screens.
 */
import type { AppId, DeskState } from "./types.ts";

/** [x, y, width, height] in screen pixels. */
export type Rect = [number, number, number, number];

/** A command a widget triggers; handled by the engine or the owning app. JSON only. */
export interface Cmd {
  op: string;
  a?: string;
  b?: string;
  n?: number;
}

/** One widget. */
export interface UiNode {
  /** Stable id, e.g. "files.item.notes.txt", "editor.menu.File", "taskbar.launch.editor". */
  id: string;
  /** Accessibility role ("button", "list item", "menu item", "text", "window", ...). */
  role: string;
  name: string;
  rect: Rect;
  /** Visual style the renderer draws (see render.ts). */
  style: string;
  /** Label drawn inside the widget (defaults to nothing). */
  text?: string;
  states?: string[];
  value?: string;
  click?: Cmd;
  dbl?: Cmd;
  ctx?: Cmd;
  /** Drag source key ("file:<path>", "title:<win>", "text"). */
  drag?: string;
  /** Drop target key ("dir:<path>", "trash"). */
  drop?: string;
  /** Scroll target key. */
  scroll?: string;
  /** Style-specific render data (text area lines, colours). */
  data?: Record<string, unknown>;
  children?: UiNode[];
}

/** Everything a UI builder needs besides the state. */
export interface UiContext {
  width: number;
  height: number;
  accent: string;
  largeTitles: boolean;
}

export const TASKBAR_H = 36;
export const TITLE_H = 30;
export const MENUBAR_H = 26;
export const MENU_ITEM_H = 26;
export const MENU_W = 200;

/** Default window geometry per app (size fixed; position stored in the window state). */
export const WINDOW_GEOMETRY: Record<AppId, Rect> = {
  files: [40, 56, 860, 560],
  editor: [120, 84, 880, 580],
  settings: [200, 70, 760, 540],
  sheet: [80, 76, 960, 600],
};

export const APP_TITLES: Record<AppId, string> = {
  files: "Files",
  editor: "Text Editor",
  settings: "Settings",
  sheet: "Sheets",
};

/** A menubar menu entry. */
export interface MenuItem {
  label: string;
  cmd: Cmd;
  shortcut?: string;
  disabled?: boolean;
}

export function contains(r: Rect, x: number, y: number): boolean {
  return x >= r[0] && y >= r[1] && x < r[0] + r[2] && y < r[1] + r[3];
}

export function center(r: Rect): { x: number; y: number } {
  return { x: Math.round(r[0] + r[2] / 2), y: Math.round(r[1] + r[3] / 2) };
}

/** Walk a UI tree depth-first in paint order. */
export function walk(node: UiNode, visit: (n: UiNode) => void): void {
  visit(node);
  for (const c of node.children ?? []) walk(c, visit);
}

/** Find a node by id. */
export function findNode(root: UiNode, id: string): UiNode | undefined {
  let found: UiNode | undefined;
  walk(root, (n) => {
    if (n.id === id) found = n;
  });
  return found;
}

/** Content rect of a window (below the title bar). */
export function contentRect(win: { x: number; y: number; id: AppId }): Rect {
  const [, , w, h] = WINDOW_GEOMETRY[win.id];
  return [win.x, win.y + TITLE_H, w, h - TITLE_H];
}

export type { DeskState };
