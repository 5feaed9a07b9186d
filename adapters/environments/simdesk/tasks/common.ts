/** Shared starting files for SimDesk tasks. */
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
