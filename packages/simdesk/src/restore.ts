/**
 * nextRestorativeAction: the next UI action that moves the current state toward a target state,
 * derived from their difference and the current layout. Rules run in order: close menus and
 * dialogs, repair files (restore from Trash, rename back, move back, re-save content), Trash,
 * settings, documents (undo/redo, retype), windows, views, clipboard. Returns null when the states
 * are semantically equal and "unreachable" when no UI path restores the difference (e.g. a file
 * that was deleted for good when the Trash was emptied). The dialog and menu rules live in
 * restore-dialogs.ts, the file and Trash rules in restore-files.ts, shared helpers in restore-planner.ts.
 */
import { stableStringify } from "@retrace-cua/core/hash";
import type { RestorativeStep } from "@retrace-cua/core/ground-truth";
import type { DeskState } from "./types.ts";
import { center, findNode } from "./ui-types.ts";
import { topWindow } from "./ui.ts";
import { semanticHash } from "./hashing.ts";
import { basename, dirname, join } from "./vfs.ts";
import { readSettings, SETTINGS } from "./settings-schema.ts";
import { bodyRect } from "./apps/geometry.ts";
import { pointOfOffset, selection } from "./apps/editor.ts";
import { sheetDirty } from "./apps/sheet.ts";
import { click, editorSteps, hotkey, Planner, press, sheetCellsStep, type Step } from "./restore-planner.ts";
import { fsStep, trashStep } from "./restore-files.ts";
import { dialogStep, modalStep } from "./restore-dialogs.ts";

function settingsStep(pl: Planner): Step | undefined {
  const a = readSettings(pl.cur.fs);
  const b = readSettings(pl.tgt.fs);
  const def = SETTINGS.find((d) => a[d.key] !== b[d.key]);
  if (!def) return undefined;
  const f = pl.focus("settings", `revert ${def.label}`);
  if (f) return f;
  const w = pl.win(pl.cur, "settings")!;
  if (w.view.app === "settings" && w.view.settings.page !== def.page)
    return pl.clickNode(`settings.page.${def.page}`, `go to the ${def.page} page to revert ${def.label}`);
  return def.options
    ? pl.clickNode(`settings.option.${def.key}.${String(b[def.key])}`, `set ${def.label} back to ${String(b[def.key])}`)
    : pl.clickNode(`settings.switch.${def.key}`, `switch ${def.label} back ${b[def.key] ? "on" : "off"}`);
}

function documentStep(pl: Planner): Step | undefined {
  const { cur, tgt } = pl;
  const te = pl.win(tgt, "editor");
  const ce = pl.win(cur, "editor");
  if (te?.view.app === "editor") {
    const tv = te.view.editor;
    if (!ce || ce.view.app !== "editor" || ce.view.editor.path !== tv.path) {
      if (tv.path) {
        const go = pl.filesAt(dirname(tv.path), `reopen ${basename(tv.path)}`);
        if (go) return go;
        return pl.itemAction(basename(tv.path), `reopen ${basename(tv.path)}`, true) ?? "unreachable";
      }
      if (!ce) return pl.clickNode("taskbar.launch.editor", "open the editor");
      return "unreachable";
    }
    const e = editorSteps(pl, ce.view.editor, tv.text, "restore the unsaved text");
    if (e) return e;
  }
  const ts = pl.win(tgt, "sheet");
  const cs = pl.win(cur, "sheet");
  if (ts?.view.app === "sheet") {
    if (!cs || cs.view.app !== "sheet" || cs.view.sheet.path !== ts.view.sheet.path) {
      const p = ts.view.sheet.path;
      if (p) {
        const go = pl.filesAt(dirname(p), `reopen ${basename(p)}`);
        if (go) return go;
        return pl.itemAction(basename(p), `reopen ${basename(p)}`, true) ?? "unreachable";
      }
      if (!cs) return pl.clickNode("taskbar.launch.sheet", "open the spreadsheet");
      return "unreachable";
    }
    const st = sheetCellsStep(pl, ts.view.sheet.cells, "restore the cells");
    if (st) return st;
    if (sheetDirty(cs.view.sheet) !== sheetDirty(ts.view.sheet)) return "unreachable";
  }
  return undefined;
}

