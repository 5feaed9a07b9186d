/** The text editor: a cursor, a selection, undo/redo, clipboard, Save / Save As, unsaved prompt. */
import type { AppModule, InputEvent } from "./app.ts";
import { editorOf } from "./app.ts";
import type { Cmd, MenuItem, Rect, UiContext, UiNode } from "../ui-types.ts";
import type { DeskState, EditorView, Win } from "../types.ts";
import { basename, dirname, HOME, join } from "../vfs.ts";
import { bodyRect as bodyRectOf } from "./geometry.ts";

export const EDITOR_FONT = 15;
/** DejaVu Sans Mono advance width (1233/2048 em). */
export const CHAR_W = (EDITOR_FONT * 1233) / 2048;
export const LINE_H = 20;
const PAD = 10;
const STATUS_H = 22;

/** A fresh editor view on a document. */
export function newEditorView(path: string | null, text: string): EditorView {
  return { path, text, saved: text, cursor: 0, anchor: null, undo: [], redo: [], scroll: 0 };
}

export function isDirty(v: EditorView): boolean {
  return v.text !== v.saved;
}

/** Text area rect inside the body rect. */
export function textArea(rect: Rect): Rect {
  return [rect[0], rect[1], rect[2], rect[3] - STATUS_H];
}

export function visibleLines(rect: Rect): number {
  return Math.max(1, Math.floor((textArea(rect)[3] - 2 * PAD) / LINE_H));
}

/** Offset -> [line, col]. */
export function lineCol(text: string, offset: number): [number, number] {
  const before = text.slice(0, offset).split("\n");
  return [before.length - 1, before[before.length - 1].length];
}

/** [line, col] -> offset, clamped. */
export function offsetOf(text: string, line: number, col: number): number {
  const lines = text.split("\n");
  const l = Math.max(0, Math.min(lines.length - 1, line));
  let off = 0;
  for (let i = 0; i < l; i++) off += lines[i].length + 1;
  return off + Math.max(0, Math.min(lines[l].length, col));
}

/** Screen point of a text offset (left edge of the character) for a view laid out in `rect`. */
export function pointOfOffset(v: EditorView, rect: Rect, offset: number): { x: number; y: number } {
  const [line, col] = lineCol(v.text, offset);
  const area = textArea(rect);
  return {
    x: Math.round(area[0] + PAD + col * CHAR_W + 1),
    y: Math.round(area[1] + PAD + (line - v.scroll) * LINE_H + LINE_H / 2),
  };
}

function offsetAt(v: EditorView, rect: Rect, x: number, y: number): number {
  const area = textArea(rect);
  const line = Math.floor((y - area[1] - PAD) / LINE_H) + v.scroll;
  const col = Math.round((x - area[0] - PAD) / CHAR_W);
  return offsetOf(v.text, line, col);
}

export function selection(v: EditorView): [number, number] | null {
  if (v.anchor === null || v.anchor === v.cursor) return null;
  return [Math.min(v.anchor, v.cursor), Math.max(v.anchor, v.cursor)];
}

function pushUndo(v: EditorView): void {
  v.undo.push({ text: v.text, cursor: v.cursor, anchor: v.anchor });
  if (v.undo.length > 200) v.undo.shift();
  v.redo = [];
}

/** Replace the selection (or insert at the cursor). One undo step. */
export function insertText(v: EditorView, str: string): void {
  pushUndo(v);
  const sel = selection(v);
  const [a, b] = sel ?? [v.cursor, v.cursor];
  v.text = v.text.slice(0, a) + str + v.text.slice(b);
  v.cursor = a + str.length;
  v.anchor = null;
}

function deleteRange(v: EditorView, a: number, b: number): void {
  if (a === b) return;
  pushUndo(v);
  v.text = v.text.slice(0, a) + v.text.slice(b);
  v.cursor = a;
  v.anchor = null;
}

export function undo(v: EditorView): boolean {
  const prev = v.undo.pop();
  if (!prev) return false;
  v.redo.push({ text: v.text, cursor: v.cursor, anchor: v.anchor });
  Object.assign(v, prev);
  return true;
}

export function redo(v: EditorView): boolean {
  const next = v.redo.pop();
  if (!next) return false;
  v.undo.push({ text: v.text, cursor: v.cursor, anchor: v.anchor });
  Object.assign(v, next);
  return true;
}

/** Write the document to its path (the caller opens Save As when there is none). */
export function saveEditor(s: DeskState, v: EditorView, path: string): boolean {
  const parent = s.fs[dirname(path)];
  if (!parent || parent.type !== "dir") return false;
  if (s.fs[path]?.type === "dir") return false;
  s.fs[path] = { type: "file", text: v.text };
  v.path = path;
  v.saved = v.text;
  return true;
}

