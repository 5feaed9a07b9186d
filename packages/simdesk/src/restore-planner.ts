/**
 * Shared pieces of the restoration rules: the Planner (current layout, focus and navigation helpers) and document
 * helpers.
 */
import type { Action } from "@retrace-cua/core/action";
import { stableStringify } from "@retrace-cua/core/hash";
import type { RestorativeStep } from "@retrace-cua/core/ground-truth";
import { APPS, type AppId, type DeskState, type EditorView, type Win } from "./types.ts";
import { center, findNode, type UiNode } from "./ui-types.ts";
import { buildUi, hitNode, topWindow } from "./ui.ts";
import { HOME, isWithin, join, listDir, subtree } from "./vfs.ts";
import { redo as redoOnce, selection, undo as undoOnce } from "./apps/editor.ts";
import { SIDEBAR_PLACES } from "./apps/files-view.ts";

/** A rule's answer: a step, or "unreachable". */
export type Step = RestorativeStep | "unreachable";

export const click = (x: number, y: number): Action => ({ type: "CLICK", x, y, button: "left", numClicks: 1 });
export const press = (key: string): Action => ({ type: "PRESS", key });
export const hotkey = (...keys: string[]): Action => ({ type: "HOTKEY", keys });

/** The current and target states with the current layout, and UI navigation helpers. */
export class Planner {
  readonly ui: UiNode;
  constructor(
    readonly cur: DeskState,
    readonly tgt: DeskState,
    width: number,
    height: number,
  ) {
    this.ui = buildUi(cur, width, height);
  }

  win(s: DeskState, id: AppId): Win | undefined {
    return s.windows.find((w) => w.id === id);
  }

  clickNode(id: string, rationale: string, dbl = false): Step | undefined {
    const n = findNode(this.ui, id);
    if (!n) return undefined;
    const c = center(n.rect);
    const hit = hitNode(this.ui, c.x, c.y);
    if (hit?.id === "popup") return this.clickNode("popup", `dismiss the notification covering ${id}`);
    if (hit?.id !== id) {
      // Covered by another window: bring the owner to the front first.
      const owner =
        APPS.find((a) => id.startsWith(`${a}.`)) ?? (id.startsWith("dialog.") ? topWindow(this.cur)?.id : undefined);
      if (owner && this.win(this.cur, owner) && !id.startsWith("taskbar."))
        return this.clickNode(`taskbar.task.${owner}`, `bring ${owner} to the front to ${rationale}`);
    }
    return { action: dbl ? { type: "DOUBLE_CLICK", x: c.x, y: c.y } : click(c.x, c.y), rationale };
  }

  /** Bring an app's window to the top (opening it if needed). */
  focus(app: AppId, why: string): Step | undefined {
    const w = this.win(this.cur, app);
    if (w && topWindow(this.cur) === w) return undefined;
    if (w) return this.clickNode(`taskbar.task.${app}`, `bring ${app} to the front to ${why}`);
    return this.clickNode(`taskbar.launch.${app}`, `open ${app} to ${why}`);
  }

  /** Get the file manager on top and showing `dir` ("trash" for the Trash). */
  filesAt(dir: string, why: string): Step | undefined {
    const f = this.focus("files", why);
    if (f) return f;
    const w = this.win(this.cur, "files")!;
    const v = w.view.app === "files" ? w.view.files : undefined;
    if (!v || v.cwd === dir) return undefined;
    const place = SIDEBAR_PLACES.find((p) => (p === "Home" ? HOME : p === "Trash" ? "trash" : join(HOME, p)) === dir);
    if (place) return this.clickNode(`files.place.${place}`, `go to ${place} to ${why}`);
    if (v.cwd !== "trash" && isWithin(dir, v.cwd)) {
      const next = dir.slice(v.cwd.length + 1).split("/")[0];
      return this.itemAction(next, `open folder ${next} to ${why}`, true) ?? "unreachable";
    }
    if (v.cwd !== "trash" && v.cwd !== "/" && isWithin(v.cwd, HOME) && v.cwd !== HOME)
      return this.clickNode("files.toolbar.up", `go up to ${why}`);
    return this.clickNode("files.place.Home", `go Home to ${why}`);
  }

