/**
 * State hashes.
 * - `fullStateHash`: everything, hidden state included (files, config, Trash, clipboard, undo/redo
 *   stacks, windows, dialogs, menus); EXCLUDES the pointer, held mouse/keys and noise (pop-ups, clock).
 * - `semanticView`/`semanticHash`: what matters for restoring: as above minus undo/redo stacks
 *   (an undo restores the document, not its history).
 * - `visibleHash`: the rendered UI tree (text, geometry, states, the hovered widget), noise excluded.
 * - stateId (desk.ts): sha256 of the canonical JSON of the full snapshot (pointer and noise included).
 */
import { hashValue } from "@retrace-cua/core/hash";
import type { DeskState } from "./types.ts";
import type { UiNode } from "./ui-types.ts";
import { hitNode } from "./ui.ts";
import { NO_HOVER } from "./render.ts";

function withoutInput(s: DeskState): Omit<DeskState, "pointer" | "mouseDown" | "held" | "noise"> {
  const { pointer: _p, mouseDown: _m, held: _h, noise: _n, ...rest } = s;
  return rest;
}

export function fullStateHash(s: DeskState): string {
  return hashValue(withoutInput(s));
}

/** The state as far as restoration is concerned (no pointer, noise or undo history). */
export function semanticView(s: DeskState): unknown {
  const rest = withoutInput(s);
  return {
    ...rest,
    windows: rest.windows.map((w) => {
      if (w.view.app === "editor") {
        const { undo: _u, redo: _r, ...e } = w.view.editor;
        return { ...w, view: { app: "editor", editor: e } };
      }
      if (w.view.app === "sheet") {
        const { undo: _u, redo: _r, ...sh } = w.view.sheet;
        return { ...w, view: { app: "sheet", sheet: sh } };
      }
      return w;
    }),
  };
}

export function semanticHash(s: DeskState): string {
  return hashValue(semanticView(s));
}

function visibleNode(n: UiNode): unknown {
  if (n.id === "popup" || n.id === "taskbar.clock") return null;
  return {
    id: n.id,
    r: n.rect,
    st: n.style,
    t: n.text,
    s: n.states,
    d: n.data && n.style !== "list" ? n.data : undefined,
    c: n.children?.map(visibleNode).filter((x) => x !== null),
  };
}

/** Hash of what is on screen, given the UI tree and the pointer (hover highlight is visible). */
export function visibleHashOf(ui: UiNode, pointer: { x: number; y: number }): string {
  const hover = hitNode(ui, pointer.x, pointer.y);
  const { ctx: _c, ...data } = (ui.data ?? {}) as Record<string, unknown>;
  const shown = hover && hover.id !== "popup" && !NO_HOVER.has(hover.style) ? hover.id : null;
  return hashValue({ tree: visibleNode({ ...ui, data }), hover: shown });
}
