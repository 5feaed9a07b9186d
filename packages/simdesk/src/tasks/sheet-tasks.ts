/** Spreadsheet tasks: formulas, data entry, Save As CSV, cell fixes. */
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import { defineSimDeskTask, type TaskDef } from "./builder.ts";
import { csv, home, UNCHANGED } from "./common.ts";

const SCORES = "Ana,7\nBen,9\nCai,8\nDee,6\n";
const PRICES = "apples,2\npears,4\nplums,5\n";

const defs: TaskDef[] = [
  {
    id: "sheet-sum-budget",
    apps: ["sheet", "files"],
    setup: home(),
    instruction: "Open budget.csv in Documents, put the total of B1:B4 in B5 using a SUM formula, and save.",
    checks: [csv("~/Documents/budget.csv", { A1: "Rent", B1: "900", B4: "75", B5: "1425" }), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("budget.csv")
        .mistake("wrong-item", "selected B4 and overwrote it (recover: undo)", (m) => m.cell("B4"))
        .cell("B5")
        .type("=SUM(B1:B4)\n")
        .hotkey("ctrl", "s"),
  },
  {
    id: "sheet-average-scores",
    apps: ["sheet", "files"],
    setup: home({ "~/Documents/scores.csv": SCORES }),
    instruction:
      "Open scores.csv in Documents, put the average of B1:B4 in B5 (AVERAGE formula), label A5 'Mean', and save.",
    checks: [csv("~/Documents/scores.csv", { A5: "Mean", B5: "7.5", B1: "7" }), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("scores.csv")
        .cell("A5")
        .mistake("wrong-item", "selected A4 and overwrote Dee", (m) => m.cell("A4"))
        .type("Mean\t=AVERAGE(B1:B4)\n")
        .hotkey("ctrl", "s"),
  },
  {
    id: "sheet-new-supplies",
    apps: ["sheet"],
    setup: home(),
    instruction:
      "In a new spreadsheet enter Item/Qty headers and rows Pens 10 and Paper 5, and save it as supplies.csv in Documents.",
    checks: [
      csv("~/Documents/supplies.csv", { A1: "Item", B1: "Qty", A2: "Pens", B2: "10", A3: "Paper", B3: "5" }),
      UNCHANGED,
    ],
    build: (b) =>
      b
        .launch("sheet")
        .type("Item\tQty\nPens\t10\nPaper\t5\n")
        .hotkey("ctrl", "s")
        .mistake("wrong-item", "chose the Downloads folder", (m) => m.click("dialog.place.Downloads"))
        .type("supplies.csv")
        .press("enter"),
  },
  {
    id: "sheet-new-with-total",
    apps: ["sheet"],
    setup: home(),
    instruction:
      "Make a new spreadsheet with 4, 6 and 10 in A1:A3 and their SUM in A4; save as totals.csv in Documents.",
    checks: [csv("~/Documents/totals.csv", { A1: "4", A2: "6", A3: "10", A4: "20" }), UNCHANGED],
    build: (b) =>
      b
        .launch("sheet")
        .cell("A1")
        .type("4\n6\n10\n")
        .mistake("wrong-item", "summed only A1:A2", (m) => m.type("=SUM(A1:A2)\n"))
        .type("=SUM(A1:A3)\n")
        .menu("sheet", "File", "Save As")
        .type("totals.csv")
        .click("dialog.btn.save"),
  },
  {
    id: "sheet-fix-price",
    apps: ["sheet", "files"],
    setup: home({ "~/Documents/prices.csv": PRICES }),
    instruction: "In prices.csv (Documents), change the price of pears (B2) to 3 and save.",
    checks: [csv("~/Documents/prices.csv", { B1: "2", B2: "3", B3: "5" }), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("prices.csv")
        .mistake("wrong-item", "selected the apples price B1", (m) => m.cell("B1"))
        .cell("B2")
        .type("3\n")
        .hotkey("ctrl", "s"),
  },
  {
    id: "sheet-clear-row",
    apps: ["sheet", "files"],
    setup: home(),
    instruction: "In budget.csv (Documents), clear the 'Other' row (A4 and B4) and save.",
    checks: [csv("~/Documents/budget.csv", { A3: "Travel", B3: "150", A4: "", B4: "" }), UNCHANGED],
    build: (b) =>
      b
        .launch("files")
        .place("Documents")
        .open("budget.csv")
        .cell("A4")
        .press("delete")
        .mistake("wrong-item", "selected B3 and cleared Travel's amount", (m) => m.cell("B3"))
        .cell("B4")
        .press("delete")
        .hotkey("ctrl", "s"),
  },
];

/** The tasks, built (each plan recorded by running the engine) on first use, not at import. */
export const sheetTasks = (): SimDeskTask[] => defs.map(defineSimDeskTask);
