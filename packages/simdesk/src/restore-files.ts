/**
 * The restoration rules for files and the Trash: repair missing files (restore from the Trash, rename
 * back, move back, re-save from the open editor), remove extra ones, restore changed contents, and
 * make the Trash hold what the target's does (a file deleted for good is "unreachable").
 * Used by nextRestorativeStep (restore.ts).
 */
import { stableStringify } from "@retrace-cua/core/hash";
import { topWindow } from "./ui.ts";
import { basename, CONFIG_PATH, dirname, subtree, tildify } from "./vfs.ts";
import { toCsv } from "./apps/sheet.ts";
import {
  editorSteps,
  fileEq,
  hotkey,
  minimal,
  press,
  sheetCellsStep,
  type Planner,
  type Step,
} from "./restore-planner.ts";

export function fsStep(pl: Planner): Step | undefined {
  const { cur, tgt } = pl;
  const relevant = (p: string) => p !== CONFIG_PATH;
  const curPaths = Object.keys(cur.fs).filter(relevant);
  const tgtPaths = Object.keys(tgt.fs).filter(relevant);
  const missing = minimal(tgtPaths.filter((p) => !cur.fs[p]));
  const extra = minimal(curPaths.filter((p) => !tgt.fs[p]));
  for (const P of missing) {
    // 1. It is in the Trash: restore it.
    const item = cur.trash.find((t) => t.from === P && stableStringify(t.tree) === stableStringify(subtree(tgt.fs, P)));
    if (item && !tgt.trash.some((t) => t.key === item.key && t.from === P)) {
      const go = pl.filesAt("trash", `restore ${basename(P)}`);
      if (go) return go;
      const sel = pl.selectOnly(item.key, `restore ${basename(P)}`);
      if (sel) return sel;
      return pl.clickNode("files.toolbar.restore", `restore ${tildify(P)} from the Trash`);
    }
    // 2. It was renamed or moved: find the same content at an extra path.
    const Q = extra.find((q) => fileEq(cur, q, tgt, P) && cur.fs[q].type === tgt.fs[P].type);
    if (Q) {
      const fw = pl.win(cur, "files");
      const fv = fw?.view.app === "files" ? fw.view.files : undefined;
      if (dirname(Q) === dirname(P)) {
        if (fv?.rename && fv.cwd === dirname(Q) && fv.rename.name === basename(Q) && topWindow(cur) === fw) {
          if (fv.rename.text === basename(P))
            return { action: press("enter"), rationale: `confirm the name ${basename(P)}` };
          if (!fv.rename.all) return { action: hotkey("ctrl", "a"), rationale: "select the name to retype it" };
          return {
            action: { type: "TYPING", text: basename(P) },
            rationale: `rename ${basename(Q)} back to ${basename(P)}`,
          };
        }
        const go = pl.filesAt(dirname(Q), `rename ${basename(Q)} back`);
        if (go) return go;
        const sel = pl.selectOnly(basename(Q), `rename it back to ${basename(P)}`);
        if (sel) return sel;
        return { action: press("f2"), rationale: `start renaming ${basename(Q)}` };
      }
      if (basename(Q) === basename(P)) {
        const clip = cur.clipboard;
        if (clip.kind === "files" && clip.op === "cut" && clip.paths.length === 1 && clip.paths[0] === Q) {
          const go = pl.filesAt(dirname(P), `move ${basename(Q)} back`);
          if (go) return go;
          return { action: hotkey("ctrl", "v"), rationale: `paste ${basename(Q)} back into ${tildify(dirname(P))}` };
        }
        const go = pl.filesAt(dirname(Q), `move ${basename(Q)} back`);
        if (go) return go;
        const sel = pl.selectOnly(basename(Q), `move it back to ${tildify(dirname(P))}`);
        if (sel) return sel;
        return { action: hotkey("ctrl", "x"), rationale: `cut ${basename(Q)} to move it back` };
      }
    }
    // 3. A saved document: save it again from the open editor.
    const ew = pl.win(cur, "editor");
    if (ew?.view.app === "editor" && ew.view.editor.path === P && tgt.fs[P].type === "file") {
      const want = (tgt.fs[P] as { text: string }).text;
      const e = editorSteps(pl, ew.view.editor, want, `recreate ${basename(P)}`);
      if (e) return e;
      return { action: hotkey("ctrl", "s"), rationale: `save ${basename(P)} again` };
    }
    return "unreachable";
  }
  for (const Q of extra) {
    const go = pl.filesAt(dirname(Q), `remove ${basename(Q)}`);
    if (go) return go;
    const sel = pl.selectOnly(basename(Q), `move ${basename(Q)} to the Trash`);
    if (sel) return sel;
    return { action: press("delete"), rationale: `move ${basename(Q)} to the Trash` };
  }
  // Changed contents.
  for (const P of tgtPaths.sort()) {
    const a = cur.fs[P];
    const b = tgt.fs[P];
    if (!a || a.type !== "file" || b.type !== "file" || a.text === b.text) continue;
    const ew = pl.win(cur, "editor");
    if (ew?.view.app === "editor" && ew.view.editor.path === P) {
      const e = editorSteps(pl, ew.view.editor, b.text, `restore the contents of ${basename(P)}`);
      if (e) return e;
      return (
        pl.focus("editor", "save") ?? {
          action: hotkey("ctrl", "s"),
          rationale: `save ${basename(P)} with its earlier contents`,
        }
      );
    }
    const sw = pl.win(cur, "sheet");
    if (sw?.view.app === "sheet" && sw.view.sheet.path === P) {
      const tsw = pl.win(tgt, "sheet");
      const want =
        tsw?.view.app === "sheet" && tsw.view.sheet.path === P && toCsv(tsw.view.sheet.saved) === b.text
          ? tsw.view.sheet.saved
          : null;
      if (want) {
        const st = sheetCellsStep(pl, want, `restore ${basename(P)}`);
        if (st) return st;
      }
      if (toCsv(sw.view.sheet.cells) === b.text)
        return (
          pl.focus("sheet", "save") ?? {
            action: hotkey("ctrl", "s"),
            rationale: `save ${basename(P)} with its earlier contents`,
          }
        );
      return "unreachable";
    }
    // Open it first.
    const go = pl.filesAt(dirname(P), `open ${basename(P)}`);
    if (go) return go;
    return pl.itemAction(basename(P), `open ${basename(P)} to fix its contents`, true) ?? "unreachable";
  }
  return undefined;
}

export function trashStep(pl: Planner): Step | undefined {
  const { cur, tgt } = pl;
  const key = (t: { from: string; tree: unknown }) => `${t.from}\u0000${stableStringify(t.tree)}`;
  const tgtKeys = tgt.trash.map(key);
  const curKeys = cur.trash.map(key);
  if (tgtKeys.some((k) => !curKeys.includes(k))) return "unreachable";
  const extraItem = cur.trash.find((t) => !tgtKeys.includes(key(t)));
  if (!extraItem) return undefined;
  const w = pl.win(cur, "files");
  if (w?.dialog?.kind === "confirm-delete")
    return { action: press("enter"), rationale: `delete ${extraItem.key} for good (it was not in the Trash)` };
  const go = pl.filesAt("trash", `delete ${extraItem.key} for good`);
  if (go) return go;
  const sel = pl.selectOnly(extraItem.key, "delete it from the Trash");
  if (sel) return sel;
  return { action: press("delete"), rationale: `delete ${extraItem.key} from the Trash` };
}
