/**
 * Tasks for real Debian apps (mousepad, galculator, gnumeric). Plans are keyboard-first so they
 * hold at any screen size; oracles read the files the apps save, or galculator's display through
 * AT-SPI. Each task lists plausible mistakes, in SimDesk's format, for simulated policies.
 * Galculator animates each button press and drops a repeat of the same key typed during the
 * animation ("100" became "10"), so its inputs avoid repeated digits.
 */
import type { Action } from "@retrace-cua/core/action";
import type { DesktopTask } from "./types.ts";

const hot = (...keys: string[]): Action => ({ type: "HOTKEY", keys });
const type = (text: string): Action => ({ type: "TYPING", text });
const press = (key: string): Action => ({ type: "PRESS", key });
const DONE: Action = { type: "DONE" };
/** GTK's file chooser validates a typed name asynchronously; act on it after a pause. */
const WAIT_DIALOG: Action = { type: "WAIT", seconds: 1 };
/**
 * The file chooser's Save button at the default 1280x800 screen. Measured: Enter in the name
 * field saved in only some runs of the same sequence; clicking Save saved in every run.
 */
const CLICK_SAVE: Action = { type: "CLICK", x: 1138, y: 772, button: "left", numClicks: 1 };

const horizon = (plan: Action[]): DesktopTask["horizon"] =>
  plan.length <= 4 ? "short" : plan.length <= 8 ? "medium" : "long";

function task(t: Omit<DesktopTask, "env" | "horizon" | "tags"> & { tags?: string[] }): DesktopTask {
  return { env: "x11", horizon: horizon(t.plan), tags: t.tags ?? [], ...t };
}

const NOTES = "Shopping list\n- milk\n- eggs\n";

