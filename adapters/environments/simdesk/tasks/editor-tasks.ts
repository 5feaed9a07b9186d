/** Text editor tasks: append, replace, Save As, word edits, unsaved-changes prompt. */
import { defineSimDeskTask, type TaskDef } from "./builder.ts";
import { home, NOTES, REPORT, TODO } from "./common.ts";

const defs: TaskDef[] = [
  {
    id: "editor-append-notes",
    instruction: "Open notes.txt in Documents, add a last line 'Buy milk' and save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/notes.txt", text: NOTES + "Buy milk\n" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents");
      b.mistake("wrong-item", "opened todo.txt instead", (m) => m.open("todo.txt"));
      b.open("notes.txt");
      b.mistake("wrong-item", "pressed Ctrl+A instead of Ctrl+End, so typing replaces everything (recover: undo)", (m) => m.hotkey("ctrl", "a"));
      b.hotkey("ctrl", "end").type("Buy milk\n").hotkey("ctrl", "s");
    },
  },
  {
    id: "editor-append-todo-menu",
    instruction: "Open todo.txt in Documents, add '- call mum' as a new last line, and save it with File > Save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/todo.txt", text: TODO + "- call mum\n" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("todo.txt").hotkey("ctrl", "end").type("- call mum\n");
      b.mistake("wrong-item", "chose File > Close and then Don't Save", (m) => m.menu("editor", "File", "Close").click("dialog.btn.discard"));
      b.menu("editor", "File", "Save");
    },
  },
  {
    id: "editor-append-report",
    instruction: "Add the line 'Costs: 80' to the end of report.txt in Documents and save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/report.txt", text: REPORT + "Costs: 80\n" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("report.txt");
      b.mistake("wrong-item", "started typing at the top of the file", (m) => m.type("Costs: 80\n"));
      b.hotkey("ctrl", "end").type("Costs: 80\n").hotkey("ctrl", "s");
    },
  },
  {
    id: "editor-replace-todo",
    instruction: "Replace the whole contents of todo.txt in Documents with 'all done' and save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/todo.txt", text: "all done" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("todo.txt").hotkey("ctrl", "a");
      b.mistake("wrong-item", "cut the selection (Ctrl+X) instead of typing over it, then typed", (m) => m.hotkey("ctrl", "x"));
      b.type("all done").hotkey("ctrl", "s");
    },
  },
  {
    id: "editor-replace-readme",
    instruction: "Replace the text of readme.txt in the Desktop folder with 'Hello from the desk' and save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Desktop/readme.txt", text: "Hello from the desk" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Desktop").open("readme.txt").hotkey("ctrl", "a").type("Hello from the desk");
      b.mistake("wrong-item", "pressed Ctrl+Z instead of Ctrl+S", (m) => m.hotkey("ctrl", "z"));
      b.hotkey("ctrl", "s");
    },
  },
  {
    id: "editor-new-save-as",
    instruction: "Write 'Shopping: eggs, bread' in a new document and save it as shopping.txt in Documents.",
    apps: ["editor"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/shopping.txt", text: "Shopping: eggs, bread" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("editor").type("Shopping: eggs, bread").hotkey("ctrl", "s");
      b.mistake("wrong-item", "picked the Desktop folder in the Save As dialog", (m) => m.click("dialog.place.Desktop"));
      b.type("shopping.txt");
      b.mistake("wrong-item", "cancelled the Save As dialog", (m) => m.click("dialog.btn.cancel"));
      b.press("enter");
    },
  },
  {
    id: "editor-save-copy-desktop",
    instruction: "Save a copy of report.txt (Documents) as report-v2.txt in the Desktop folder, leaving report.txt unchanged.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Desktop/report-v2.txt", text: REPORT }, { kind: "file", path: "~/Documents/report.txt", text: REPORT }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("report.txt").hotkey("ctrl", "shift", "s");
      b.mistake("wrong-item", "kept the Documents folder", (m) => m.click("dialog.place.Documents"));
      b.click("dialog.place.Desktop").type("report-v2.txt").click("dialog.btn.save");
    },
  },
  {
    id: "editor-word-bank",
    instruction: "In notes.txt (Documents), change the word 'bank' to 'dentist' and save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/notes.txt", text: NOTES.replace("bank", "dentist") }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("notes.txt");
      b.mistake("wrong-item", "double-clicked 'Call' instead of 'bank'", (m) => m.clickText(m.find("Call") + 1, 2));
      b.clickText(b.find("bank") + 1, 2).type("dentist").hotkey("ctrl", "s");
    },
  },
  {
    id: "editor-word-revenue",
    instruction: "In report.txt (Documents), change the revenue figure 120 to 150 and save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/report.txt", text: REPORT.replace("120", "150") }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("report.txt");
      b.mistake("wrong-item", "double-clicked 'Revenue' instead of the number", (m) => m.clickText(m.find("Revenue") + 2, 2));
      b.clickText(b.find("120") + 1, 2).type("150").hotkey("ctrl", "s");
    },
  },
  {
    id: "editor-delete-first-line",
    instruction: "Delete the first line of todo.txt in Documents and save.",
    apps: ["editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/todo.txt", text: "- pay rent\n" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("todo.txt").hotkey("shift", "down");
      b.mistake("wrong-item", "pressed Ctrl+A so Delete wipes the file (recover: undo)", (m) => m.hotkey("ctrl", "a"));
      b.press("delete").hotkey("ctrl", "s");
    },
  },
  {
    id: "editor-close-save-prompt",
    instruction: "Open draft.txt in Documents, add 'DRAFT' as a new first line, then close the editor and save when asked.",
    apps: ["editor", "files"],
    setup: home({ "~/Documents/draft.txt": "body text\n" }),
    checks: [{ kind: "file", path: "~/Documents/draft.txt", text: "DRAFT\nbody text\n" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("draft.txt").type("DRAFT\n").click("editor.close");
      b.mistake("wrong-item", "clicked Don't Save: the edit is lost", (m) => m.click("dialog.btn.discard"));
      b.click("dialog.btn.save");
    },
  },
];

export const EDITOR_TASKS = defs.map(defineSimDeskTask);
