/** Spreadsheet values: numbers, text and formulas (=SUM(A1:A3), =A1*2+B1, AVERAGE, MIN, MAX, COUNT). */
import type { Cells } from "../types.ts";
import { ModelBehaviorError } from "@retrace-cua/core/errors";

export const COLS = ["A", "B", "C", "D", "E", "F"] as const;
export const ROWS = 15;

type Value = number | string;

class FormulaError extends ModelBehaviorError {}

/** Parse a cell reference "B3" -> [col index, row index] (0-based), or null. */
export function parseRef(ref: string): [number, number] | null {
  const m = /^([A-Z])(\d{1,3})$/.exec(ref.toUpperCase());
  if (!m) return null;
  const c = m[1].charCodeAt(0) - 65;
  const r = Number(m[2]) - 1;
  return c >= 0 && c < COLS.length && r >= 0 && r < ROWS ? [c, r] : null;
}

export function refName(c: number, r: number): string {
  return `${COLS[c]}${r + 1}`;
}

function rangeRefs(a: string, b: string): string[] {
  const pa = parseRef(a);
  const pb = parseRef(b);
  if (!pa || !pb) throw new FormulaError("bad range");
  const out: string[] = [];
  for (let c = Math.min(pa[0], pb[0]); c <= Math.max(pa[0], pb[0]); c++)
    for (let r = Math.min(pa[1], pb[1]); r <= Math.max(pa[1], pb[1]); r++) out.push(refName(c, r));
  return out;
}

/** Evaluate every cell; returns display strings ("#ERR", "#CYCLE" on errors). */
export function evaluateCells(cells: Cells): Record<string, string> {
  const memo = new Map<string, Value>();
  const visiting = new Set<string>();
  const valueOf = (ref: string): Value => {
    if (memo.has(ref)) return memo.get(ref)!;
    if (visiting.has(ref)) throw new FormulaError("#CYCLE");
    visiting.add(ref);
    try {
      const raw = (cells[ref] ?? "").trim();
      let v: Value;
      if (raw.startsWith("=")) v = evalFormula(raw.slice(1), valueOf);
      else if (raw !== "" && !Number.isNaN(Number(raw))) v = Number(raw);
      else v = raw;
      memo.set(ref, v);
      return v;
    } finally {
      visiting.delete(ref);
    }
  };
  const out: Record<string, string> = {};
  for (const ref of Object.keys(cells)) {
    try {
      out[ref] = formatValue(valueOf(ref));
    } catch (err) {
      out[ref] = err instanceof FormulaError && err.message === "#CYCLE" ? "#CYCLE" : "#ERR";
    }
  }
  return out;
}

export function formatValue(v: Value): string {
  if (typeof v === "string") return v;
  if (!Number.isFinite(v)) return "#ERR";
  return String(Math.round(v * 1e6) / 1e6);
}

function evalFormula(src: string, valueOf: (ref: string) => Value): number {
  const tokens = src.toUpperCase().match(/\d+(?:\.\d+)?|[A-Z]+\d*|[-+*/(),:]|\S/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const eat = (t?: string) => {
    const tok = tokens[i++];
    if (t !== undefined && tok !== t) throw new FormulaError(`expected ${t}`);
    return tok;
  };
  const num = (v: Value): number => {
    if (typeof v === "number") return v;
    if (v === "") return 0;
    throw new FormulaError("#VALUE");
  };
  const args = (): Value[] => {
    const vals: Value[] = [];
    eat("(");
    if (peek() !== ")") {
      for (;;) {
        const t = peek();
        if (t && parseRef(t) && tokens[i + 1] === ":") {
          eat();
          eat(":");
          for (const r of rangeRefs(t, eat())) vals.push(valueOf(r));
        } else vals.push(expr());
        if (peek() === ",") eat(",");
        else break;
      }
    }
    eat(")");
    return vals;
  };
  const factor = (): number => {
    const t = eat();
    if (t === undefined) throw new FormulaError("unexpected end");
    if (t === "-") return -factor();
    if (t === "(") {
      const v = expr();
      eat(")");
      return v;
    }
    if (/^\d/.test(t)) return Number(t);
    if (parseRef(t)) return num(valueOf(t));
    if (["SUM", "AVERAGE", "MIN", "MAX", "COUNT"].includes(t)) {
      const nums = args().filter((v): v is number => typeof v === "number");
      if (t === "SUM") return nums.reduce((a, b) => a + b, 0);
      if (t === "COUNT") return nums.length;
      if (nums.length === 0) throw new FormulaError("#ERR");
      if (t === "AVERAGE") return nums.reduce((a, b) => a + b, 0) / nums.length;
      return t === "MIN" ? Math.min(...nums) : Math.max(...nums);
    }
    throw new FormulaError(`unknown ${t}`);
  };
  const term = (): number => {
    let v = factor();
    while (peek() === "*" || peek() === "/") v = eat() === "*" ? v * factor() : v / factor();
    return v;
  };
  const expr = (): number => {
    let v = term();
    while (peek() === "+" || peek() === "-") v = eat() === "+" ? v + term() : v - term();
    return v;
  };
  const v = expr();
  if (i !== tokens.length) throw new FormulaError("trailing input");
  return v;
}

/** Parse CSV text into cells (A1 = first field of the first line). */
export function parseCsv(text: string): Cells {
  const cells: Cells = {};
  const lines = text.replace(/\r/g, "").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  lines.slice(0, ROWS).forEach((line, r) => {
    const fields: string[] = [];
    let cur = "";
    let quoted = false;
    for (let k = 0; k < line.length; k++) {
      const ch = line[k];
      if (quoted) {
        if (ch === '"' && line[k + 1] === '"') {
          cur += '"';
          k++;
        } else if (ch === '"') quoted = false;
        else cur += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ",") {
        fields.push(cur);
        cur = "";
      } else cur += ch;
    }
    fields.push(cur);
    fields.slice(0, COLS.length).forEach((f, c) => {
      if (f !== "") cells[refName(c, r)] = f;
    });
  });
  return cells;
}

/** CSV of the computed values, trimmed to the used range. */
export function toCsv(cells: Cells): string {
  const values = evaluateCells(cells);
  let maxC = -1;
  let maxR = -1;
  for (const ref of Object.keys(cells)) {
    const p = parseRef(ref);
    if (p && (cells[ref] ?? "") !== "") {
      maxC = Math.max(maxC, p[0]);
      maxR = Math.max(maxR, p[1]);
    }
  }
  const lines: string[] = [];
  for (let r = 0; r <= maxR; r++) {
    const row: string[] = [];
    for (let c = 0; c <= maxC; c++) {
      const v = values[refName(c, r)] ?? "";
      row.push(/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    }
    lines.push(row.join(","));
  }
  return lines.length ? lines.join("\n") + "\n" : "";
}
