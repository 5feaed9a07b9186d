/**
 * What an app module provides. Handlers receive a private clone of the state and mutate it;
 * they return true when the input was handled (false = no-op).
 */
import type { Cmd, MenuItem, Rect, UiContext, UiNode } from "../ui-types.ts";
import type { AppId, DeskState, Dialog, Win } from "../types.ts";
import { InternalError } from "@retrace-cua/core/errors";

/** Pointer position of the input that triggered a command, and keys held. */
export interface InputEvent {
  x: number;
  y: number;
  shift: boolean;
  ctrl: boolean;
  clicks: number;
}

export interface AppModule {
  id: AppId;
  title(s: DeskState, win: Win): string;
  menus(s: DeskState, win: Win): Record<string, MenuItem[]>;
  /** Widgets inside `rect` (the content area below the menubar). */
  body(s: DeskState, win: Win, ctx: UiContext, rect: Rect): UiNode[];
  command(s: DeskState, win: Win, cmd: Cmd, ev: InputEvent): boolean;
  /** A normalised key combo ("ctrl+z", "enter", "shift+left"). */
  key(s: DeskState, win: Win, combo: string): boolean;
  type(s: DeskState, win: Win, text: string): boolean;
  /** A drag from a source key to a drop target key (or a point, for text selection). */
  drag?(s: DeskState, win: Win, src: string, dst: string | undefined, from: InputEvent, to: InputEvent): boolean;
  scroll?(s: DeskState, win: Win, target: string, dy: number): boolean;
  /** The dialog to show before closing (unsaved changes), or undefined to close at once. */
  closePrompt?(s: DeskState, win: Win): Dialog | undefined;
}

/** The window of an app, if open. */
export function winOf(s: DeskState, id: AppId): Win | undefined {
  return s.windows.find((w) => w.id === id);
}

/** Typed view accessors (throw only on an engine bug). */
export function editorOf(win: Win) {
  if (win.view.app !== "editor") throw new InternalError(`window ${win.id} is not the editor`);
  return win.view.editor;
}
export function filesOf(win: Win) {
  if (win.view.app !== "files") throw new InternalError(`window ${win.id} is not the file manager`);
  return win.view.files;
}
export function settingsOf(win: Win) {
  if (win.view.app !== "settings") throw new InternalError(`window ${win.id} is not settings`);
  return win.view.settings;
}
export function sheetOf(win: Win) {
  if (win.view.app !== "sheet") throw new InternalError(`window ${win.id} is not the spreadsheet`);
  return win.view.sheet;
}