function ensureVisible(v: EditorView, lines: number): void {
  const [line] = lineCol(v.text, v.cursor);
  if (line < v.scroll) v.scroll = line;
  if (line >= v.scroll + lines) v.scroll = line - lines + 1;
}

function moveCursor(v: EditorView, to: number, extend: boolean): void {
  if (extend) {
    if (v.anchor === null) v.anchor = v.cursor;
  } else v.anchor = null;
  v.cursor = Math.max(0, Math.min(v.text.length, to));
}

export function openSaveAs(s: DeskState, win: Win, then?: "close"): void {
  const v = editorOf(win);
  win.dialog = {
    kind: "save-as",
    name: v.path ? basename(v.path) : "Untitled.txt",
    dir: v.path ? dirname(v.path) : join(HOME, "Documents"),
    selected: true,
    then,
  };
  s.menu = undefined;
}

function editCommand(s: DeskState, win: Win, op: string): boolean {
  const v = editorOf(win);
  const sel = selection(v);
  switch (op) {
    case "undo":
      return undo(v) || true;
    case "redo":
      return redo(v) || true;
    case "copy":
      if (sel) s.clipboard = { kind: "text", text: v.text.slice(sel[0], sel[1]) };
      return true;
    case "cut":
      if (sel) {
        s.clipboard = { kind: "text", text: v.text.slice(sel[0], sel[1]) };
        deleteRange(v, sel[0], sel[1]);
      }
      return true;
    case "paste":
      if (s.clipboard.kind === "text") insertText(v, s.clipboard.text);
      else if (s.clipboard.kind === "files") insertText(v, s.clipboard.paths.join("\n"));
      return true;
    case "selectAll":
      v.anchor = 0;
      v.cursor = v.text.length;
      return true;
    case "save":
      if (v.path) saveEditor(s, v, v.path);
      else openSaveAs(s, win);
      return true;
    case "saveAs":
      openSaveAs(s, win);
      return true;
  }
  return false;
}

const MENUS: Record<string, MenuItem[]> = {
  File: [
    { label: "Save", cmd: { op: "editor.save" }, shortcut: "Ctrl+S" },
    { label: "Save As…", cmd: { op: "editor.saveAs" }, shortcut: "Ctrl+Shift+S" },
    { label: "Close", cmd: { op: "win.close", a: "editor" }, shortcut: "Ctrl+W" },
  ],
  Edit: [
    { label: "Undo", cmd: { op: "editor.undo" }, shortcut: "Ctrl+Z" },
    { label: "Redo", cmd: { op: "editor.redo" }, shortcut: "Ctrl+Y" },
    { label: "Cut", cmd: { op: "editor.cut" }, shortcut: "Ctrl+X" },
    { label: "Copy", cmd: { op: "editor.copy" }, shortcut: "Ctrl+C" },
    { label: "Paste", cmd: { op: "editor.paste" }, shortcut: "Ctrl+V" },
    { label: "Select All", cmd: { op: "editor.selectAll" }, shortcut: "Ctrl+A" },
  ],
};

