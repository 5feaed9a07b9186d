/** Modal dialogs: Save As, unsaved changes, New Folder, confirmations. Layout, input and outcomes. */
import type { Rect, UiNode } from "../ui-types.ts";
import type { AppId, DeskState, Dialog, Win } from "../types.ts";
import { HOME, join, resolvePath, tildify } from "../vfs.ts";
import { windowRect } from "./geometry.ts";
import { editorOf, sheetOf } from "./app.ts";
import { saveEditor } from "./editor.ts";
import { saveSheet } from "./sheet.ts";
import { createFolder, deleteFromTrash, emptyTrash } from "./files-ops.ts";
import { loadFile } from "./open.ts";
import { APP_MODULES } from "./registry.ts";

const DIALOG_W = 440;
export const SAVE_AS_PLACES = ["Home", "Desktop", "Documents", "Downloads"] as const;

interface DialogSpec {
  title: string;
  message?: string;
  field?: { label: string; text: string; selected: boolean };
  /** Buttons left to right; the last one is the default (Enter). */
  buttons: Array<[id: string, label: string]>;
  places?: string;
  height: number;
}

function spec(win: Win, d: Dialog): DialogSpec {
  switch (d.kind) {
    case "save-as":
      return {
        title: "Save As",
        field: { label: "Name", text: d.name, selected: d.selected },
        places: d.dir,
        buttons: [
          ["cancel", "Cancel"],
          ["save", "Save"],
        ],
        height: 210,
      };
    case "unsaved": {
      const v = win.view;
      const name =
        v.app === "editor"
          ? (v.editor.path ?? "Untitled")
          : v.app === "sheet"
            ? (v.sheet.path ?? "Book.csv")
            : "document";
      return {
        title: "Unsaved changes",
        message: `Save changes to ${name.split("/").pop()} before closing?`,
        buttons: [
          ["discard", "Don't Save"],
          ["cancel", "Cancel"],
          ["save", "Save"],
        ],
        height: 150,
      };
    }
    case "new-folder":
      return {
        title: "New Folder",
        field: { label: "Folder name", text: d.name, selected: d.selected },
        buttons: [
          ["cancel", "Cancel"],
          ["create", "Create"],
        ],
        height: 160,
      };
    case "confirm-empty-trash":
      return {
        title: "Empty Trash?",
        message: "All items in the Trash will be permanently deleted.",
        buttons: [
          ["cancel", "Cancel"],
          ["empty", "Empty Trash"],
        ],
        height: 150,
      };
    case "confirm-delete":
      return {
        title: "Delete permanently?",
        message: `${d.keys.length} item(s) will be deleted for good.`,
        buttons: [
          ["cancel", "Cancel"],
          ["delete", "Delete"],
        ],
        height: 150,
      };
    case "message":
      return { title: "Notice", message: d.text, buttons: [["ok", "OK"]], height: 130 };
  }
}

/** The dialog's outer rect, centred on its window. */
export function dialogRect(win: Win): Rect {
  const wr = windowRect(win);
  const h = spec(win, win.dialog!).height;
  return [Math.round(wr[0] + (wr[2] - DIALOG_W) / 2), Math.round(wr[1] + (wr[3] - h) / 2), DIALOG_W, h];
}

/** Widgets of a window's dialog. */
export function dialogUi(win: Win): UiNode {
  const d = win.dialog!;
  const sp = spec(win, d);
  const [x, y, w, h] = dialogRect(win);
  const children: UiNode[] = [
    {
      id: "dialog.title",
      role: "heading",
      name: sp.title,
      text: sp.title,
      rect: [x + 16, y + 10, w - 32, 26],
      style: "dlgtitle",
    },
  ];
  let cy = y + 44;
  if (sp.message) {
    children.push({
      id: "dialog.message",
      role: "label",
      name: sp.message,
      text: sp.message,
      rect: [x + 16, cy, w - 32, 40],
      style: "message",
    });
    cy += 44;
  }
  if (sp.field) {
    children.push({
      id: "dialog.label",
      role: "label",
      name: sp.field.label,
      text: sp.field.label,
      rect: [x + 16, cy, 110, 28],
      style: "message",
    });
    children.push({
      id: "dialog.name",
      role: "text",
      name: sp.field.label,
      text: sp.field.text,
      value: sp.field.text,
      rect: [x + 128, cy, w - 144, 28],
      style: "input",
      states: ["focused", "editable", ...(sp.field.selected ? ["selected"] : [])],
      click: { op: "dlg", a: "field" },
      data: { selected: sp.field.selected },
    });
    cy += 38;
  }
  if (sp.places !== undefined) {
    children.push({
      id: "dialog.folder",
      role: "label",
      name: "Folder",
      text: `Folder: ${tildify(sp.places)}`,
      rect: [x + 16, cy, w - 32, 24],
      style: "message",
    });
    cy += 28;
    SAVE_AS_PLACES.forEach((p, i) => {
      const path = p === "Home" ? HOME : join(HOME, p);
      children.push({
        id: `dialog.place.${p}`,
        role: "button",
        name: p,
        text: p,
        rect: [x + 16 + i * 100, cy, 92, 26],
        style: "chip",
        states: sp.places === path ? ["selected"] : undefined,
        click: { op: "dlg", a: "place", b: path },
      });
    });
  }
  const bw = 110;
  sp.buttons.forEach(([id, label], i) => {
    const bx = x + w - 16 - (sp.buttons.length - i) * (bw + 8) + 8;
    children.push({
      id: `dialog.btn.${id}`,
      role: "button",
      name: label,
      text: label,
      rect: [bx, y + h - 44, bw, 30],
      style: i === sp.buttons.length - 1 ? "primary" : "button",
      click: { op: "dlg", a: id },
    });
  });
  return {
    id: `dialog.${d.kind}`,
    role: "dialog",
    name: sp.title,
    rect: [x, y, w, h],
    style: "dialog",
    click: { op: "dlg", a: "none" },
    children,
  };
}

