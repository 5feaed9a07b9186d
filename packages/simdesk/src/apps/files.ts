/**
 * The file manager: folders, selection, rename (F2), new folder, cut/copy/paste, drag to move,
 * move to Trash, restore from Trash, empty Trash (irreversible).
 */
import type { AppModule, InputEvent } from "./app.ts";
import { filesOf, winOf } from "./app.ts";
import type { Cmd, MenuItem, Rect, UiContext, UiNode } from "../ui-types.ts";
import type { DeskState, FilesView, Win } from "../types.ts";
import {
  basename,
  dirname,
  fileKind,
  freeName,
  HOME,
  isWithin,
  join,
  listDir,
  moveTree,
  placeTree,
  restoreItem,
  subtree,
  tildify,
  trashPath,
} from "../vfs.ts";
import { bodyRect } from "./geometry.ts";
import { openFile } from "./open.ts";

const TOOLBAR_H = 34;
const SIDEBAR_W = 170;
const HEADER_H = 24;
export const ROW_H = 26;
const STATUS_H = 22;

export const SIDEBAR_PLACES = ["Home", "Desktop", "Documents", "Downloads", "Pictures", "Trash"] as const;

export function newFilesView(cwd = HOME): FilesView {
  return { cwd, selected: [], scroll: 0 };
}

/** Names listed in the current folder (Trash: item keys). */
export function entries(s: DeskState, v: FilesView): string[] {
  return v.cwd === "trash" ? s.trash.map((t) => t.key) : s.fs[v.cwd]?.type === "dir" ? listDir(s.fs, v.cwd) : [];
}

function listRect(rect: Rect): Rect {
  return [
    rect[0] + SIDEBAR_W,
    rect[1] + TOOLBAR_H + HEADER_H,
    rect[2] - SIDEBAR_W,
    rect[3] - TOOLBAR_H - HEADER_H - STATUS_H,
  ];
}

function visibleRows(rect: Rect): number {
  return Math.floor(listRect(rect)[3] / ROW_H);
}

function placePath(place: string): string {
  return place === "Home" ? HOME : place === "Trash" ? "trash" : join(HOME, place);
}

function navigate(v: FilesView, cwd: string): void {
  v.cwd = cwd;
  v.selected = [];
  v.rename = undefined;
  v.scroll = 0;
}

function trashSelected(s: DeskState, v: FilesView): boolean {
  if (v.cwd === "trash" || v.selected.length === 0) return false;
  for (const name of v.selected) {
    const r = trashPath(s.fs, s.trash, join(v.cwd, name));
    s.fs = r.fs;
    s.trash = r.trash;
  }
  v.selected = [];
  return true;
}

function restoreSelected(s: DeskState, v: FilesView): boolean {
  if (v.cwd !== "trash" || v.selected.length === 0) return false;
  for (const key of v.selected) {
    const r = restoreItem(s.fs, s.trash, key);
    s.fs = r.fs;
    s.trash = r.trash;
  }
  v.selected = [];
  return true;
}

/** Keep open documents pointing at a file that was renamed or moved. */
function followMove(s: DeskState, from: string, to: string): void {
  for (const w of s.windows) {
    const p = w.view.app === "editor" ? w.view.editor.path : w.view.app === "sheet" ? w.view.sheet.path : null;
    if (p && isWithin(p, from)) {
      const np = to + p.slice(from.length);
      if (w.view.app === "editor") w.view.editor.path = np;
      else if (w.view.app === "sheet") w.view.sheet.path = np;
    }
  }
}

function commitRename(s: DeskState, v: FilesView): void {
  const r = v.rename;
  if (!r) return;
  const name = r.text.trim();
  v.rename = undefined;
  if (!name || name === r.name || name.includes("/") || s.fs[join(v.cwd, name)]) return;
  const from = join(v.cwd, r.name);
  const to = join(v.cwd, name);
  s.fs = moveTree(s.fs, from, to);
  followMove(s, from, to);
  v.selected = [name];
}