  /** Click (or double-click) a file list item, scrolling to it first when needed. */
  itemAction(name: string, rationale: string, dbl = false): Step | undefined {
    const n = findNode(this.ui, `files.item.${name}`);
    if (n) return this.clickNode(n.id, rationale, dbl);
    const list = findNode(this.ui, "files.list");
    if (!list) return undefined;
    const w = this.win(this.cur, "files")!;
    const v = w.view.app === "files" ? w.view.files : undefined;
    const names = v ? (v.cwd === "trash" ? this.cur.trash.map((t) => t.key) : listDir(this.cur.fs, v.cwd)) : [];
    const idx = names.indexOf(name);
    if (idx < 0 || !v) return undefined;
    const c = center(list.rect);
    return {
      action: { type: "SCROLL", dx: 0, dy: idx < v.scroll ? 3 : -3, x: c.x, y: c.y },
      rationale: `scroll to ${name}`,
    };
  }

  /** Select exactly `name` in the file manager's current folder. */
  selectOnly(name: string, why: string): Step | undefined {
    const w = this.win(this.cur, "files")!;
    const v = w.view.app === "files" ? w.view.files : undefined;
    if (v && v.selected.length === 1 && v.selected[0] === name) return undefined;
    return this.itemAction(name, `select ${name} to ${why}`) ?? "unreachable";
  }
}

export function fileEq(a: DeskState, pa: string, b: DeskState, pb: string): boolean {
  return stableStringify(subtree(a.fs, pa)) === stableStringify(subtree(b.fs, pb));
}

/** Minimal paths of a set (drop those inside another member). */
export function minimal(paths: string[]): string[] {
  return paths.filter((p) => !paths.some((q) => q !== p && isWithin(p, q))).sort();
}

export function editorSteps(pl: Planner, v: EditorView, want: string, why: string): Step | undefined {
  if (v.text === want) return undefined;
  const f = pl.focus("editor", why);
  if (f) return f;
  // Does some number of undos (or redos) reach the wanted text?
  const probe = structuredClone(v);
  for (let i = 0; i < 200 && probe.undo.length; i++) {
    undoOnce(probe);
    if (probe.text === want) return { action: hotkey("ctrl", "z"), rationale: `undo in the editor to ${why}` };
  }
  const probe2 = structuredClone(v);
  for (let i = 0; i < 200 && probe2.redo.length; i++) {
    redoOnce(probe2);
    if (probe2.text === want) return { action: hotkey("ctrl", "y"), rationale: `redo in the editor to ${why}` };
  }
  const sel = selection(v);
  if (v.text.length > 0 && !(sel && sel[0] === 0 && sel[1] === v.text.length))
    return { action: hotkey("ctrl", "a"), rationale: `select all text to retype it (${why})` };
  return { action: { type: "TYPING", text: want }, rationale: `retype the document (${why})` };
}

export function sheetCellsStep(pl: Planner, want: Record<string, string>, why: string): Step | undefined {
  const w = pl.win(pl.cur, "sheet");
  if (!w || w.view.app !== "sheet") return undefined;
  const v = w.view.sheet;
  const refs = [...new Set([...Object.keys(v.cells), ...Object.keys(want)])].sort();
  const diff = refs.find((r) => (v.cells[r] ?? "") !== (want[r] ?? ""));
  if (!diff) return undefined;
  const f = pl.focus("sheet", why);
  if (f) return f;
  // Undo first when it gets there.
  const undoHit = [...v.undo].reverse().findIndex((c) => stableStringify(c) === stableStringify(want));
  if (undoHit >= 0 && !v.edit) return { action: hotkey("ctrl", "z"), rationale: `undo in the spreadsheet to ${why}` };
  if (v.sel !== diff) return pl.clickNode(`sheet.cell.${diff}`, `select ${diff} to ${why}`);
  if ((want[diff] ?? "") === "") return { action: press("delete"), rationale: `clear ${diff} (${why})` };
  return { action: { type: "TYPING", text: `${want[diff]}\n` }, rationale: `retype ${diff} (${why})` };
}
