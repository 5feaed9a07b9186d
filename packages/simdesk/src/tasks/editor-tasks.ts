/** Text editor tasks: append, replace, Save As, word edits, unsaved-changes prompt. */
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import { defineSimDeskTask, type TaskDef } from "./builder.ts";
import { file, home, NOTES, REPORT, TODO, UNCHANGED } from "./common.ts";

const defs: TaskDef[] = [
  {
    id: "editor-append-notes",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "Open notes.txt in Documents, add a last line 'Buy milk' and save.",
    checks: [file("~/Documents/notes.txt", NOTES + "Buy milk\n"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .mistake("wrong-item", "opened todo.txt instead", (m) => m.open("todo.txt"))
        .open("notes.txt")
        .mistake(
          "wrong-item",
          "pressed Ctrl+A instead of Ctrl+End, so typing replaces everything (recover: undo)",
          (m) => m.hotkey("ctrl", "a"),
        )
        .hotkey("ctrl", "end")
        .type("Buy milk\n")
        .hotkey("ctrl", "s"),
  },
  {
    id: "editor-append-todo-menu",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "Open todo.txt in Documents, add '- call mum' as a new last line, and save it with File > Save.",
    checks: [file("~/Documents/todo.txt", TODO + "- call mum\n"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("todo.txt")
        .hotkey("ctrl", "end")
        .type("- call mum\n")
        .mistake("wrong-item", "chose File > Close and then Don't Save", (m) =>
          m.menu("editor", "File", "Close").click("dialog.btn.discard"),
        )
        .menu("editor", "File", "Save"),
  },
  {
    id: "editor-append-report",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "Add the line 'Costs: 80' to the end of report.txt in Documents and save.",
    checks: [file("~/Documents/report.txt", REPORT + "Costs: 80\n"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("report.txt")
        .mistake("wrong-item", "started typing at the top of the file", (m) => m.type("Costs: 80\n"))
        .hotkey("ctrl", "end")
        .type("Costs: 80\n")
        .hotkey("ctrl", "s"),
  },
  {
    id: "editor-replace-todo",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "Replace the whole contents of todo.txt in Documents with 'all done' and save.",
    checks: [file("~/Documents/todo.txt", "all done"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("todo.txt")
        .hotkey("ctrl", "a")
        .mistake("wrong-item", "cut the selection (Ctrl+X) instead of typing over it, then typed", (m) =>
          m.hotkey("ctrl", "x"),
        )
        .type("all done")
        .hotkey("ctrl", "s"),
  },
  {
    id: "editor-replace-readme",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "Replace the text of readme.txt in the Desktop folder with 'Hello from the desk' and save.",
    checks: [file("~/Desktop/readme.txt", "Hello from the desk"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Desktop")
        .open("readme.txt")
        .hotkey("ctrl", "a")
        .type("Hello from the desk")
        .mistake("wrong-item", "pressed Ctrl+Z instead of Ctrl+S", (m) => m.hotkey("ctrl", "z"))
        .hotkey("ctrl", "s"),
  },
  {
    id: "editor-new-save-as",
    apps: ["editor"],
    setup: home(),
    instruction: "Write 'Shopping: eggs, bread' in a new document and save it as shopping.txt in Documents.",
    checks: [file("~/Documents/shopping.txt", "Shopping: eggs, bread"), UNCHANGED],
    build: (b) =>
      b
        .launch("editor")
        .type("Shopping: eggs, bread")
        .hotkey("ctrl", "s")
        .mistake("wrong-item", "picked the Desktop folder in the Save As dialog", (m) =>
          m.click("dialog.place.Desktop"),
        )
        .type("shopping.txt")
        .mistake("wrong-item", "cancelled the Save As dialog", (m) => m.click("dialog.btn.cancel"))
        .press("enter"),
  },
  {
    id: "editor-save-copy-desktop",
    apps: ["editor", "files"],
    setup: home(),
    instruction:
      "Save a copy of report.txt (Documents) as report-v2.txt in the Desktop folder, leaving report.txt unchanged.",
    checks: [file("~/Desktop/report-v2.txt", REPORT), file("~/Documents/report.txt", REPORT), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("report.txt")
        .hotkey("ctrl", "shift", "s")
        .mistake("wrong-item", "kept the Documents folder", (m) => m.click("dialog.place.Documents"))
        .click("dialog.place.Desktop")
        .type("report-v2.txt")
        .click("dialog.btn.save"),
  },
  {
    id: "editor-word-bank",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "In notes.txt (Documents), change the word 'bank' to 'dentist' and save.",
    checks: [file("~/Documents/notes.txt", NOTES.replace("bank", "dentist")), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("notes.txt")
        .mistake("wrong-item", "double-clicked 'Call' instead of 'bank'", (m) => m.word("Call"))
        .word("bank")
        .type("dentist")
        .hotkey("ctrl", "s"),
  },
  {
    id: "editor-word-revenue",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "In report.txt (Documents), change the revenue figure 120 to 150 and save.",
    checks: [file("~/Documents/report.txt", REPORT.replace("120", "150")), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("report.txt")
        .mistake("wrong-item", "double-clicked 'Revenue' instead of the number", (m) => m.word("Revenue", 2))
        .word("120")
        .type("150")
        .hotkey("ctrl", "s"),
  },
  {
    id: "editor-delete-first-line",
    apps: ["editor", "files"],
    setup: home(),
    instruction: "Delete the first line of todo.txt in Documents and save.",
    checks: [file("~/Documents/todo.txt", "- pay rent\n"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("todo.txt")
        .hotkey("shift", "down")
        .mistake("wrong-item", "pressed Ctrl+A so Delete wipes the file (recover: undo)", (m) => m.hotkey("ctrl", "a"))
        .press("delete")
        .hotkey("ctrl", "s"),
  },
  {
    id: "editor-close-save-prompt",
    apps: ["editor", "files"],
    setup: home({ "~/Documents/draft.txt": "body text\n" }),
    instruction:
      "Open draft.txt in Documents, add 'DRAFT' as a new first line, then close the editor and save when asked.",
    checks: [file("~/Documents/draft.txt", "DRAFT\nbody text\n"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("draft.txt")
        .type("DRAFT\n")
        .click("editor.close")
        .mistake("wrong-item", "clicked Don't Save: the edit is lost", (m) => m.click("dialog.btn.discard"))
        .click("dialog.btn.save"),
  },
];

/** The tasks, built (each plan recorded by running the engine) on first use, not at import. */
export const editorTasks = (): SimDeskTask[] => defs.map(defineSimDeskTask);