export const editorApp: AppModule = {
  id: "editor",
  title(_s, win) {
    const v = editorOf(win);
    return `${isDirty(v) ? "*" : ""}${v.path ? basename(v.path) : "Untitled"} - Text Editor`;
  },
  menus(_s, win) {
    const v = editorOf(win);
    return {
      File: MENUS.File,
      Edit: MENUS.Edit.map((m) =>
        m.label === "Undo"
          ? { ...m, disabled: v.undo.length === 0 }
          : m.label === "Redo"
            ? { ...m, disabled: v.redo.length === 0 }
            : m,
      ),
    };
  },
  body(s, win, _ctx: UiContext, rect): UiNode[] {
    const v = editorOf(win);
    const area = textArea(rect);
    const n = visibleLines(rect);
    const lines = v.text.split("\n");
    const shown = lines.slice(v.scroll, v.scroll + n);
    const focused = s.windows[s.windows.length - 1] === win && !win.dialog;
    const [line, col] = lineCol(v.text, v.cursor);
    const sel = selection(v);
    return [
      {
        id: "editor.text",
        role: "text",
        name: "Document",
        rect: area,
        style: "textarea",
        value: v.text,
        states: focused ? ["focused", "editable", "multi-line"] : ["editable", "multi-line"],
        click: { op: "editor.click" },
        dbl: { op: "editor.click" },
        drag: "text",
        scroll: "editor.text",
        data: {
          lines: shown,
          first: v.scroll,
          pad: PAD,
          lineH: LINE_H,
          charW: CHAR_W,
          font: EDITOR_FONT,
          cursor: focused ? [line - v.scroll, col] : null,
          sel: sel ? [lineCol(v.text, sel[0]), lineCol(v.text, sel[1])] : null,
        },
      },
      {
        id: "editor.status",
        role: "status bar",
        name: "Status",
        rect: [rect[0], rect[1] + rect[3] - STATUS_H, rect[2], STATUS_H],
        style: "statusbar",
        text: `Ln ${line + 1}, Col ${col + 1}   ${v.path ?? "(not saved)"}${isDirty(v) ? "   modified" : ""}`,
      },
    ];
  },
  command(s, win, cmd: Cmd, ev: InputEvent) {
    const v = editorOf(win);
    if (cmd.op === "editor.click") {
      const rect = bodyRectOf(win);
      const off = offsetAt(v, rect, ev.x, ev.y);
      if (ev.clicks >= 3) {
        const [l] = lineCol(v.text, off);
        v.anchor = offsetOf(v.text, l, 0);
        v.cursor = offsetOf(v.text, l, 1e9);
      } else if (ev.clicks === 2) {
        const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);
        let a = off;
        let b = off;
        while (isWord(v.text[a - 1])) a--;
        while (isWord(v.text[b])) b++;
        v.anchor = a;
        v.cursor = b;
      } else moveCursor(v, off, ev.shift);
      return true;
    }
    return editCommand(s, win, cmd.op.slice("editor.".length));
  },
  key(s, win, combo) {
    const v = editorOf(win);
    const lines = visibleLines(bodyRectOf(win));
    const shift = combo.startsWith("shift+") || combo.includes("+shift+");
    const base = combo.replace(/^(ctrl\+)?(shift\+)?/, "");
    const [line, col] = lineCol(v.text, v.cursor);
    const sel = selection(v);
    let handled = true;
    switch (combo) {
      case "ctrl+z":
        return editCommand(s, win, "undo");
      case "ctrl+y":
      case "ctrl+shift+z":
        return editCommand(s, win, "redo");
      case "ctrl+c":
        return editCommand(s, win, "copy");
      case "ctrl+x":
        return editCommand(s, win, "cut");
      case "ctrl+v":
        return editCommand(s, win, "paste");
      case "ctrl+a":
        return editCommand(s, win, "selectAll");
      case "ctrl+s":
        return editCommand(s, win, "save");
      case "ctrl+shift+s":
        return editCommand(s, win, "saveAs");
      case "ctrl+home":
        moveCursor(v, 0, false);
        break;
      case "ctrl+end":
        moveCursor(v, v.text.length, false);
        break;
      case "enter":
        insertText(v, "\n");
        break;
      case "tab":
        insertText(v, "    ");
        break;
      case "backspace":
        if (sel) deleteRange(v, sel[0], sel[1]);
        else if (v.cursor > 0) deleteRange(v, v.cursor - 1, v.cursor);
        break;
      case "delete":
        if (sel) deleteRange(v, sel[0], sel[1]);
        else if (v.cursor < v.text.length) deleteRange(v, v.cursor, v.cursor + 1);
        break;
      default:
        if (combo.startsWith("ctrl+") && !["ctrl+shift+left", "ctrl+shift+right"].includes(combo)) return false;
        switch (base) {
          case "left":
            moveCursor(v, !shift && sel ? sel[0] : v.cursor - 1, shift);
            break;
          case "right":
            moveCursor(v, !shift && sel ? sel[1] : v.cursor + 1, shift);
            break;
          case "up":
            moveCursor(v, line === 0 ? 0 : offsetOf(v.text, line - 1, col), shift);
            break;
          case "down":
            moveCursor(v, offsetOf(v.text, line + 1, line + 1 >= v.text.split("\n").length ? 1e9 : col), shift);
            break;
          case "home":
            moveCursor(v, offsetOf(v.text, line, 0), shift);
            break;
          case "end":
            moveCursor(v, offsetOf(v.text, line, 1e9), shift);
            break;
          case "pageup":
            moveCursor(v, offsetOf(v.text, line - lines, col), shift);
            break;
          case "pagedown":
            moveCursor(v, offsetOf(v.text, line + lines, col), shift);
            break;
          default:
            handled = false;
        }
    }
    if (handled) ensureVisible(v, lines);
    return handled;
  },
  type(_s, win, text) {
    const v = editorOf(win);
    insertText(v, text);
    ensureVisible(v, visibleLines(bodyRectOf(win)));
    return true;
  },
  drag(_s, win, src, _dst, from, to) {
    if (src !== "text") return false;
    const v = editorOf(win);
    const rect = bodyRectOf(win);
    v.anchor = offsetAt(v, rect, from.x, from.y);
    v.cursor = offsetAt(v, rect, to.x, to.y);
    return true;
  },
  scroll(_s, win, _target, dy) {
    const v = editorOf(win);
    const max = Math.max(0, v.text.split("\n").length - visibleLines(bodyRectOf(win)));
    const next = Math.max(0, Math.min(max, v.scroll - dy * 3));
    v.scroll = next;
    return true;
  },
  closePrompt(_s, win) {
    return isDirty(editorOf(win)) ? { kind: "unsaved", then: "close" } : undefined;
  },
};
