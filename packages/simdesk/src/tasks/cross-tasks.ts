/** Tasks that span apps: files + editor + spreadsheet + settings. */
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import { defineSimDeskTask, type TaskDef } from "./builder.ts";
import { absent, BUDGET, csv, file, home, inTrash, NOTES, REPORT, setting, settings, UNCHANGED } from "./common.ts";

const QUOTE = "Simple is better than complex.";

const defs: TaskDef[] = [
  {
    id: "cross-budget-total-report",
    apps: ["sheet", "editor", "files"],
    setup: home(),
    instruction:
      "Put the SUM of B1:B4 into B5 of budget.csv and save it, then add the line 'Total: 1425' to the end of report.txt and save.",
    checks: [
      csv("~/Documents/budget.csv", { B5: "1425" }),
      file("~/Documents/report.txt", REPORT + "Total: 1425\n"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("budget.csv")
        .mistake("wrong-item", "selected A5 and typed the formula there", (m) => m.cell("A5"))
        .cell("B5")
        .type("=SUM(B1:B4)\n")
        .mistake("skip", "forgot to save the spreadsheet", (m) => m.task("files"))
        .hotkey("ctrl", "s")
        .task("files")
        .open("report.txt")
        .hotkey("ctrl", "end")
        .type("Total: 1425\n")
        .hotkey("ctrl", "s"),
  },
  {
    id: "cross-quote-to-sheet",
    apps: ["editor", "sheet", "files"],
    setup: home({ "~/Documents/quote.txt": QUOTE }),
    instruction:
      "Copy the text of quote.txt (Documents) into cell A1 of a new spreadsheet and save it as quote.csv in Documents.",
    checks: [csv("~/Documents/quote.csv", { A1: QUOTE }), file("~/Documents/quote.txt", QUOTE), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("quote.txt")
        .hotkey("ctrl", "a")
        .mistake("wrong-item", "double-clicked a word instead, so only 'Simple' gets copied", (m) => m.word("Simple"))
        .hotkey("ctrl", "c")
        .launch("sheet")
        .cell("A1")
        .hotkey("ctrl", "v")
        .hotkey("ctrl", "s")
        .type("quote.csv\n"),
  },
  {
    id: "cross-dnd-then-archive",
    apps: ["settings", "files"],
    setup: home(),
    instruction: "Turn on Do not disturb in Settings, then move old-invoice.pdf from Downloads into Documents.",
    checks: [
      setting("notifications.dnd", true),
      file("~/Documents/old-invoice.pdf"),
      absent("~/Downloads/old-invoice.pdf"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("settings")
        .click("settings.page.notifications")
        .click("settings.switch.notifications.dnd")
        .click("settings.close")
        .launch("files")
        .place("Downloads")
        .mistake("wrong-item", "selected invoice-2024.pdf", (m) => m.item("invoice-2024.pdf"))
        .item("old-invoice.pdf")
        .hotkey("ctrl", "x")
        .place("Documents")
        .hotkey("ctrl", "v"),
  },
  {
    id: "cross-restore-and-edit",
    apps: ["files", "editor"],
    tags: ["irreversible"],
    setup: home(
      {},
      {
        trash: [
          { from: "~/Documents/plan.txt", text: "step one\n" },
          { from: "~/Documents/old-plan.txt", text: "older\n" },
        ],
      },
    ),
    instruction: "Restore plan.txt from the Trash, open it, add the line 'approved' at the end and save.",
    checks: [file("~/Documents/plan.txt", "step one\napproved\n"), inTrash("~/Documents/old-plan.txt"), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Trash")
        .item("plan.txt")
        .mistake("wrong-item", "emptied the Trash: plan.txt is gone for good", (m) =>
          m.click("files.toolbar.empty").click("dialog.btn.empty"),
        )
        .click("files.toolbar.restore")
        .place("Documents")
        .open("plan.txt")
        .hotkey("ctrl", "end")
        .type("approved\n")
        .hotkey("ctrl", "s"),
  },
  {
    id: "cross-backup-notes-settings",
    apps: ["editor", "files", "settings"],
    setup: home(),
    instruction:
      "Save a copy of notes.txt as notes-backup.txt on the Desktop folder, then switch on Empty Trash automatically in Settings.",
    checks: [file("~/Desktop/notes-backup.txt", NOTES), setting("privacy.autoEmptyTrash", true), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("notes.txt")
        .hotkey("ctrl", "shift", "s")
        .click("dialog.place.Desktop")
        .type("notes-backup.txt\n")
        .launch("settings")
        .click("settings.page.privacy")
        .mistake("wrong-item", "switched off Remember recent files instead", (m) =>
          m.click("settings.switch.privacy.recent"),
        )
        .click("settings.switch.privacy.autoEmptyTrash")
        .click("settings.close"),
  },
  {
    id: "cross-tidy-downloads",
    apps: ["files", "editor", "settings"],
    setup: home(),
    instruction:
      "Tidy up: create a folder Invoices in Documents and move both invoice PDFs from Downloads into it, put setup.log in the Trash, add the line 'Invoices filed' to the end of notes.txt and save it, and turn on Empty Trash automatically.",
    checks: [
      file("~/Documents/Invoices/invoice-2024.pdf"),
      file("~/Documents/Invoices/old-invoice.pdf"),
      absent("~/Downloads/invoice-2024.pdf"),
      absent("~/Downloads/old-invoice.pdf"),
      inTrash("~/Downloads/setup.log"),
      file("~/Documents/notes.txt", NOTES + "Invoices filed\n"),
      setting("privacy.autoEmptyTrash", true),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .click("files.toolbar.newFolder")
        .type("Invoices")
        .click("dialog.btn.create")
        .place("Downloads")
        .item("invoice-2024.pdf")
        .hotkey("ctrl", "x")
        .place("Documents")
        .open("Invoices")
        .hotkey("ctrl", "v")
        .place("Downloads")
        .mistake("wrong-item", "selected setup.log and cut it instead of the second invoice", (m) =>
          m.item("setup.log"),
        )
        .item("old-invoice.pdf")
        .hotkey("ctrl", "x")
        .place("Documents")
        .open("Invoices")
        .hotkey("ctrl", "v")
        .place("Downloads")
        .item("setup.log")
        .press("delete")
        .place("Documents")
        .open("notes.txt")
        .hotkey("ctrl", "end")
        .type("Invoices filed\n")
        .hotkey("ctrl", "s")
        .launch("settings")
        .click("settings.page.privacy")
        .click("settings.switch.privacy.autoEmptyTrash")
        .click("settings.close"),
  },
  {
    id: "cross-budget-csv-to-notes",
    apps: ["sheet", "editor", "files"],
    setup: home(),
    instruction:
      "Copy the Travel amount (B3) from budget.csv and paste it at the end of notes.txt after 'Travel: ', then save both files unchanged otherwise.",
    checks: [file("~/Documents/notes.txt", NOTES + "Travel: 150"), file("~/Documents/budget.csv", BUDGET), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("budget.csv")
        .mistake("wrong-item", "selected Food's amount B2", (m) => m.cell("B2"))
        .cell("B3")
        .hotkey("ctrl", "c")
        .task("files")
        .open("notes.txt")
        .hotkey("ctrl", "end")
        .type("Travel: ")
        .hotkey("ctrl", "v")
        .hotkey("ctrl", "s"),
  },
  {
    id: "cross-quarterly-pack",
    apps: ["files", "sheet", "editor"],
    setup: home(),
    instruction:
      "Create a folder Q3 in Documents. In budget.csv put the SUM of B1:B4 in B5 and save; add the line 'Budget total: 1425' to the end of report.txt and save; then drag report.txt and budget.csv into Q3.",
    checks: [
      file("~/Documents/Q3/report.txt", REPORT + "Budget total: 1425\n"),
      csv("~/Documents/Q3/budget.csv", { A1: "Rent", B5: "1425" }),
      absent("~/Documents/report.txt"),
      absent("~/Documents/budget.csv"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .click("files.toolbar.newFolder")
        .type("Q3")
        .click("dialog.btn.create")
        .open("budget.csv")
        .cell("B5")
        .type("=SUM(B1:B4)\n")
        .hotkey("ctrl", "s")
        .task("files")
        .open("report.txt")
        .hotkey("ctrl", "end")
        .type("Budget total: 1425\n")
        .hotkey("ctrl", "s")
        .task("files")
        .moveTo("files.item.report.txt")
        .dragTo("files.item.Q3")
        .mistake("wrong-item", "grabbed notes.txt instead of budget.csv", (m) => m.moveTo("files.item.notes.txt"))
        .moveTo("files.item.budget.csv")
        .dragTo("files.item.Q3"),
  },
  {
    id: "cross-settings-sweep-note",
    apps: ["settings", "files", "editor"],
    setup: home(),
    instruction:
      "In Settings make the accent orange, turn off Animations, turn on Do not disturb, turn off notification sounds, turn off Automatic suspend, blank the screen after 10 minutes and stop remembering recent files; close Settings and add the line 'settings changed' to the end of notes.txt, then save it.",
    checks: [
      ...settings({
        "appearance.accent": "orange",
        "appearance.animations": false,
        "notifications.dnd": true,
        "notifications.sound": false,
        "power.autoSuspend": false,
        "power.blank": "10",
        "privacy.recent": false,
      }),
      file("~/Documents/notes.txt", NOTES + "settings changed\n"),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("settings")
        .click("settings.option.appearance.accent.orange")
        .click("settings.switch.appearance.animations")
        .click("settings.page.notifications")
        .click("settings.switch.notifications.dnd")
        .click("settings.switch.notifications.sound")
        .click("settings.page.power")
        .mistake("wrong-item", "switched off Dim screen instead of Automatic suspend", (m) =>
          m.click("settings.switch.power.dim"),
        )
        .click("settings.switch.power.autoSuspend")
        .click("settings.option.power.blank.10")
        .click("settings.page.privacy")
        .click("settings.switch.privacy.recent")
        .click("settings.close")
        .launch("files")
        .place("Documents")
        .open("notes.txt")
        .hotkey("ctrl", "end")
        .type("settings changed\n")
        .hotkey("ctrl", "s"),
  },
];

/** The tasks, built (each plan recorded by running the engine) on first use, not at import. */
export const crossTasks = (): SimDeskTask[] => defs.map(defineSimDeskTask);