/** Close a window, or ask first when it holds unsaved changes. */
export function closeWindow(s: DeskState, id: AppId, force = false): boolean {
  const win = s.windows.find((w) => w.id === id);
  if (!win) return false;
  if (s.menu?.win === id) s.menu = undefined;
  const prompt = force ? undefined : APP_MODULES[id].closePrompt?.(s, win);
  if (prompt) {
    win.dialog = prompt;
    s.windows = [...s.windows.filter((w) => w !== win), win];
    return true;
  }
  s.windows = s.windows.filter((w) => w !== win);
  return true;
}

function saveDoc(s: DeskState, win: Win, path: string): boolean {
  if (win.view.app === "editor") return saveEditor(s, editorOf(win), path);
  if (win.view.app === "sheet") return saveSheet(s, sheetOf(win), path);
  return false;
}

function docPath(win: Win): string | null {
  return win.view.app === "editor" ? win.view.editor.path : win.view.app === "sheet" ? win.view.sheet.path : null;
}

function proceedAfterUnsaved(s: DeskState, win: Win, then: "close" | { open: string }): void {
  win.dialog = undefined;
  if (then === "close") closeWindow(s, win.id, true);
  else loadFile(s, then.open);
}

/** Press a dialog button (or "default" for Enter). */
export function dialogButton(s: DeskState, win: Win, button: string, arg?: string): boolean {
  const d = win.dialog;
  if (!d) return false;
  const id = button === "default" ? spec(win, d).buttons.at(-1)![0] : button;
  if (id === "none") return true;
  if (id === "cancel") {
    win.dialog = undefined;
    return true;
  }
  if (id === "field") {
    if (d.kind === "save-as" || d.kind === "new-folder") d.selected = false;
    return true;
  }
  switch (d.kind) {
    case "save-as": {
      if (id === "place") {
        d.dir = arg ?? d.dir;
        return true;
      }
      let name = d.name.trim();
      if (!name) return true;
      if (win.view.app === "sheet" && !/\.csv$/i.test(name)) name += ".csv";
      const path = resolvePath(name, d.dir);
      const then = d.then;
      if (!saveDoc(s, win, path)) {
        win.dialog = { kind: "message", text: `Cannot save to ${tildify(path)}` };
        return true;
      }
      win.dialog = undefined;
      if (then === "close") closeWindow(s, win.id, true);
      return true;
    }
    case "unsaved":
      if (id === "discard") proceedAfterUnsaved(s, win, d.then);
      else if (id === "save") {
        const path = docPath(win);
        if (path && saveDoc(s, win, path)) proceedAfterUnsaved(s, win, d.then);
        else {
          win.dialog = undefined;
          const mod = win.view.app;
          if (mod === "editor" || mod === "sheet") {
            win.dialog = {
              kind: "save-as",
              name: mod === "editor" ? "Untitled.txt" : "Book.csv",
              dir: join(HOME, "Documents"),
              selected: true,
              then: d.then === "close" ? "close" : undefined,
            };
          }
        }
      }
      return true;
    case "new-folder":
      if (createFolder(s, win, d.name)) win.dialog = undefined;
      return true;
    case "confirm-empty-trash":
      emptyTrash(s);
      win.dialog = undefined;
      return true;
    case "confirm-delete":
      deleteFromTrash(s, d.keys);
      win.dialog = undefined;
      return true;
    case "message":
      win.dialog = undefined;
      return true;
  }
}

/** Keyboard input while a dialog is open. */
export function dialogKey(s: DeskState, win: Win, combo: string): boolean {
  const d = win.dialog!;
  if (combo === "escape") return dialogButton(s, win, "cancel");
  if (combo === "enter") return dialogButton(s, win, "default");
  if (d.kind === "save-as" || d.kind === "new-folder") {
    if (combo === "backspace") {
      d.name = d.selected ? "" : d.name.slice(0, -1);
      d.selected = false;
      return true;
    }
    if (combo === "ctrl+a") {
      d.selected = true;
      return true;
    }
    if (["left", "right", "home", "end"].includes(combo)) {
      d.selected = false;
      return true;
    }
  }
  return combo === "tab";
}

/** Typed text while a dialog is open (a newline presses the default button). */
export function dialogType(s: DeskState, win: Win, text: string): boolean {
  const d = win.dialog!;
  const [first, ...rest] = text.split("\n");
  if (d.kind === "save-as" || d.kind === "new-folder") {
    if (first) {
      d.name = d.selected ? first : d.name + first;
      d.selected = false;
    }
  } else if (first) return false;
  if (rest.length) dialogButton(s, win, "default");
  return true;
}