function windowStep(pl: Planner, width: number): Step | undefined {
  const { cur, tgt } = pl;
  for (const w of cur.windows)
    if (!pl.win(tgt, w.id)) {
      if (w.minimized) return pl.clickNode(`taskbar.task.${w.id}`, `show ${w.id} to close it`);
      return pl.clickNode(`${w.id}.close`, `close the ${w.id} window`);
    }
  for (const w of tgt.windows) if (!pl.win(cur, w.id)) return pl.clickNode(`taskbar.launch.${w.id}`, `open ${w.id}`);
  for (const tw of tgt.windows) {
    const w = pl.win(cur, tw.id)!;
    if (w.x !== tw.x || w.y !== tw.y) {
      if (w.minimized) return pl.clickNode(`taskbar.task.${w.id}`, `show ${w.id} to move it`);
      const grab = { x: Math.min(w.x + 60, width - 5), y: w.y + 12 };
      const to = { x: grab.x + tw.x - w.x, y: grab.y + tw.y - w.y };
      if (cur.pointer.x === grab.x && cur.pointer.y === grab.y)
        return { action: { type: "DRAG_TO", x: to.x, y: to.y }, rationale: `drag the ${w.id} window back` };
      return { action: { type: "MOVE_TO", x: grab.x, y: grab.y }, rationale: `grab the ${w.id} title bar` };
    }
  }
  return undefined;
}

function viewStep(pl: Planner): Step | undefined {
  const { cur, tgt } = pl;
  for (const tw of tgt.windows) {
    const w = pl.win(cur, tw.id)!;
    const a = w.view;
    const b = tw.view;
    if (a.app === "files" && b.app === "files") {
      if (a.files.cwd !== b.files.cwd) return pl.filesAt(b.files.cwd, "show the same folder");
      if (stableStringify(a.files.selected) !== stableStringify(b.files.selected)) {
        const f = pl.focus("files", "fix the selection");
        if (f) return f;
        if (b.files.selected.length === 0) return { action: press("escape"), rationale: "clear the selection" };
        if (b.files.selected.length === 1) return pl.selectOnly(b.files.selected[0], "match the selection");
        return "unreachable";
      }
      if (a.files.scroll !== b.files.scroll) {
        const list = findNode(pl.ui, "files.list");
        if (!list) return "unreachable";
        const c = center(list.rect);
        return {
          action: { type: "SCROLL", dx: 0, dy: a.files.scroll > b.files.scroll ? 1 : -1, x: c.x, y: c.y },
          rationale: "scroll the file list back",
        };
      }
    }
    if (a.app === "settings" && b.app === "settings" && a.settings.page !== b.settings.page)
      return (
        pl.focus("settings", "show the same page") ??
        pl.clickNode(`settings.page.${b.settings.page}`, `go back to the ${b.settings.page} page`)
      );
    if (a.app === "sheet" && b.app === "sheet" && a.sheet.sel !== b.sheet.sel)
      return (
        pl.focus("sheet", "select the same cell") ??
        pl.clickNode(`sheet.cell.${b.sheet.sel}`, `select ${b.sheet.sel} again`)
      );
    if (a.app === "editor" && b.app === "editor") {
      const ev = a.editor;
      const tv = b.editor;
      if (ev.scroll !== tv.scroll) {
        const f = pl.focus("editor", "scroll back");
        if (f) return f;
        const c = center(findNode(pl.ui, "editor.text")!.rect);
        return {
          action: { type: "SCROLL", dx: 0, dy: ev.scroll > tv.scroll ? 1 : -1, x: c.x, y: c.y },
          rationale: "scroll the document back",
        };
      }
      if (ev.cursor !== tv.cursor || (ev.anchor ?? ev.cursor) !== (tv.anchor ?? tv.cursor)) {
        const f = pl.focus("editor", "place the cursor");
        if (f) return f;
        const rect = bodyRect(w);
        const to = pointOfOffset(ev, rect, tv.cursor);
        if (tv.anchor === null || tv.anchor === tv.cursor)
          return { action: click(to.x, to.y), rationale: "put the cursor back" };
        const from = pointOfOffset(ev, rect, tv.anchor);
        if (cur.pointer.x === from.x && cur.pointer.y === from.y)
          return { action: { type: "DRAG_TO", x: to.x, y: to.y }, rationale: "select the same text again" };
        return {
          action: { type: "MOVE_TO", x: from.x, y: from.y },
          rationale: "move to the start of the earlier selection",
        };
      }
    }
  }
  // Focus and minimised state.
  for (const tw of tgt.windows) {
    const w = pl.win(cur, tw.id)!;
    if (w.minimized !== tw.minimized)
      return pl.clickNode(`taskbar.task.${w.id}`, `${tw.minimized ? "minimise" : "show"} ${w.id}`);
  }
  const tTop = topWindow(tgt);
  if (tTop && topWindow(cur)?.id !== tTop.id)
    return pl.clickNode(`taskbar.task.${tTop.id}`, `bring ${tTop.id} back to the front`);
  const order = (s: DeskState) => s.windows.map((w) => w.id).join(",");
  if (order(cur) !== order(tgt)) {
    const next = tgt.windows.find((w, i) => cur.windows[i]?.id !== w.id);
    if (next) return pl.clickNode(`taskbar.task.${next.id}`, `restore the window order (${next.id})`);
  }
  return undefined;
}

