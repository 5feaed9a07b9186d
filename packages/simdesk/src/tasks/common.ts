/** Shared starting files for SimDesk tasks. */
import type { Check } from "../evaluate.ts";
import type { SimDeskSetup } from "../setup.ts";

export const NOTES = "Meeting at 10\nCall the bank\n";
export const REPORT = "Quarterly report\nRevenue: 120\n";
export const TODO = "- water plants\n- pay rent\n";
export const BUDGET = "Rent,900\nFood,300\nTravel,150\nOther,75\n";

/** The home folder most tasks start from. */
export const BASE_FILES: Record<string, string | null> = {
  "~/Documents/notes.txt": NOTES,
  "~/Documents/report.txt": REPORT,
  "~/Documents/todo.txt": TODO,
  "~/Documents/budget.csv": BUDGET,
  "~/Downloads/invoice-2024.pdf": "%PDF invoice 2024",
  "~/Downloads/old-invoice.pdf": "%PDF old invoice",
  "~/Downloads/setup.log": "installer log\n",
  "~/Pictures/cat.png": "PNG cat",
  "~/Desktop/readme.txt": "Welcome to SimDesk\n",
};

/** A setup with the base files plus extras. */
export function home(extra: Record<string, string | null> = {}, rest: Omit<SimDeskSetup, "files"> = {}): SimDeskSetup {
  return { files: { ...BASE_FILES, ...extra }, ...rest };
}

/** Check: a file exists (with exactly `text`, when given). */
export const file = (path: string, text?: string): Check => ({
  kind: "file",
  path,
  ...(text !== undefined && { text }),
});
/** Check: a folder exists. */
export const dir = (path: string): Check => ({ kind: "dir", path });
/** Check: nothing is at `path`. */
export const absent = (path: string): Check => ({ kind: "absent", path });
/** Check: the Trash holds the item that was at `from`. */
export const inTrash = (from: string): Check => ({ kind: "in-trash", from });
/** Check: a spreadsheet file has these cells. */
export const csv = (path: string, cells: Record<string, string>): Check => ({ kind: "csv", path, cells });
/** Check: a setting has a value. */
export const setting = (key: string, value: string | boolean): Check => ({ kind: "setting", key, value });
/** Checks: several settings, in the order given. */
export const settings = (values: Record<string, string | boolean>): Check[] =>
  Object.entries(values).map(([key, value]) => setting(key, value));
/** Check: the Trash is empty. */
export const TRASH_EMPTY: Check = { kind: "trash-empty" };
/** Check: everything no other check names is as it was at the start (every task ends with it). */
export const UNCHANGED: Check = { kind: "unchanged" };
