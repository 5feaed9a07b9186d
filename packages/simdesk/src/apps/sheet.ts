/** The spreadsheet: a 6x15 grid, a formula bar, in-cell editing, undo/redo, save as CSV. */
import type { AppModule, InputEvent } from "./app.ts";
import { sheetOf } from "./app.ts";
import type { Cmd, MenuItem, Rect, UiContext, UiNode } from "../ui-types.ts";
import type { Cells, DeskState, SheetView, Win } from "../types.ts";
import { basename, dirname, HOME, join } from "../vfs.ts";
import { COLS, evaluateCells, parseCsv, parseRef, refName, ROWS, toCsv } from "./formula.ts";

export { parseCsv, toCsv };

const BAR_H = 30;
const ROWHEAD_W = 40;
const COLHEAD_H = 24;
export const COL_W = 150;
export const CELL_H = 26;

export function newSheetView(path: string | null, cells: Cells): SheetView {
  return { path, cells, saved: { ...cells }, sel: "A1", undo: [], redo: [] };
}

function sameCells(a: Cells, b: Cells): boolean {
  const ka = Object.keys(a).filter((k) => a[k] !== "");
  const kb = Object.keys(b).filter((k) => b[k] !== "");
  return ka.length === kb.length && ka.every((k) => a[k] === b[k]);
}

export function sheetDirty(v: SheetView): boolean {
  return !sameCells(v.cells, v.saved);
}

/** Rect of a cell in a sheet window's body. */
export function cellRect(body: Rect, ref: string): Rect {
  const [c, r] = parseRef(ref)!;
  return [body[0] + ROWHEAD_W + c * COL_W, body[1] + BAR_H + COLHEAD_H + r * CELL_H, COL_W, CELL_H];
}

/** Set a cell as one undo step. */
export function setCell(v: SheetView, ref: string, raw: string): void {
  if ((v.cells[ref] ?? "") === raw) return;
  v.undo.push({ ...v.cells });
  v.redo = [];
  if (raw === "") delete v.cells[ref];
  else v.cells[ref] = raw;
}

function commit(v: SheetView): void {
  if (!v.edit) return;
  const text = v.edit.text;
  v.edit = undefined;
  setCell(v, v.sel, text);
}

function move(v: SheetView, dc: number, dr: number): void {
  const [c, r] = parseRef(v.sel)!;
  v.sel = refName(Math.max(0, Math.min(COLS.length - 1, c + dc)), Math.max(0, Math.min(ROWS - 1, r + dr)));
}

/** Save the sheet as CSV at `path`. */
export function saveSheet(s: DeskState, v: SheetView, path: string): boolean {
  const parent = s.fs[dirname(path)];
  if (!parent || parent.type !== "dir" || s.fs[path]?.type === "dir") return false;
  commit(v);
  s.fs[path] = { type: "file", text: toCsv(v.cells) };
  v.path = path;
  v.saved = { ...v.cells };
  return true;
}

export function openSheetSaveAs(s: DeskState, win: Win, then?: "close"): void {
  const v = sheetOf(win);
  commit(v);
  win.dialog = {
    kind: "save-as",
    name: v.path ? basename(v.path) : "Book.csv",
    dir: v.path ? dirname(v.path) : join(HOME, "Documents"),
    selected: true,
    then,
  };
  s.menu = undefined;
}

function op(s: DeskState, win: Win, name: string): boolean {
  const v = sheetOf(win);
  switch (name) {
    case "undo": {
      commit(v);
      const prev = v.undo.pop();
      if (prev) {
        v.redo.push({ ...v.cells });
        v.cells = prev;
      }
      return true;
    }
    case "redo": {
      const next = v.redo.pop();
      if (next) {
        v.undo.push({ ...v.cells });
        v.cells = next;
      }
      return true;
    }
    case "copy":
      commit(v);
      s.clipboard = { kind: "text", text: v.cells[v.sel] ?? "" };
      return true;
    case "cut":
      commit(v);
      s.clipboard = { kind: "text", text: v.cells[v.sel] ?? "" };
      setCell(v, v.sel, "");
      return true;
    case "paste":
      commit(v);
      if (s.clipboard.kind === "text") setCell(v, v.sel, s.clipboard.text.split("\n")[0]);
      return true;
    case "clear":
      commit(v);
      setCell(v, v.sel, "");
      return true;
    case "save":
      if (v.path) saveSheet(s, v, v.path);
      else openSheetSaveAs(s, win);
      return true;
    case "saveAs":
      openSheetSaveAs(s, win);
      return true;
  }
  return false;
}

