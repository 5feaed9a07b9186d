/**
 * The file manager: folders, selection, rename (F2), new folder, cut/copy/paste, drag to move,
 * move to Trash, restore from Trash, empty Trash (irreversible). The app module routes clicks, keys,
 * typing, drags and scrolls; the operations are in ./files-ops.ts, the window's layout, UI nodes
 * and menus in ./files-view.ts.
 */
import type { AppModule, InputEvent } from "./app.ts";
import { filesOf } from "./app.ts";
import type { Cmd } from "../ui-types.ts";
import type { FilesView } from "../types.ts";
import { basename, dirname, freeName, HOME, isWithin, join, moveTree, trashPath } from "../vfs.ts";
import { bodyRect } from "./geometry.ts";
import { commitRename, entries, followMove, operate, renameKey } from "./files-ops.ts";
import { filesBody, filesMenus, visibleRows } from "./files-view.ts";

export function newFilesView(cwd = HOME): FilesView {
  return { cwd, selected: [], scroll: 0 };
}

export const filesApp: AppModule = {
  id: "files",
  title(_s, win) {
    const v = filesOf(win);
    return `${v.cwd === "trash" ? "Trash" : v.cwd === HOME ? "Home" : basename(v.cwd)} - Files`;
  },
  menus: filesMenus,
  body: filesBody,
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