function startRename(v: FilesView): boolean {
  if (v.cwd === "trash" || v.selected.length !== 1) return false;
  v.rename = { name: v.selected[0], text: v.selected[0], all: true };
  return true;
}

function paste(s: DeskState, v: FilesView): boolean {
  const clip = s.clipboard;
  if (clip.kind !== "files" || v.cwd === "trash" || s.fs[v.cwd]?.type !== "dir") return false;
  const placed: string[] = [];
  for (const p of clip.paths) {
    if (!s.fs[p] || isWithin(v.cwd, p)) continue;
    if (clip.op === "cut" && dirname(p) === v.cwd) continue;
    const name = freeName(s.fs, v.cwd, basename(p));
    const to = join(v.cwd, name);
    if (clip.op === "cut") {
      s.fs = moveTree(s.fs, p, to);
      followMove(s, p, to);
    } else s.fs = placeTree(s.fs, to, subtree(s.fs, p));
    placed.push(name);
  }
  if (clip.op === "cut") s.clipboard = { kind: "empty" };
  v.selected = placed;
  return true;
}

function setClip(s: DeskState, v: FilesView, op: "cut" | "copy"): boolean {
  if (v.cwd === "trash" || v.selected.length === 0) return false;
  s.clipboard = { kind: "files", op, paths: v.selected.map((n) => join(v.cwd, n)) };
  return true;
}

/** Run a file manager operation by name (menus, context menu, toolbar, keys share it). */
function operate(s: DeskState, win: Win, op: string, arg?: string): boolean {
  const v = filesOf(win);
  switch (op) {
    case "nav":
      navigate(v, arg ?? HOME);
      return true;
    case "up":
      if (v.cwd === "trash" || v.cwd === "/") return false;
      navigate(v, dirname(v.cwd));
      return true;
    case "open": {
      const name = arg ?? v.selected[0];
      if (!name || v.cwd === "trash") return false;
      const path = join(v.cwd, name);
      if (s.fs[path]?.type === "dir") navigate(v, path);
      else if (s.fs[path]) openFile(s, path);
      else return false;
      return true;
    }
    case "newFolder":
      if (v.cwd === "trash") return false;
      win.dialog = { kind: "new-folder", name: freeName(s.fs, v.cwd, "New Folder"), selected: true };
      return true;
    case "trash":
      return trashSelected(s, v);
    case "restore":
      return restoreSelected(s, v);
    case "emptyTrash":
      if (s.trash.length === 0) return false;
      win.dialog = { kind: "confirm-empty-trash" };
      return true;
    case "deletePerm":
      if (v.cwd !== "trash" || v.selected.length === 0) return false;
      win.dialog = { kind: "confirm-delete", keys: [...v.selected] };
      return true;
    case "rename":
      return startRename(v);
    case "cut":
    case "copy":
      return setClip(s, v, op);
    case "paste":
      return paste(s, v);
    case "selectAll":
      v.selected = entries(s, v);
      return true;
  }
  return false;
}

/** Empty the Trash for good (after the confirmation dialog). */
export function emptyTrash(s: DeskState): void {
  s.trash = [];
  const w = winOf(s, "files");
  if (w && filesOf(w).cwd === "trash") filesOf(w).selected = [];
}

/** Delete Trash items for good. */
export function deleteFromTrash(s: DeskState, keys: string[]): void {
  s.trash = s.trash.filter((t) => !keys.includes(t.key));
  const w = winOf(s, "files");
  if (w) filesOf(w).selected = [];
}

/** Create a folder in the file manager's current folder (after the New Folder dialog). */
export function createFolder(s: DeskState, win: Win, name: string): boolean {
  const v = filesOf(win);
  const n = name.trim();
  if (!n || n.includes("/") || s.fs[join(v.cwd, n)]) return false;
  s.fs[join(v.cwd, n)] = { type: "dir" };
  v.selected = [n];
  return true;
}