export const sheetApp: AppModule = {
  id: "sheet",
  title(_s, win) {
    const v = sheetOf(win);
    return `${sheetDirty(v) ? "*" : ""}${v.path ? basename(v.path) : "Book.csv"} - Sheets`;
  },
  menus(): Record<string, MenuItem[]> {
    return {
      File: [
        { label: "Save", cmd: { op: "sheet.save" }, shortcut: "Ctrl+S" },
        { label: "Save As…", cmd: { op: "sheet.saveAs" }, shortcut: "Ctrl+Shift+S" },
        { label: "Close", cmd: { op: "win.close", a: "sheet" }, shortcut: "Ctrl+W" },
      ],
      Edit: [
        { label: "Undo", cmd: { op: "sheet.undo" }, shortcut: "Ctrl+Z" },
        { label: "Redo", cmd: { op: "sheet.redo" }, shortcut: "Ctrl+Y" },
        { label: "Cut", cmd: { op: "sheet.cut" }, shortcut: "Ctrl+X" },
        { label: "Copy", cmd: { op: "sheet.copy" }, shortcut: "Ctrl+C" },
        { label: "Paste", cmd: { op: "sheet.paste" }, shortcut: "Ctrl+V" },
        { label: "Clear Cell", cmd: { op: "sheet.clear" }, shortcut: "Delete" },
      ],
    };
  },
  body(s, win, _ctx: UiContext, rect): UiNode[] {
    const v = sheetOf(win);
    const values = evaluateCells(v.cells);
    const [x, y] = rect;
    const focused = s.windows[s.windows.length - 1] === win && !win.dialog;
    const nodes: UiNode[] = [
      { id: "sheet.ref", role: "label", name: "Cell", text: v.sel, rect: [x + 6, y + 4, 56, 22], style: "field" },
      {
        id: "sheet.formula",
        role: "text",
        name: "Formula bar",
        text: v.edit ? v.edit.text : (v.cells[v.sel] ?? ""),
        value: v.edit ? v.edit.text : (v.cells[v.sel] ?? ""),
        rect: [x + 68, y + 4, rect[2] - 76, 22],
        style: "field",
      },
    ];
    COLS.forEach((c, i) =>
      nodes.push({
        id: `sheet.col.${c}`,
        role: "column header",
        name: c,
        text: c,
        rect: [x + ROWHEAD_W + i * COL_W, y + BAR_H, COL_W, COLHEAD_H],
        style: "gridhead",
      }),
    );
    for (let r = 0; r < ROWS; r++)
      nodes.push({
        id: `sheet.row.${r + 1}`,
        role: "row header",
        name: String(r + 1),
        text: String(r + 1),
        rect: [x, y + BAR_H + COLHEAD_H + r * CELL_H, ROWHEAD_W, CELL_H],
        style: "gridhead",
      });
    for (let r = 0; r < ROWS; r++)
      for (let c = 0; c < COLS.length; c++) {
        const ref = refName(c, r);
        const selected = ref === v.sel;
        const editing = selected && v.edit !== undefined;
        const shown = editing ? v.edit!.text : (values[ref] ?? "");
        const numeric = !editing && shown !== "" && !Number.isNaN(Number(shown));
        nodes.push({
          id: `sheet.cell.${ref}`,
          role: "cell",
          name: ref,
          text: shown,
          value: v.cells[ref] ?? "",
          rect: cellRect(rect, ref),
          style: "cell",
          states: [selected ? "selected" : "", editing ? "editing" : "", selected && focused ? "focused" : ""].filter(
            Boolean,
          ),
          click: { op: "sheet.select", a: ref },
          dbl: { op: "sheet.edit", a: ref },
          data: { align: numeric ? "end" : "start" },
        });
      }
    return nodes;
  },
  command(s, win, cmd: Cmd, _ev: InputEvent) {
    const v = sheetOf(win);
    const name = cmd.op.slice("sheet.".length);
    if (name === "select") {
      commit(v);
      v.sel = cmd.a!;
      return true;
    }
    if (name === "edit") {
      commit(v);
      v.sel = cmd.a!;
      v.edit = { text: v.cells[v.sel] ?? "" };
      return true;
    }
    return op(s, win, name);
  },
  key(s, win, combo) {
    const v = sheetOf(win);
    const arrows: Record<string, [number, number]> = {
      left: [-1, 0],
      right: [1, 0],
      up: [0, -1],
      down: [0, 1],
      enter: [0, 1],
      tab: [1, 0],
      "shift+tab": [-1, 0],
      "shift+enter": [0, -1],
    };
    if (v.edit) {
      if (combo === "escape") {
        v.edit = undefined;
        return true;
      }
      if (combo === "backspace") {
        v.edit.text = v.edit.text.slice(0, -1);
        return true;
      }
      if (arrows[combo]) {
        commit(v);
        move(v, ...arrows[combo]);
        return true;
      }
    }
    if (arrows[combo]) {
      move(v, ...arrows[combo]);
      return true;
    }
    switch (combo) {
      case "ctrl+z":
        return op(s, win, "undo");
      case "ctrl+y":
      case "ctrl+shift+z":
        return op(s, win, "redo");
      case "ctrl+c":
        return op(s, win, "copy");
      case "ctrl+x":
        return op(s, win, "cut");
      case "ctrl+v":
        return op(s, win, "paste");
      case "ctrl+s":
        return op(s, win, "save");
      case "ctrl+shift+s":
        return op(s, win, "saveAs");
      case "delete":
      case "backspace":
        return op(s, win, "clear");
      case "f2":
        v.edit = { text: v.cells[v.sel] ?? "" };
        return true;
    }
    return false;
  },
  type(_s, win, text) {
    const v = sheetOf(win);
    // A newline (tab) in typed text commits the cell and moves down (right), as Enter (Tab) does.
    // After tabs, a newline returns to the column the row was started in.
    const startCol = parseRef(v.sel)![0];
    const parts = text.split(/(\n|\t)/);
    parts.forEach((part) => {
      if (part === "\n" || part === "\t") {
        commit(v);
        if (part === "\t") move(v, 1, 0);
        else v.sel = refName(startCol, Math.min(ROWS - 1, parseRef(v.sel)![1] + 1));
        return;
      }
      if (part === "") return;
      if (v.edit) v.edit.text += part;
      else v.edit = { text: part };
    });
    return true;
  },
  closePrompt(_s, win) {
    const v = sheetOf(win);
    commit(v);
    return sheetDirty(v) ? { kind: "unsaved", then: "close" } : undefined;
  },
};
