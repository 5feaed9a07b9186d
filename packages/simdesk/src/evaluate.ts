/** Task evaluators over SimDesk's hidden state (files, Trash, config, clipboard). Pure data specs. */
import type { Evaluation } from "@retrace-cua/core/task";
import type { DeskState, Fs } from "./types.ts";
import { CONFIG_PATH, HOME, isWithin, resolvePath } from "./vfs.ts";
import { readSettings } from "./settings-schema.ts";
import { parseCsv } from "./apps/formula.ts";
import { stableStringify } from "@retrace-cua/core/hash";

/** One condition on the final state. Paths may start with "~". */
export type Check =
  | { kind: "file"; path: string; text?: string; contains?: string[]; notContains?: string[] }
  | { kind: "dir"; path: string }
  | { kind: "absent"; path: string }
  | { kind: "setting"; key: string; value: string | boolean }
  | { kind: "in-trash"; from: string }
  | { kind: "trash-empty" }
  | { kind: "csv"; path: string; cells: Record<string, string> }
  | { kind: "clipboard"; text: string }
  /** Every file, folder, Trash item and setting not named by another check is as it was at the start. */
  | { kind: "unchanged" };

/** A SimDesk task's `evaluator`: all checks must hold (score 1), else 0. */
export interface SimDeskEvaluator {
  checks: Check[];
}

function p(path: string): string {
  return resolvePath(path, HOME);
}

function checkOne(c: Check, s: DeskState, initial: DeskState, all: Check[]): string | null {
  const fs = s.fs;
  switch (c.kind) {
    case "file": {
      const n = fs[p(c.path)];
      if (!n || n.type !== "file") return `${c.path} missing`;
      if (c.text !== undefined && n.text !== c.text)
        return `${c.path} has ${JSON.stringify(n.text.slice(0, 60))}, expected ${JSON.stringify(c.text.slice(0, 60))}`;
      for (const t of c.contains ?? []) if (!n.text.includes(t)) return `${c.path} lacks ${JSON.stringify(t)}`;
      for (const t of c.notContains ?? [])
        if (n.text.includes(t)) return `${c.path} still contains ${JSON.stringify(t)}`;
      return null;
    }
    case "dir":
      return fs[p(c.path)]?.type === "dir" ? null : `folder ${c.path} missing`;
    case "absent":
      return fs[p(c.path)] ? `${c.path} still exists` : null;
    case "setting": {
      const v = readSettings(fs)[c.key];
      return v === c.value ? null : `setting ${c.key} is ${String(v)}, expected ${String(c.value)}`;
    }
    case "in-trash":
      return s.trash.some((t) => t.from === p(c.from)) ? null : `${c.from} is not in the Trash`;
    case "trash-empty":
      return s.trash.length === 0 ? null : `Trash holds ${s.trash.length} item(s)`;
    case "csv": {
      const n = fs[p(c.path)];
      if (!n || n.type !== "file") return `${c.path} missing`;
      const cells = parseCsv(n.text);
      for (const [ref, want] of Object.entries(c.cells))
        if ((cells[ref] ?? "") !== want)
          return `${c.path} ${ref} is ${JSON.stringify(cells[ref] ?? "")}, expected ${JSON.stringify(want)}`;
      return null;
    }
    case "clipboard":
      return s.clipboard.kind === "text" && s.clipboard.text === c.text ? null : "clipboard differs";
    case "unchanged":
      return unchanged(s, initial, all);
  }
}

function unchanged(s: DeskState, initial: DeskState, all: Check[]): string | null {
  const covered: string[] = [];
  const keys = new Set<string>();
  for (const c of all) {
    if (c.kind === "file" || c.kind === "dir" || c.kind === "absent" || c.kind === "csv") covered.push(p(c.path));
    if (c.kind === "in-trash") covered.push(p(c.from));
    if (c.kind === "setting") keys.add(c.key);
  }
  // A path is free unless a check names it, something inside it, or something it contains.
  const free = (path: string) => path !== CONFIG_PATH && !covered.some((c) => isWithin(path, c) || isWithin(c, path));
  const paths = new Set([...Object.keys(s.fs), ...Object.keys(initial.fs)].filter(free));
  for (const path of [...paths].sort()) {
    if (stableStringify(s.fs[path] ?? null) !== stableStringify(initial.fs[path] ?? null)) return `${path} changed`;
  }
  const now = readSettings(s.fs);
  const was = readSettings(initial.fs);
  for (const k of Object.keys(was))
    if (!keys.has(k) && now[k] !== was[k]) return `setting ${k} changed to ${String(now[k])}`;
  const trashOf = (st: DeskState) =>
    st.trash
      .map((t) => t.from)
      .filter(free)
      .sort()
      .join("\n");
  if (trashOf(s) !== trashOf(initial)) return "Trash contents changed";
  return null;
}

/** Run an evaluator spec on a final state, given the task's initial state. */
export function evaluateState(spec: SimDeskEvaluator, s: DeskState, initial: DeskState): Evaluation {
  const failures: string[] = [];
  for (const c of spec.checks) {
    const f = checkOne(c, s, initial, spec.checks);
    if (f) failures.push(f);
  }
  return failures.length
    ? { score: 0, detail: failures.join("; ") }
    : { score: 1, detail: `all ${spec.checks.length} checks passed` };
}

export type { Fs };
