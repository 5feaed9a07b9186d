/**
 * Scripted restorations on the real apps (mousepad, galculator, gnumeric) for measuring what
 * screenshot SSIM and state probes each see. A scenario reaches a target state R from a task's
 * reset, records it (screenshot + probe report), applies a wrong action and then a scripted
 * restoration, and compares the result with R both ways: SSIM >= 0.99 (the paper's R_O test)
 * and the probe verifier. Each scenario states its ground truth (restored or not) by construction.
 */
import type { Action } from "@retrace-cua/core/action";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import { DEFAULT_SSIM_THRESHOLD } from "@retrace-cua/core/image/similarity";
import { createProbeVerifier, type ProbeVerification } from "@retrace-cua/evaluation/probes/verifier";
import { observationSsim } from "@retrace-cua/core/replay/state-check";
import { desktopTask } from "@retrace-cua/desktops/desktop-tasks/tasks";

const hot = (...keys: string[]): Action => ({ type: "HOTKEY", keys });
const type = (text: string): Action => ({ type: "TYPING", text });
const press = (key: string): Action => ({ type: "PRESS", key });

/** One scripted restoration. */
export interface ProbeScenario {
  id: string;
  app: "mousepad" | "galculator" | "gnumeric";
  /** Desktop task whose reset starts the scenario. */
  task: string;
  /** Actions from reset to the target state R. */
  toTarget: Action[];
  /** The wrong action(s) after R. */
  wrong: Action[];
  /** The scripted restoration back towards R. */
  restore: Action[];
  /**
   * Ground truth by construction: is the state after the restoration the state at R? As in
   * SimDesk's semantic hash, files, clipboard, document content, caret and selection count;
   * undo history does not.
   */
  restored: boolean;
  /** What differs from R after the restoration (or "nothing"). */
  note: string;
}

/** The scenarios of README's probe table (a handful per app). */
export const X11_PROBE_SCENARIOS: readonly ProbeScenario[] = [
  {
    id: "mousepad-saved-typo-deleted",
    app: "mousepad",
    task: "mousepad-append-line",
    toTarget: [hot("ctrl", "end")],
    wrong: [type("X"), hot("ctrl", "s")],
    restore: [press("BackSpace")],
    restored: false,
    note: "the typo was saved; deleted on screen only, notes.txt on disk still has it",
  },
  {
    id: "mousepad-saved-then-undone-and-saved",
    app: "mousepad",
    task: "mousepad-append-line",
    toTarget: [hot("ctrl", "end")],
    wrong: [type("X"), hot("ctrl", "s")],
    restore: [press("BackSpace"), hot("ctrl", "s")],
    restored: true,
    note: "nothing (the typo deleted and the file saved again)",
  },
  {
    id: "mousepad-unsaved-typo",
    app: "mousepad",
    task: "mousepad-append-line",
    toTarget: [hot("ctrl", "end")],
    wrong: [type("X")],
    restore: [],
    restored: false,
    note: "one stray character left in the document",
  },
  {
    id: "mousepad-copied-then-deselected",
    app: "mousepad",
    task: "mousepad-append-line",
    toTarget: [hot("ctrl", "end")],
    wrong: [hot("ctrl", "a"), hot("ctrl", "c")],
    restore: [hot("ctrl", "end")],
    restored: false,
    note: "the whole text is on the clipboard",
  },
  {
    id: "mousepad-select-all-left",
    app: "mousepad",
    task: "mousepad-append-line",
    toTarget: [hot("ctrl", "end")],
    wrong: [hot("ctrl", "a")],
    restore: [],
    restored: false,
    note: "the selection (select-all left in place)",
  },
  {
    id: "mousepad-caret-moved",
    app: "mousepad",
    task: "mousepad-append-line",
    toTarget: [hot("ctrl", "end")],
    wrong: [hot("ctrl", "home")],
    restore: [],
    restored: false,
    note: "the caret (moved to the top)",
  },
  {
    id: "galculator-cleared",
    app: "galculator",
    task: "galculator-add",
    toTarget: [],
    wrong: [type("7")],
    restore: [press("Escape")],
    restored: true,
    note: "nothing (a digit typed, then cleared)",
  },
  {
    id: "galculator-wrong-result",
    app: "galculator",
    task: "galculator-add",
    toTarget: [type("12+30"), press("enter")],
    wrong: [type("5")],
    restore: [],
    restored: false,
    note: "the display (a digit typed over the result)",
  },
  {
    id: "galculator-copied-then-cleared",
    app: "galculator",
    task: "galculator-add",
    toTarget: [],
    wrong: [type("7"), hot("ctrl", "c")],
    restore: [press("Escape")],
    restored: false,
    note: "the clipboard holds the copied display",
  },
  {
    id: "gnumeric-save-dialog-cancelled",
    app: "gnumeric",
    task: "gnumeric-edit-csv",
    toTarget: [hot("ctrl", "home")],
    wrong: [hot("ctrl", "s")],
    restore: [press("Escape")],
    restored: true,
    note: "nothing (Ctrl+S on a CSV opens the save dialog; Escape closes it)",
  },
  {
    id: "gnumeric-entry-undone",
    app: "gnumeric",
    task: "gnumeric-edit-csv",
    toTarget: [hot("ctrl", "home")],
    wrong: [type("9\n")],
    restore: [hot("ctrl", "z"), hot("ctrl", "home")],
    restored: true,
    note: "nothing (a value entered, then undone)",
  },
  {
    id: "gnumeric-cell-cursor-moved",
    app: "gnumeric",
    task: "gnumeric-edit-csv",
    toTarget: [hot("ctrl", "home")],
    wrong: [press("down"), press("right")],
    restore: [],
    restored: false,
    note: "the cell cursor (B2 instead of A1)",
  },
  {
    id: "gnumeric-cell-copied-then-escaped",
    app: "gnumeric",
    task: "gnumeric-edit-csv",
    toTarget: [hot("ctrl", "home")],
    wrong: [hot("ctrl", "c")],
    restore: [press("Escape")],
    restored: false,
    note: "the clipboard holds cell A1",
  },
];

/** What one scenario measured. */
export interface ProbeScenarioResult {
  id: string;
  app: string;
  /** Ground truth by construction. */
  restored: boolean;
  note: string;
  ssim: number;
  /** SSIM >= threshold: the paper's visual test says "restored". */
  ssimRestored: boolean;
  probe: ProbeVerification;
}

/** Run one scenario on a probing desktop (created with `withProbes` or the registry's `probes: true`). */
export async function runProbeScenario(
  env: Environment,
  blobs: BlobStore,
  s: ProbeScenario,
  threshold = DEFAULT_SSIM_THRESHOLD,
): Promise<ProbeScenarioResult> {
  const task = desktopTask(s.task);
  if (!task) throw new ConfigError(`probe scenario ${s.id}: unknown desktop task "${s.task}"`, { field: "task" });
  await env.reset(task);
  for (const a of s.toTarget) await env.step(a);
  const target = await env.observe();
  for (const a of [...s.wrong, ...s.restore]) await env.step(a);
  const current = await env.observe();
  const ssim = await observationSsim(current, target, blobs);
  const probe = await createProbeVerifier().verify({ target, current, blobs, env });
  return { id: s.id, app: s.app, restored: s.restored, note: s.note, ssim, ssimRestored: ssim >= threshold, probe };
}