function clipboardStep(pl: Planner): Step | undefined {
  const { cur, tgt } = pl;
  if (stableStringify(cur.clipboard) === stableStringify(tgt.clipboard)) return undefined;
  const want = tgt.clipboard;
  if (want.kind === "empty" && cur.clipboard.kind === "files")
    return (
      pl.focus("files", "cancel the pending cut/copy") ?? {
        action: press("escape"),
        rationale: "cancel the pending cut/copy (Escape)",
      }
    );
  if (want.kind === "text") {
    const ew = pl.win(cur, "editor");
    if (ew?.view.app === "editor" && want.text && ew.view.editor.text.includes(want.text)) {
      const f = pl.focus("editor", "copy the same text again");
      if (f) return f;
      const v = ew.view.editor;
      const i = v.text.indexOf(want.text);
      const sel = selection(v);
      if (sel && sel[0] === i && sel[1] === i + want.text.length)
        return { action: hotkey("ctrl", "c"), rationale: "copy the text the clipboard held" };
      const rect = bodyRect(ew);
      const from = pointOfOffset(v, rect, i);
      const to = pointOfOffset(v, rect, i + want.text.length);
      if (cur.pointer.x === from.x && cur.pointer.y === from.y)
        return { action: { type: "DRAG_TO", x: to.x, y: to.y }, rationale: "select the text the clipboard held" };
      return { action: { type: "MOVE_TO", x: from.x, y: from.y }, rationale: "move to the text the clipboard held" };
    }
    return "unreachable";
  }
  if (want.kind === "files" && want.paths.length === 1 && cur.fs[want.paths[0]]) {
    const p = want.paths[0];
    const go = pl.filesAt(dirname(p), "copy the same file again");
    if (go) return go;
    const sel = pl.selectOnly(basename(p), "copy it again");
    if (sel) return sel;
    return { action: hotkey("ctrl", want.op === "cut" ? "x" : "c"), rationale: `${want.op} ${basename(p)} again` };
  }
  return "unreachable";
}

/** The next restorative step from `cur` toward `tgt`. */
export function nextRestorativeStep(
  cur: DeskState,
  tgt: DeskState,
  width: number,
  height: number,
): RestorativeStep | null | "unreachable" {
  if (semanticHash(cur) === semanticHash(tgt)) return null;
  const pl = new Planner(cur, tgt, width, height);
  if (cur.menu && stableStringify(cur.menu) !== stableStringify(tgt.menu ?? null))
    return { action: press("escape"), rationale: "close the open menu" };
  const rules: Array<() => Step | undefined> = [
    () => dialogStep(pl),
    () => {
      const fw = pl.win(cur, "files");
      const tfw = pl.win(tgt, "files");
      if (fw?.view.app === "files" && fw.view.files.rename && !(tfw?.view.app === "files" && tfw.view.files.rename)) {
        // A rename that is on the way to the target name is handled by the file rule.
        const r = fw.view.files.rename;
        const P = join(fw.view.files.cwd, r.name);
        if (!tgt.fs[P]) return undefined; // being renamed back: the file rule drives it
        return pl.focus("files", "cancel the rename") ?? { action: press("escape"), rationale: "cancel the rename" };
      }
      const sw = pl.win(cur, "sheet");
      const tsw = pl.win(tgt, "sheet");
      if (sw?.view.app === "sheet" && sw.view.sheet.edit && !(tsw?.view.app === "sheet" && tsw.view.sheet.edit))
        return (
          pl.focus("sheet", "cancel the cell edit") ?? { action: press("escape"), rationale: "cancel the cell edit" }
        );
      return undefined;
    },
    () => fsStep(pl),
    () => trashStep(pl),
    () => settingsStep(pl),
    () => documentStep(pl),
    () => windowStep(pl, width),
    () => clipboardStep(pl),
    () => viewStep(pl),
    () => modalStep(pl),
  ];
  for (const rule of rules) {
    const r = rule();
    if (r) return r;
  }
  return "unreachable";
}
