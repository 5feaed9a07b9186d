/**
 * The oracle of desktop tasks: checks over files in the user's home (text, spreadsheet cells
 * read through gnumeric's `ssconvert`) and over the apps' accessibility tree.
 */
import type { AxNode } from "@retrace-cua/core/observation";
import type { Evaluation } from "@retrace-cua/core/task";
import type { DesktopCheck, DesktopEvaluator } from "../desktop-tasks/types.ts";
import { dumpAxTree, findApp, walkAx } from "./accessibility.ts";
import type { DesktopBackend } from "./backend.ts";

/** Run every check; score 1 only when all pass. `detail` names the first failing check. */
export async function evaluateDesktop(backend: DesktopBackend, evaluator: DesktopEvaluator): Promise<Evaluation> {
  let ax: AxNode | undefined;
  for (const [i, check] of evaluator.checks.entries()) {
    if (check.type === "ax-text") ax ??= await dumpAxTree(backend);
    const failure = await runCheck(backend, check, ax);
    if (failure) return { score: 0, detail: `check ${i} (${check.type}): ${failure}` };
  }
  return { score: 1, detail: `all ${evaluator.checks.length} checks passed` };
}

/** A failure message, or undefined when the check passes. */
async function runCheck(
  backend: DesktopBackend,
  check: DesktopCheck,
  ax: AxNode | undefined,
): Promise<string | undefined> {
  switch (check.type) {
    case "file-text": {
      const bytes = await backend.readHomeFile(check.path);
      if (!bytes) return `~/${check.path} does not exist`;
      let text = bytes.toString("utf8");
      if (check.trimEnd) text = text.trimEnd();
      if (check.equals !== undefined) {
        const want = check.trimEnd ? check.equals.trimEnd() : check.equals;
        if (text !== want)
          return `~/${check.path} is ${JSON.stringify(text.slice(0, 120))}, expected ${JSON.stringify(want.slice(0, 120))}`;
      }
      for (const s of check.includes) if (!text.includes(s)) return `~/${check.path} lacks ${JSON.stringify(s)}`;
      for (const s of check.excludes) if (text.includes(s)) return `~/${check.path} contains ${JSON.stringify(s)}`;
      return undefined;
    }
    case "file-missing":
      return (await backend.readHomeFile(check.path)) ? `~/${check.path} still exists` : undefined;
    case "sheet-cells": {
      if (!(await backend.readHomeFile(check.path))) return `~/${check.path} does not exist`;
      const out = `.retrace-oracle-${Date.now()}.csv`;
      const r = await backend.exec(["ssconvert", "--export-type=Gnumeric_stf:stf_csv", check.path, out], {
        timeoutMs: 30_000,
      });
      const csv = await backend.readHomeFile(out);
      await backend.exec(["rm", "-f", out]);
      if (r.code !== 0 || !csv)
        return `ssconvert could not read ~/${check.path}: ${r.stderr.trim().split("\n").pop() ?? ""}`;
      const grid = parseCsv(csv.toString("utf8"));
      for (const [cell, want] of Object.entries(check.cells)) {
        const got = cellValue(grid, cell);
        if (got !== want)
          return `cell ${cell} of ~/${check.path} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
      }
      return undefined;
    }
    case "ax-text": {
      if (!ax) return "no accessibility tree";
      const scope = check.app ? findApp(ax, check.app) : ax;
      if (!scope) return `app "${check.app}" is not in the accessibility tree`;
      for (const n of walkAx(scope)) {
        if (check.role && n.role !== check.role) continue;
        if (n.name.trim() === check.equals || (n.value ?? "").trim() === check.equals) return undefined;
      }
      return `no ${check.role ?? "node"} shows ${JSON.stringify(check.equals)}`;
    }
  }
}

/** Minimal RFC 4180 CSV parser (quoted fields, doubled quotes, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") (row.push(field), (field = ""));
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      (row.push(field), rows.push(row), (row = []), (field = ""));
    } else field += c;
  }
  if (field || row.length) (row.push(field), rows.push(row));
  return rows;
}

/** The text of a cell in A1 notation ("" when outside the grid). */
export function cellValue(grid: string[][], cell: string): string {
  const m = /^([A-Z]{1,2})([0-9]+)$/.exec(cell);
  if (!m) return "";
  const col = [...m[1]].reduce((n, ch) => n * 26 + (ch.charCodeAt(0) - 64), 0) - 1;
  return grid[Number(m[2]) - 1]?.[col] ?? "";
}
