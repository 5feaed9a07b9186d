/**
 * The file manager's operations on the desk state: navigate, select all, open, rename (F2, typed
 * inline), new folder, cut/copy/paste, move to Trash, restore from Trash, delete permanently and
 * empty the Trash (both irreversible). Menus, context menu, toolbar and keys all run them by name
 * ({@link operate}); the app itself is ./files.ts.
 */
import { filesOf, winOf } from "./app.ts";
import type { DeskState, FilesView, Win } from "../types.ts";
import {
  basename,
  dirname,
  freeName,
  HOME,
  isWithin,
  join,
  listDir,
  moveTree,
  placeTree,
  restoreItem,
  subtree,
  trashPath,
} from "../vfs.ts";
import { openFile } from "./open.ts";

/** Names listed in the current folder (Trash: item keys). */
export function entries(s: DeskState, v: FilesView): string[] {
  return v.cwd === "trash" ? s.trash.map((t) => t.key) : s.fs[v.cwd]?.type === "dir" ? listDir(s.fs, v.cwd) : [];
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
export function followMove(s: DeskState, from: string, to: string): void {
  for (const w of s.windows) {
    const p = w.view.app === "editor" ? w.view.editor.path : w.view.app === "sheet" ? w.view.sheet.path : null;
    if (p && isWithin(p, from)) {
      const np = to + p.slice(from.length);
      if (w.view.app === "editor") w.view.editor.path = np;
      else if (w.view.app === "sheet") w.view.sheet.path = np;
    }
  }
}

export function commitRename(s: DeskState, v: FilesView): void {
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
export function operate(s: DeskState, win: Win, op: string, arg?: string): boolean {
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

export function renameKey(v: FilesView, combo: string): boolean {
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
