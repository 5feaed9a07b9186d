/**
 * The tokenizer of the Python subset that computer-use agents emit as pyautogui code (see
 * python-subset.ts for the grammar): names, numbers, string literals (escapes, raw and triple-quoted,
 * string prefixes; f-strings are refused), operators, and Python's NEWLINE/INDENT/DEDENT tokens.
 * Anything it cannot read is an `unparseable` {@link ActionFormatError}.
 */
import { unparseable } from "../errors.ts";

export type TokKind = "name" | "number" | "string" | "op" | "newline" | "indent" | "dedent" | "eof";
export interface Token {
  kind: TokKind;
  value: string;
  /** Decoded value of string literals; parsed value of numbers. */
  str?: string;
  num?: number;
  line: number;
}
const OPS = [
  "**",
  "//",
  "==",
  "!=",
  "<=",
  ">=",
  "->",
  "+=",
  "-=",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ";",
  ".",
  "=",
  "+",
  "-",
  "*",
  "/",
  "%",
  "<",
  ">",
  "@",
  "&",
  "|",
  "^",
  "~",
];
const MAX_SOURCE = 100_000;

/** Split source into tokens, tracking indentation like Python does. */
export function tokenize(src: string): Token[] {
  if (src.length > MAX_SOURCE)
    throw unparseable(`code is ${src.length} characters long; at most ${MAX_SOURCE} are accepted`);
  const toks: Token[] = [];
  const indents = [0];
  let i = 0;
  let line = 1;
  let depth = 0;
  let lineStart = true;
  const push = (kind: TokKind, value: string, extra: Partial<Token> = {}) => toks.push({ kind, value, line, ...extra });

  while (i < src.length) {
    if (lineStart && depth === 0) {
      let col = 0;
      let j = i;
      while (j < src.length && (src[j] === " " || src[j] === "\t")) col += src[j++] === "\t" ? 8 - (col % 8) : 1;
      if (j >= src.length || src[j] === "\n" || src[j] === "\r" || src[j] === "#") {
        while (j < src.length && src[j] !== "\n") j++;
        i = j + 1;
        line++;
        continue;
      }
      if (col > indents[indents.length - 1]) {
        indents.push(col);
        push("indent", "");
      }
      while (col < indents[indents.length - 1]) {
        indents.pop();
        push("dedent", "");
      }
      if (col !== indents[indents.length - 1])
        throw unparseable(`line ${line}: indentation does not match any outer level`);
      i = j;
      lineStart = false;
    }
    const c = src[i];
    if (c === "\n") {
      if (depth === 0) {
        push("newline", "\n");
        lineStart = true;
      }
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i++;
    } else if (c === "#") {
      while (i < src.length && src[i] !== "\n") i++;
    } else if (c === "\\" && (src[i + 1] === "\n" || (src[i + 1] === "\r" && src[i + 2] === "\n"))) {
      i += src[i + 1] === "\n" ? 2 : 3;
      line++;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      const m = /^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)/.exec(
        src.slice(i),
      );
      const text = m![0];
      const clean = text.replace(/_/g, "");
      const num = /^0[xXbBoO]/.test(clean) ? Number(clean) : Number.parseFloat(clean);
      if (!Number.isFinite(num)) throw unparseable(`line ${line}: bad number ${text}`);
      push("number", text, { num });
      i += text.length;
      if (/[a-zA-Z_]/.test(src[i] ?? "")) throw unparseable(`line ${line}: bad number ${text}${src[i]}`);
    } else if (/[A-Za-z_\u00c0-\uffff]/.test(c)) {
      const m = /^[A-Za-z_\u00c0-\uffff][A-Za-z0-9_\u00c0-\uffff]*/.exec(src.slice(i))!;
      const word = m[0];
      const quote = src[i + word.length];
      if ((quote === "'" || quote === '"') && /^(r|u|b|f|rb|br|fr|rf)$/i.test(word)) {
        if (/f/i.test(word))
          throw unparseable(`line ${line}: f-strings are not supported; write the text as a plain string`);
        i = readString(src, i + word.length, /r/i.test(word), line, (s, consumedLines) => {
          push("string", s, { str: s });
          line += consumedLines;
        });
      } else {
        push("name", word);
        i += word.length;
      }
    } else if (c === "'" || c === '"') {
      i = readString(src, i, false, line, (s, consumedLines) => {
        push("string", s, { str: s });
        line += consumedLines;
      });
    } else {
      const op = OPS.find((o) => src.startsWith(o, i));
      if (!op) throw unparseable(`line ${line}: unexpected character ${JSON.stringify(c)}`);
      if (op === "(" || op === "[" || op === "{") depth++;
      if (op === ")" || op === "]" || op === "}") depth = Math.max(0, depth - 1);
      push("op", op);
      i += op.length;
    }
  }
  if (depth > 0) throw unparseable(`line ${line}: unclosed bracket at end of code`);
  if (toks.length && toks[toks.length - 1].kind !== "newline") push("newline", "\n");
  while (indents.length > 1) {
    indents.pop();
    push("dedent", "");
  }
  push("eof", "");
  return toks;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "0": "\0",
};

/** Read a string literal starting at the quote; returns the index after it. */
function readString(
  src: string,
  start: number,
  raw: boolean,
  line: number,
  emit: (s: string, lines: number) => void,
): number {
  const q = src[start];
  const triple = src.startsWith(q.repeat(3), start);
  const close = triple ? q.repeat(3) : q;
  let i = start + close.length;
  let out = "";
  let lines = 0;
  for (;;) {
    if (i >= src.length) throw unparseable(`line ${line}: unterminated string literal`);
    if (src.startsWith(close, i)) break;
    const c = src[i];
    if (c === "\n") {
      if (!triple) throw unparseable(`line ${line}: unterminated string literal`);
      lines++;
    }
    if (c === "\\" && i + 1 < src.length) {
      const n = src[i + 1];
      if (raw) {
        out += c + n;
        i += 2;
        continue;
      }
      if (n === "\n") {
        lines++;
        i += 2;
        continue;
      }
      if (n in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[n];
        i += 2;
        continue;
      }
      const hex = n === "x" ? 2 : n === "u" ? 4 : n === "U" ? 8 : 0;
      if (hex) {
        const digits = src.slice(i + 2, i + 2 + hex);
        if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits))
          throw unparseable(`line ${line}: bad \\${n} escape in string`);
        out += String.fromCodePoint(Number.parseInt(digits, 16));
        i += 2 + hex;
        continue;
      }
      out += c + n; // Python keeps unknown escapes as written
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  emit(out, lines);
  return i + close.length;
}
