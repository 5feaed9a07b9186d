/** Tasks that span apps: files + editor + spreadsheet + settings. */
import { defineSimDeskTask, type TaskDef } from "./builder.ts";
import { BUDGET, home, NOTES, REPORT } from "./common.ts";

const QUOTE = "Simple is better than complex.";

const defs: TaskDef[] = [
  {
    id: "cross-budget-total-report",
    instruction: "Put the SUM of B1:B4 into B5 of budget.csv and save it, then add the line 'Total: 1425' to the end of report.txt and save.",
    apps: ["sheet", "editor", "files"],
    setup: home(),
    checks: [{ kind: "csv", path: "~/Documents/budget.csv", cells: { B5: "1425" } }, { kind: "file", path: "~/Documents/report.txt", text: REPORT + "Total: 1425\n" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("budget.csv");
      b.mistake("wrong-item", "selected A5 and typed the formula there", (m) => m.cell("A5"));
      b.cell("B5").type("=SUM(B1:B4)\n");
      b.mistake("skip", "forgot to save the spreadsheet", (m) => m.task("files"));
      b.hotkey("ctrl", "s").task("files").open("report.txt").hotkey("ctrl", "end").type("Total: 1425\n").hotkey("ctrl", "s");
    },
  },
  {
    id: "cross-quote-to-sheet",
    instruction: "Copy the text of quote.txt (Documents) into cell A1 of a new spreadsheet and save it as quote.csv in Documents.",
    apps: ["editor", "sheet", "files"],
    setup: home({ "~/Documents/quote.txt": QUOTE }),
    checks: [{ kind: "csv", path: "~/Documents/quote.csv", cells: { A1: QUOTE } }, { kind: "file", path: "~/Documents/quote.txt", text: QUOTE }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("quote.txt").hotkey("ctrl", "a");
      b.mistake("wrong-item", "double-clicked a word instead, so only 'Simple' gets copied", (m) => m.clickText(m.find("Simple") + 1, 2));
      b.hotkey("ctrl", "c").launch("sheet").cell("A1").hotkey("ctrl", "v").hotkey("ctrl", "s").type("quote.csv\n");
    },
  },
  {
    id: "cross-dnd-then-archive",
    instruction: "Turn on Do not disturb in Settings, then move old-invoice.pdf from Downloads into Documents.",
    apps: ["settings", "files"],
    setup: home(),
    checks: [{ kind: "setting", key: "notifications.dnd", value: true }, { kind: "file", path: "~/Documents/old-invoice.pdf" }, { kind: "absent", path: "~/Downloads/old-invoice.pdf" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("settings").click("settings.page.notifications").click("settings.switch.notifications.dnd").click("settings.close");
      b.launch("files").place("Downloads");
      b.mistake("wrong-item", "selected invoice-2024.pdf", (m) => m.item("invoice-2024.pdf"));
      b.item("old-invoice.pdf").hotkey("ctrl", "x").place("Documents").hotkey("ctrl", "v");
    },
  },
  {
    id: "cross-restore-and-edit",
    instruction: "Restore plan.txt from the Trash, open it, add the line 'approved' at the end and save.",
    apps: ["files", "editor"],
    tags: ["irreversible"],
    setup: home({}, { trash: [{ from: "~/Documents/plan.txt", text: "step one\n" }, { from: "~/Documents/old-plan.txt", text: "older\n" }] }),
    checks: [{ kind: "file", path: "~/Documents/plan.txt", text: "step one\napproved\n" }, { kind: "in-trash", from: "~/Documents/old-plan.txt" }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Trash").item("plan.txt");
      b.mistake("wrong-item", "emptied the Trash: plan.txt is gone for good", (m) => m.click("files.toolbar.empty").click("dialog.btn.empty"));
      b.click("files.toolbar.restore").place("Documents").open("plan.txt").hotkey("ctrl", "end").type("approved\n").hotkey("ctrl", "s");
    },
  },
  {
    id: "cross-backup-notes-settings",
    instruction: "Save a copy of notes.txt as notes-backup.txt on the Desktop folder, then switch on Empty Trash automatically in Settings.",
    apps: ["editor", "files", "settings"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Desktop/notes-backup.txt", text: NOTES }, { kind: "setting", key: "privacy.autoEmptyTrash", value: true }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("notes.txt").hotkey("ctrl", "shift", "s").click("dialog.place.Desktop").type("notes-backup.txt\n");
      b.launch("settings").click("settings.page.privacy");
      b.mistake("wrong-item", "switched off Remember recent files instead", (m) => m.click("settings.switch.privacy.recent"));
      b.click("settings.switch.privacy.autoEmptyTrash").click("settings.close");
    },
  },
  {
    id: "cross-tidy-downloads",
    instruction:
      "Tidy up: create a folder Invoices in Documents and move both invoice PDFs from Downloads into it, put setup.log in the Trash, add the line 'Invoices filed' to the end of notes.txt and save it, and turn on Empty Trash automatically.",
    apps: ["files", "editor", "settings"],
    setup: home(),
    checks: [
      { kind: "file", path: "~/Documents/Invoices/invoice-2024.pdf" },
      { kind: "file", path: "~/Documents/Invoices/old-invoice.pdf" },
      { kind: "absent", path: "~/Downloads/invoice-2024.pdf" },
      { kind: "absent", path: "~/Downloads/old-invoice.pdf" },
      { kind: "in-trash", from: "~/Downloads/setup.log" },
      { kind: "file", path: "~/Documents/notes.txt", text: NOTES + "Invoices filed\n" },
      { kind: "setting", key: "privacy.autoEmptyTrash", value: true },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("files").place("Documents").click("files.toolbar.newFolder").type("Invoices").click("dialog.btn.create");
      b.place("Downloads").item("invoice-2024.pdf").hotkey("ctrl", "x").place("Documents").open("Invoices").hotkey("ctrl", "v");
      b.place("Downloads");
      b.mistake("wrong-item", "selected setup.log and cut it instead of the second invoice", (m) => m.item("setup.log"));
      b.item("old-invoice.pdf").hotkey("ctrl", "x").place("Documents").open("Invoices").hotkey("ctrl", "v");
      b.place("Downloads").item("setup.log").press("delete");
      b.place("Documents").open("notes.txt").hotkey("ctrl", "end").type("Invoices filed\n").hotkey("ctrl", "s");
      b.launch("settings").click("settings.page.privacy").click("settings.switch.privacy.autoEmptyTrash").click("settings.close");
    },
  },
  {
    id: "cross-budget-csv-to-notes",
    instruction: "Copy the Travel amount (B3) from budget.csv and paste it at the end of notes.txt after 'Travel: ', then save both files unchanged otherwise.",
    apps: ["sheet", "editor", "files"],
    setup: home(),
    checks: [{ kind: "file", path: "~/Documents/notes.txt", text: NOTES + "Travel: 150" }, { kind: "file", path: "~/Documents/budget.csv", text: BUDGET }, { kind: "unchanged" }],
    build: (b) => {
      b.launch("files").place("Documents").open("budget.csv");
      b.mistake("wrong-item", "selected Food's amount B2", (m) => m.cell("B2"));
      b.cell("B3").hotkey("ctrl", "c").task("files").open("notes.txt").hotkey("ctrl", "end").type("Travel: ").hotkey("ctrl", "v").hotkey("ctrl", "s");
    },
  },
  {
    id: "cross-quarterly-pack",
    instruction:
      "Create a folder Q3 in Documents. In budget.csv put the SUM of B1:B4 in B5 and save; add the line 'Budget total: 1425' to the end of report.txt and save; then drag report.txt and budget.csv into Q3.",
    apps: ["files", "sheet", "editor"],
    setup: home(),
    checks: [
      { kind: "file", path: "~/Documents/Q3/report.txt", text: REPORT + "Budget total: 1425\n" },
      { kind: "csv", path: "~/Documents/Q3/budget.csv", cells: { A1: "Rent", B5: "1425" } },
      { kind: "absent", path: "~/Documents/report.txt" },
      { kind: "absent", path: "~/Documents/budget.csv" },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("files").place("Documents").click("files.toolbar.newFolder").type("Q3").click("dialog.btn.create");
      b.open("budget.csv").cell("B5").type("=SUM(B1:B4)\n").hotkey("ctrl", "s");
      b.task("files").open("report.txt").hotkey("ctrl", "end").type("Budget total: 1425\n").hotkey("ctrl", "s");
      b.task("files").moveTo("files.item.report.txt").dragTo("files.item.Q3");
      b.mistake("wrong-item", "grabbed notes.txt instead of budget.csv", (m) => m.moveTo("files.item.notes.txt"));
      b.moveTo("files.item.budget.csv").dragTo("files.item.Q3");
    },
  },
  {
    id: "cross-settings-sweep-note",
    instruction:
      "In Settings make the accent orange, turn off Animations, turn on Do not disturb, turn off notification sounds, turn off Automatic suspend, blank the screen after 10 minutes and stop remembering recent files; close Settings and add the line 'settings changed' to the end of notes.txt, then save it.",
    apps: ["settings", "files", "editor"],
    setup: home(),
    checks: [
      { kind: "setting", key: "appearance.accent", value: "orange" },
      { kind: "setting", key: "appearance.animations", value: false },
      { kind: "setting", key: "notifications.dnd", value: true },
      { kind: "setting", key: "notifications.sound", value: false },
      { kind: "setting", key: "power.autoSuspend", value: false },
      { kind: "setting", key: "power.blank", value: "10" },
      { kind: "setting", key: "privacy.recent", value: false },
      { kind: "file", path: "~/Documents/notes.txt", text: NOTES + "settings changed\n" },
      { kind: "unchanged" },
    ],
    build: (b) => {
      b.launch("settings").click("settings.option.appearance.accent.orange").click("settings.switch.appearance.animations");
      b.click("settings.page.notifications").click("settings.switch.notifications.dnd").click("settings.switch.notifications.sound");
      b.click("settings.page.power");
      b.mistake("wrong-item", "switched off Dim screen instead of Automatic suspend", (m) => m.click("settings.switch.power.dim"));
      b.click("settings.switch.power.autoSuspend").click("settings.option.power.blank.10");
      b.click("settings.page.privacy").click("settings.switch.privacy.recent").click("settings.close");
      b.launch("files").place("Documents").open("notes.txt").hotkey("ctrl", "end").type("settings changed\n").hotkey("ctrl", "s");
    },
  },
];

export const CROSS_TASKS = defs.map(defineSimDeskTask);
