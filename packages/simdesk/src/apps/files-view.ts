/**
 * What a file manager window shows: its layout (sidebar of places, toolbar, column header, file
 * list, status bar), the UI nodes of its body, and its menus. The app itself is ./files.ts.
 */
import type { Cmd, MenuItem, Rect, UiContext, UiNode } from "../ui-types.ts";
import type { DeskState, Win } from "../types.ts";
import { dirname, fileKind, HOME, join, tildify } from "../vfs.ts";
import { filesOf } from "./app.ts";
import { entries } from "./files-ops.ts";

const TOOLBAR_H = 34;
const SIDEBAR_W = 170;
const HEADER_H = 24;
export const ROW_H = 26;
const STATUS_H = 22;

export const SIDEBAR_PLACES = ["Home", "Desktop", "Documents", "Downloads", "Pictures", "Trash"] as const;

function listRect(rect: Rect): Rect {
  return [
    rect[0] + SIDEBAR_W,
    rect[1] + TOOLBAR_H + HEADER_H,
    rect[2] - SIDEBAR_W,
    rect[3] - TOOLBAR_H - HEADER_H - STATUS_H,
  ];
}

export function visibleRows(rect: Rect): number {
  return Math.floor(listRect(rect)[3] / ROW_H);
}

function placePath(place: string): string {
  return place === "Home" ? HOME : place === "Trash" ? "trash" : join(HOME, place);
}

/** The menu bar's menus and the context menu (`context`) of a file manager window. */
export function filesMenus(s: DeskState, win: Win): Record<string, MenuItem[]> {
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
}

/** A file manager window's body: sidebar of places, toolbar, location, column header, file list, status bar. */
export function filesBody(s: DeskState, win: Win, _ctx: UiContext, rect: Rect): UiNode[] {
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
}
