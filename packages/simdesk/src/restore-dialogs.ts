/**
 * The restoration rules for dialogs, inline edits and menus: close or complete a dialog the target
 * does not have (dialogStep, run first), and re-open what the target had open (modalStep, run last).
 * Used by nextRestorativeStep (restore.ts).
 */
import { stableStringify } from "@retrace-cua/core/hash";
import { topWindow } from "./ui.ts";
import { HOME, join } from "./vfs.ts";
import { hotkey, press, type Planner, type Step } from "./restore-planner.ts";

export function dialogStep(pl: Planner): Step | undefined {
  const { cur, tgt } = pl;
  for (const w of cur.windows) {
    if (!w.dialog) continue;
    const tw = pl.win(tgt, w.id);
    if (tw?.dialog && stableStringify(tw.dialog) === stableStringify(w.dialog)) continue;
    if (topWindow(cur) !== w) return pl.clickNode(`taskbar.task.${w.id}`, `bring the ${w.id} dialog to the front`);
    const d = w.dialog;
    const td = tw?.dialog;
    if (
      td &&
      td.kind === d.kind &&
      (d.kind === "save-as" || d.kind === "new-folder") &&
      (td.kind === "save-as" || td.kind === "new-folder")
    ) {
      if (d.kind === "save-as" && td.kind === "save-as" && d.dir !== td.dir) {
        const place = ["Home", "Desktop", "Documents", "Downloads"].find(
          (p) => (p === "Home" ? HOME : join(HOME, p)) === td.dir,
        );
        if (place) return pl.clickNode(`dialog.place.${place}`, `pick the ${place} folder again`);
        return { action: press("escape"), rationale: "cancel the dialog" };
      }
      if (d.name !== td.name) {
        if (d.selected || d.name === "")
          return { action: { type: "TYPING", text: td.name }, rationale: `type the name ${td.name} again` };
        return { action: hotkey("ctrl", "a"), rationale: "select the name to retype it" };
      }
      if (d.selected !== td.selected)
        return td.selected
          ? { action: hotkey("ctrl", "a"), rationale: "select the whole name again" }
          : pl.clickNode("dialog.name", "put the cursor in the name field");
      continue;
    }
    if (
      d.kind === "confirm-delete" &&
      d.keys.every((k) => {
        const it = cur.trash.find((t) => t.key === k);
        return it && !tgt.trash.some((t) => t.from === it.from && stableStringify(t.tree) === stableStringify(it.tree));
      })
    )
      return {
        action: press("enter"),
        rationale: `delete ${d.keys.join(", ")} for good (not in the Trash in the target)`,
      };
    if (w.dialog.kind === "unsaved" && !tw) {
      const doc = w.view.app === "editor" ? w.view.editor : undefined;
      const saveWanted =
        doc?.path &&
        tgt.fs[doc.path]?.type === "file" &&
        (tgt.fs[doc.path] as { text: string }).text === doc.text &&
        cur.fs[doc.path] &&
        (cur.fs[doc.path] as { text?: string }).text !== doc.text;
      return pl.clickNode(
        saveWanted ? "dialog.btn.save" : "dialog.btn.discard",
        saveWanted ? "save before closing, as in the target" : "close without saving, as in the target",
      );
    }
    return { action: press("escape"), rationale: `cancel the ${w.dialog.kind} dialog` };
  }
  return undefined;
}

/** Re-open what the target had open: a menu, a dialog, an inline rename, a cell edit. */
export function modalStep(pl: Planner): Step | undefined {
  const { cur, tgt } = pl;
  for (const tw of tgt.windows) {
    const w = pl.win(cur, tw.id);
    if (!w) continue;
    if (tw.dialog && !w.dialog) {
      const f = pl.focus(tw.id, `reopen the ${tw.dialog.kind} dialog`);
      if (f) return f;
      switch (tw.dialog.kind) {
        case "new-folder":
          return pl.clickNode("files.toolbar.newFolder", "open the New Folder dialog again");
        case "save-as":
          return { action: hotkey("ctrl", "shift", "s"), rationale: "open Save As again" };
        case "unsaved":
          return tw.dialog.then === "close"
            ? pl.clickNode(`${tw.id}.close`, "ask to close again (unsaved prompt)")
            : "unreachable";
        case "confirm-empty-trash":
          return pl.clickNode(
            "files.toolbar.empty",
            "ask to empty the Trash again (then cancel or confirm as the target)",
          );
        case "confirm-delete":
          return { action: press("delete"), rationale: "ask to delete permanently again" };
        case "message":
          return "unreachable";
      }
    }
    if (tw.view.app === "files" && w.view.app === "files" && tw.view.files.rename && !w.view.files.rename) {
      const r = tw.view.files.rename;
      const f = pl.focus("files", "start the rename again");
      if (f) return f;
      const sel = pl.selectOnly(r.name, "rename it");
      if (sel) return sel;
      return { action: press("f2"), rationale: `start renaming ${r.name} again` };
    }
    if (tw.view.app === "files" && w.view.app === "files" && tw.view.files.rename && w.view.files.rename) {
      const a = w.view.files.rename;
      const b = tw.view.files.rename;
      if (a.name !== b.name) return { action: press("escape"), rationale: "cancel the rename of the wrong item" };
      if (a.text !== b.text)
        return a.all
          ? { action: { type: "TYPING", text: b.text }, rationale: "retype the new name" }
          : { action: hotkey("ctrl", "a"), rationale: "select the name to retype it" };
      if (a.all !== b.all)
        return b.all
          ? { action: hotkey("ctrl", "a"), rationale: "select the whole name" }
          : { action: press("end"), rationale: "unselect the name" };
    }
    if (tw.view.app === "sheet" && w.view.app === "sheet" && tw.view.sheet.edit) {
      const want = tw.view.sheet.edit.text;
      const have = w.view.sheet.edit?.text;
      const f = pl.focus("sheet", "edit the cell again");
      if (f) return f;
      if (have === undefined)
        return want === "" ? "unreachable" : { action: press("f2"), rationale: "edit the cell again" };
      if (have === want) continue;
      if (want.startsWith(have))
        return {
          action: { type: "TYPING", text: want.slice(have.length) },
          rationale: "type the rest of the cell text",
        };
      return { action: press("backspace"), rationale: "erase the cell text" };
    }
  }
  if (tgt.menu && !cur.menu) {
    const m = tgt.menu;
    const f = pl.focus(m.win, "reopen the menu");
    if (f) return f;
    if (m.name === "context")
      return { action: { type: "RIGHT_CLICK", x: m.x ?? 0, y: m.y ?? 0 }, rationale: "reopen the context menu" };
    return pl.clickNode(`${m.win}.menu.${m.name}`, `reopen the ${m.name} menu`);
  }
  return undefined;
}