function renameKey(v: FilesView, combo: string): boolean {
  const r = v.rename!;
  switch (combo) {
    case "enter":
      return true; // handled by caller (needs state)
    case "escape":
      v.rename = undefined;
      return true;
    case "backspace":
      r.text = r.all ? "" : r.text.slice(0, -1);
      r.all = false;
      return true;
    case "ctrl+a":
      r.all = true;
      return true;
    case "left":
    case "right":
    case "home":
    case "end":
      r.all = false;
      return true;
  }
  return false;
}

export const filesApp: AppModule = {
  id: "files",
  title(_s, win) {
    const v = filesOf(win);
    return `${v.cwd === "trash" ? "Trash" : v.cwd === HOME ? "Home" : basename(v.cwd)} - Files`;
  },
  menus(s, win): Record<string, MenuItem[]> {
    const v = filesOf(win);
    const inTrash = v.cwd === "trash";
    const none = v.selected.length === 0;
    const menus: Record<string, MenuItem[]> = {
      File: [
        { label: "New Folder", cmd: { op: "files.newFolder" }, shortcut: "Ctrl+Shift+N", disabled: inTrash },
        { label: "Empty Trash", cmd: { op: "files.emptyTrash" }, disabled: s.trash.length === 0 },
        { label: "Close", cmd: { op: "win.close", a: "files" }, shortcut: "Ctrl+W" },
      ],
      Edit: [
        { label: "Cut", cmd: { op: "files.cut" }, shortcut: "Ctrl+X", disabled: none || inTrash },
        { label: "Copy", cmd: { op: "files.copy" }, shortcut: "Ctrl+C", disabled: none || inTrash },
        {
          label: "Paste",
          cmd: { op: "files.paste" },
          shortcut: "Ctrl+V",
          disabled: s.clipboard.kind !== "files" || inTrash,
        },
        { label: "Select All", cmd: { op: "files.selectAll" }, shortcut: "Ctrl+A" },
        { label: "Rename…", cmd: { op: "files.rename" }, shortcut: "F2", disabled: v.selected.length !== 1 || inTrash },
        { label: "Move to Trash", cmd: { op: "files.trash" }, shortcut: "Delete", disabled: none || inTrash },
      ],
    };
    menus.context = inTrash
      ? [
          { label: "Restore", cmd: { op: "files.restore" }, disabled: none },
          { label: "Delete Permanently", cmd: { op: "files.deletePerm" }, disabled: none },
        ]
      : none
        ? [
            { label: "New Folder", cmd: { op: "files.newFolder" } },
            { label: "Paste", cmd: { op: "files.paste" }, disabled: s.clipboard.kind !== "files" },
          ]
        : [
            { label: "Open", cmd: { op: "files.open" } },
            { label: "Cut", cmd: { op: "files.cut" } },
            { label: "Copy", cmd: { op: "files.copy" } },
            { label: "Rename…", cmd: { op: "files.rename" }, disabled: v.selected.length !== 1 },
            { label: "Move to Trash", cmd: { op: "files.trash" } },
          ];
    return menus;
  },
  body(s, win, _ctx: UiContext, rect): UiNode[] {
    const v = filesOf(win);
    const inTrash = v.cwd === "trash";
    const [x, y, w] = rect;
    const tb: UiNode[] = [];
    let bx = x + SIDEBAR_W + 8;
    const button = (id: string, label: string, width: number, cmd: Cmd, disabled = false) => {
      tb.push({
        id: `files.toolbar.${id}`,
        role: "button",
        name: label,
        text: label,
        rect: [bx, y + 5, width, 24],
        style: "button",
        click: disabled ? undefined : cmd,
        states: disabled ? ["disabled"] : undefined,
      });
      bx += width + 8;
    };
    button("up", "Up", 50, { op: "files.up" }, inTrash || v.cwd === "/");
    if (inTrash) {
      button("restore", "Restore", 80, { op: "files.restore" }, v.selected.length === 0);
      button("empty", "Empty Trash", 110, { op: "files.emptyTrash" }, s.trash.length === 0);
    } else button("newFolder", "New Folder", 104, { op: "files.newFolder" });
    tb.push({
      id: "files.path",
      role: "label",
      name: "Location",
      text: inTrash ? "Trash" : tildify(v.cwd),
      rect: [bx + 10, y + 5, x + w - bx - 20, 24],
      style: "pathlabel",
    });

    const side: UiNode[] = SIDEBAR_PLACES.filter(
      (p) => p === "Home" || p === "Trash" || s.fs[join(HOME, p)]?.type === "dir",
    ).map((p, i) => {
      const path = placePath(p);
      const current = v.cwd === path;
      return {
        id: `files.place.${p}`,
        role: "list item",
        name: p,
        text: p === "Trash" && s.trash.length ? `Trash (${s.trash.length})` : p,
        rect: [x + 4, y + 8 + i * 30, SIDEBAR_W - 8, 28] as Rect,
        style: "sideitem",
        states: current ? ["selected"] : undefined,
        click: { op: "files.nav", a: path },
        drop: path === "trash" ? "trash" : `dir:${path}`,
      };
    });

    const lr = listRect(rect);
    const names = entries(s, v);
    const rows = visibleRows(rect);
    const items: UiNode[] = names.slice(v.scroll, v.scroll + rows).map((name, i) => {
      const ry = lr[1] + i * ROW_H;
      const selected = v.selected.includes(name);
      const path = inTrash ? "" : join(v.cwd, name);
      const node = inTrash ? undefined : s.fs[path];
      const item = inTrash ? s.trash.find((t) => t.key === name) : undefined;
      const isDir = inTrash ? item?.tree[""]?.type === "dir" : node?.type === "dir";
      const cut = s.clipboard.kind === "files" && s.clipboard.op === "cut" && s.clipboard.paths.includes(path);
      const renaming = v.rename?.name === name;
      const kind = inTrash ? (item ? fileKind(name, item.tree[""]) : "") : node ? fileKind(name, node) : "";
      const detail = inTrash ? tildify(dirname(item?.from ?? "")) : kind;
      const states = [selected ? "selected" : "", cut ? "cut" : "", renaming ? "editing" : ""].filter(Boolean);
      return {
        id: `files.item.${name}`,
        role: "list item",
        name,
        text: name,
        value: detail,
        rect: [lr[0], ry, lr[2], ROW_H] as Rect,
        style: "fileitem",
        states: states.length ? states : undefined,
        click: { op: "files.select", a: name },
        dbl: { op: "files.open", a: name },
        ctx: { op: "files.ctx", a: name },
        drag: inTrash ? undefined : `file:${path}`,
        drop: isDir && !inTrash ? `dir:${path}` : undefined,
        data: { dir: isDir, detail, rename: renaming ? v.rename : undefined },
      };
    });
    const list: UiNode = {
      id: "files.list",
      role: "list",
      name: inTrash ? "Trash" : "Files",
      rect: lr,
      style: "list",
      click: { op: "files.bg" },
      ctx: { op: "files.ctx" },
      drop: inTrash ? "trash" : `dir:${v.cwd}`,
      scroll: "files.list",
      children: items,
    };
    const header: UiNode = {
      id: "files.header",
      role: "header",
      name: "Columns",
      rect: [lr[0], lr[1] - HEADER_H, lr[2], HEADER_H],
      style: "header",
      data: {
        cols: [
          ["Name", 10],
          [inTrash ? "Original location" : "Type", Math.round(lr[2] * 0.62)],
        ],
      },
    };
    const status: UiNode = {
      id: "files.status",
      role: "status bar",
      name: "Status",
      rect: [x + SIDEBAR_W, rect[1] + rect[3] - STATUS_H, w - SIDEBAR_W, STATUS_H],
      style: "statusbar",
      text: `${names.length} item${names.length === 1 ? "" : "s"}${v.selected.length ? `, ${v.selected.length} selected` : ""}`,
    };
    const sidebar: UiNode = {
      id: "files.sidebar",
      role: "list",
      name: "Places",
      rect: [x, y, SIDEBAR_W, rect[3]],
      style: "sidebar",
      children: side,
    };
    return [sidebar, ...tb, header, list, status];
  },
  command(s, win, cmd: Cmd, ev: InputEvent) {
    const v = filesOf(win);
    const op = cmd.op.slice("files.".length);
    if (v.rename && op !== "select") commitRename(s, v);
    switch (op) {
      case "select": {
        const name = cmd.a!;
        if (v.rename) {
          if (v.rename.name === name) return true;
          commitRename(s, v);
        }
        if (ev.ctrl)
          v.selected = v.selected.includes(name) ? v.selected.filter((n) => n !== name) : [...v.selected, name];
        else if (ev.shift) v.selected = v.selected.includes(name) ? v.selected : [...v.selected, name];
        else v.selected = [name];
        return true;
      }
      case "bg":
        v.selected = [];
        return true;
      case "ctx":
        if (cmd.a && !v.selected.includes(cmd.a)) v.selected = [cmd.a];
        if (!cmd.a) v.selected = [];
        s.menu = { win: "files", name: "context", x: ev.x, y: ev.y };
        return true;
    }
    return operate(s, win, op, cmd.a);
  },
  key(s, win, combo) {
    const v = filesOf(win);
    if (v.rename) {
      if (combo === "enter") {
        commitRename(s, v);
        return true;
      }
      return renameKey(v, combo);
    }
    const names = entries(s, v);
    const idx = v.selected.length ? names.indexOf(v.selected[v.selected.length - 1]) : -1;
    switch (combo) {
      case "delete":
        return v.cwd === "trash" ? operate(s, win, "deletePerm") : operate(s, win, "trash");
      case "f2":
        return operate(s, win, "rename");
      case "ctrl+x":
        return operate(s, win, "cut");
      case "ctrl+c":
        return operate(s, win, "copy");
      case "ctrl+v":
        return operate(s, win, "paste");
      case "ctrl+a":
        return operate(s, win, "selectAll");
      case "ctrl+shift+n":
        return operate(s, win, "newFolder");
      case "enter":
        return operate(s, win, "open");
      case "backspace":
      case "alt+up":
        return operate(s, win, "up");
      case "escape": {
        // Escape also cancels a pending cut/copy, as Windows Explorer does.
        const hadClip = s.clipboard.kind === "files";
        if (!v.selected.length && !hadClip) return false;
        v.selected = [];
        if (hadClip) s.clipboard = { kind: "empty" };
        return true;
      }
      case "down":
      case "up":
        if (!names.length) return false;
        v.selected = [
          names[Math.max(0, Math.min(names.length - 1, combo === "down" ? idx + 1 : idx < 0 ? 0 : idx - 1))],
        ];
        return true;
    }
    return false;
  },
  type(_s, win, text) {
    const v = filesOf(win);
    if (!v.rename) return false;
    const clean = text.replace(/[\r\n]/g, "");
    v.rename.text = v.rename.all ? clean : v.rename.text + clean;
    v.rename.all = false;
    return true;
  },
  drag(s, win, src, dst) {
    const v = filesOf(win);
    if (!src.startsWith("file:") || !dst) return false;
    const from = src.slice(5);
    if (!s.fs[from]) return false;
    if (dst === "trash") {
      const r = trashPath(s.fs, s.trash, from);
      s.fs = r.fs;
      s.trash = r.trash;
      v.selected = v.selected.filter((n) => n !== basename(from));
      return true;
    }
    if (!dst.startsWith("dir:")) return false;
    const dir = dst.slice(4);
    if (dir === dirname(from) || isWithin(dir, from) || s.fs[dir]?.type !== "dir") return false;
    const to = join(dir, freeName(s.fs, dir, basename(from)));
    s.fs = moveTree(s.fs, from, to);
    followMove(s, from, to);
    v.selected = [];
    return true;
  },
  scroll(s, win, _target, dy) {
    const v = filesOf(win);
    const max = Math.max(0, entries(s, v).length - visibleRows(bodyRect(win)));
    v.scroll = Math.max(0, Math.min(max, v.scroll - dy));
    return true;
  },
};
