/** Opening, raising and loading app windows (shared by the shell, the file manager and dialogs). */
import type { AppId, AppView, DeskState, Win } from "../types.ts";
import { WINDOW_GEOMETRY } from "../ui-types.ts";
import { appFor, HOME } from "../vfs.ts";
import { isDirty, newEditorView } from "./editor.ts";
import { newSheetView, parseCsv, sheetDirty } from "./sheet.ts";
import { winOf } from "./app.ts";

function defaultView(app: AppId): AppView {
  switch (app) {
    case "files":
      return { app, files: { cwd: HOME, selected: [], scroll: 0 } };
    case "editor":
      return { app, editor: newEditorView(null, "") };
    case "settings":
      return { app, settings: { page: "appearance" } };
    case "sheet":
      return { app, sheet: newSheetView(null, {}) };
  }
}

/** Bring a window to the top and un-minimise it. */
export function raise(s: DeskState, id: AppId): void {
  const w = winOf(s, id);
  if (!w) return;
  w.minimized = false;
  s.windows = [...s.windows.filter((x) => x !== w), w];
}

/** Open an app (or raise it when it is already open). Returns its window. */
export function openApp(s: DeskState, app: AppId): Win {
  const existing = winOf(s, app);
  if (existing) {
    raise(s, app);
    return existing;
  }
  const [x, y] = WINDOW_GEOMETRY[app];
  const win: Win = { id: app, x, y, minimized: false, view: defaultView(app) };
  s.windows.push(win);
  return win;
}

/** Load a file into its app, replacing the open document (the caller checked for unsaved changes). */
export function loadFile(s: DeskState, path: string): void {
  const node = s.fs[path];
  if (!node || node.type !== "file") return;
  const app = appFor(path);
  const win = openApp(s, app);
  win.view =
    app === "editor"
      ? { app, editor: newEditorView(path, node.text) }
      : { app, sheet: newSheetView(path, parseCsv(node.text)) };
}

/** Open a file in its app; asks first when the open document has unsaved changes. */
export function openFile(s: DeskState, path: string): void {
  const app = appFor(path);
  const win = winOf(s, app);
  if (win) {
    const v = win.view;
    const current = v.app === "editor" ? v.editor.path : v.app === "sheet" ? v.sheet.path : null;
    const dirty = v.app === "editor" ? isDirty(v.editor) : v.app === "sheet" ? sheetDirty(v.sheet) : false;
    if (current === path) {
      raise(s, app);
      return;
    }
    if (dirty) {
      raise(s, app);
      win.dialog = { kind: "unsaved", then: { open: path } };
      return;
    }
  }
  loadFile(s, path);
}