/** The real-desktop task suite (ids are stable; results refer to them). */
export const DESKTOP_TASKS: readonly DesktopTask[] = [
  task({
    id: "mousepad-append-line",
    instruction: "In the open notes.txt, add a line '- bread' at the end of the list and save the file.",
    apps: ["mousepad"],
    setup: { files: { "notes.txt": NOTES }, launch: [{ app: "mousepad", args: ["notes.txt"] }] },
    evaluator: {
      checks: [
        {
          type: "file-text",
          path: "notes.txt",
          equals: "Shopping list\n- milk\n- eggs\n- bread",
          includes: [],
          excludes: [],
          trimEnd: true,
        },
      ],
    },
    plan: [hot("ctrl", "end"), type("- bread\n"), hot("ctrl", "s"), DONE],
    mistakes: [
      { atStep: 0, kind: "wrong-item", actions: [hot("ctrl", "home")], note: "jumps to the top instead of the end" },
      { atStep: 1, kind: "typo", actions: [type("- braed\n")], note: "misspells bread" },
      { atStep: 2, kind: "premature-done", actions: [DONE], note: "stops before saving" },
    ],
  }),
  task({
    id: "mousepad-insert-title",
    instruction: "Insert the line '# Groceries' at the very top of notes.txt and save it.",
    apps: ["mousepad"],
    setup: { files: { "notes.txt": NOTES }, launch: [{ app: "mousepad", args: ["notes.txt"] }] },
    evaluator: {
      checks: [
        {
          type: "file-text",
          path: "notes.txt",
          equals: `# Groceries\n${NOTES}`,
          includes: [],
          excludes: [],
          trimEnd: true,
        },
      ],
    },
    plan: [hot("ctrl", "home"), type("# Groceries\n"), hot("ctrl", "s"), DONE],
    mistakes: [
      { atStep: 0, kind: "wrong-item", actions: [hot("ctrl", "end")], note: "goes to the end instead" },
      { atStep: 1, kind: "typo", actions: [type("# Grocerise\n")], note: "misspells the title" },
    ],
  }),
  task({
    id: "mousepad-delete-first-line",
    instruction: "Delete the first line of todo.txt (the 'DRAFT' marker) and save.",
    apps: ["mousepad"],
    setup: {
      files: { "todo.txt": "DRAFT\nwrite report\ncall Anna\n" },
      launch: [{ app: "mousepad", args: ["todo.txt"] }],
    },
    evaluator: {
      checks: [
        {
          type: "file-text",
          path: "todo.txt",
          equals: "write report\ncall Anna",
          includes: [],
          excludes: [],
          trimEnd: true,
        },
      ],
    },
    plan: [hot("ctrl", "home"), hot("shift", "down"), press("delete"), hot("ctrl", "s"), DONE],
    mistakes: [
      {
        atStep: 1,
        kind: "wrong-item",
        actions: [hot("shift", "end")],
        note: "selects the line without its newline, leaving a blank line",
      },
      { atStep: 2, kind: "latent", actions: [type("x")], note: "replaces the selection with a stray character" },
    ],
  }),
  task({
    id: "mousepad-replace-all-text",
    instruction: "Replace the whole content of draft.txt with the single line 'final version' and save.",
    apps: ["mousepad"],
    setup: {
      files: { "draft.txt": "first draft\nsecond thought\n" },
      launch: [{ app: "mousepad", args: ["draft.txt"] }],
    },
    evaluator: {
      checks: [
        { type: "file-text", path: "draft.txt", equals: "final version", includes: [], excludes: [], trimEnd: true },
      ],
    },
    plan: [hot("ctrl", "a"), type("final version"), hot("ctrl", "s"), DONE],
    mistakes: [
      { atStep: 0, kind: "skip", actions: [hot("ctrl", "end")], note: "does not select the old text first" },
      { atStep: 1, kind: "typo", actions: [type("final verison")], note: "typo in the new text" },
    ],
  }),
  task({
    id: "mousepad-clear-file",
    instruction: "Empty the file scratch.txt completely and save it.",
    apps: ["mousepad"],
    setup: { files: { "scratch.txt": "tmp 1\ntmp 2\ntmp 3\n" }, launch: [{ app: "mousepad", args: ["scratch.txt"] }] },
    evaluator: {
      checks: [{ type: "file-text", path: "scratch.txt", equals: "", includes: [], excludes: [], trimEnd: true }],
    },
    plan: [hot("ctrl", "a"), press("delete"), hot("ctrl", "s"), DONE],
    mistakes: [
      {
        atStep: 1,
        kind: "wrong-item",
        actions: [press("backspace"), hot("ctrl", "z")],
        note: "deletes then undoes it",
      },
    ],
  }),
  task({
    id: "mousepad-new-file-save-as",
    instruction: "Write 'meeting at 10' in the empty editor and save it in your home folder as agenda.txt.",
    apps: ["mousepad"],
    setup: { files: {}, launch: [{ app: "mousepad", args: [] }] },
    evaluator: {
      checks: [
        { type: "file-text", path: "agenda.txt", equals: "meeting at 10", includes: [], excludes: [], trimEnd: true },
      ],
    },
    plan: [type("meeting at 10"), hot("ctrl", "s"), type("agenda.txt"), WAIT_DIALOG, CLICK_SAVE, DONE],
    mistakes: [
      { atStep: 2, kind: "typo", actions: [type("agneda.txt")], note: "saves under a misspelled name" },
      { atStep: 4, kind: "wrong-item", actions: [press("escape")], note: "cancels the Save As dialog" },
    ],
    tags: ["dialog"],
  }),
  task({
    id: "galculator-add",
    instruction: "Use the calculator to compute 12 + 30 and leave the result on its display.",
    apps: ["galculator"],
    setup: { files: {}, launch: [{ app: "galculator", args: [] }] },
    evaluator: { checks: [{ type: "ax-text", app: "galculator", role: "text", equals: "42" }] },
    plan: [type("12+30"), press("enter"), DONE],
    mistakes: [{ atStep: 0, kind: "typo", actions: [type("12+3")], note: "drops a digit" }],
  }),
  task({
    id: "galculator-multiply",
    instruction: "Use the calculator to compute 9 times 8 and leave the result on its display.",
    apps: ["galculator"],
    setup: { files: {}, launch: [{ app: "galculator", args: [] }] },
    evaluator: { checks: [{ type: "ax-text", app: "galculator", role: "text", equals: "72" }] },
    plan: [type("9*8"), press("enter"), DONE],
    mistakes: [{ atStep: 0, kind: "wrong-item", actions: [type("9+8")], note: "adds instead of multiplying" }],
  }),
  task({
    id: "galculator-two-operations",
    instruction: "Use the calculator to compute 96 / 4 - 5 and leave the result on its display.",
    apps: ["galculator"],
    setup: { files: {}, launch: [{ app: "galculator", args: [] }] },
    evaluator: { checks: [{ type: "ax-text", app: "galculator", role: "text", equals: "19" }] },
    plan: [type("96/4"), type("-5"), press("enter"), DONE],
    mistakes: [{ atStep: 1, kind: "typo", actions: [type("-6")], note: "subtracts the wrong number" }],
  }),
  task({
    id: "gnumeric-sum-column",
    instruction:
      "In the spreadsheet, put 5 in A1, 7 in A2 and the formula =SUM(A1:A2) in A3, then save the workbook as book.gnumeric in your home folder.",
    apps: ["gnumeric"],
    setup: { files: {}, launch: [{ app: "gnumeric", args: [] }] },
    evaluator: { checks: [{ type: "sheet-cells", path: "book.gnumeric", cells: { A1: "5", A2: "7", A3: "12" } }] },
    plan: [type("5\n7\n=SUM(A1:A2)\n"), hot("ctrl", "s"), type("book"), WAIT_DIALOG, CLICK_SAVE, DONE],
    mistakes: [
      { atStep: 0, kind: "typo", actions: [type("5\n8\n=SUM(A1:A2)\n")], note: "enters 8 instead of 7" },
      { atStep: 2, kind: "typo", actions: [type("bok")], note: "misspells the file name" },
    ],
    tags: ["dialog"],
  }),
  task({
    id: "gnumeric-edit-csv",
    instruction:
      "prices.csv is open. Change the price of pears (B3) to 4 and save the workbook as prices.gnumeric in your home folder.",
    apps: ["gnumeric"],
    setup: {
      files: { "prices.csv": "item,price\napples,3\npears,2\n" },
      launch: [{ app: "gnumeric", args: ["prices.csv"] }],
    },
    evaluator: { checks: [{ type: "sheet-cells", path: "prices.gnumeric", cells: { A3: "pears", B3: "4", B2: "3" } }] },
    plan: [
      hot("ctrl", "home"),
      press("right"),
      press("down"),
      press("down"),
      type("4\n"),
      hot("ctrl", "s"),
      hot("ctrl", "a"),
      type("prices.gnumeric"),
      WAIT_DIALOG,
      CLICK_SAVE,
      DONE,
    ],
    mistakes: [
      { atStep: 3, kind: "skip", actions: [press("right")], note: "stays on row 2 and edits the apples price" },
      { atStep: 4, kind: "typo", actions: [type("40\n")], note: "types 40" },
    ],
  }),
];

/** A desktop task by id, or undefined. */
export function desktopTask(id: string): DesktopTask | undefined {
  return DESKTOP_TASKS.find((t) => t.id === id);
}
