/**
 * A tokenizer and parser for the small subset of Python that computer-use agents emit as
 * pyautogui code: imports, calls with positional and keyword arguments, string/number/bool/None
 * literals (escapes, triple quotes, implicit concatenation), lists and tuples, simple arithmetic,
 * assignments to names, and `for _ in range(n):` loops. It builds a syntax tree only; nothing is
 * ever evaluated by JavaScript or Python. Anything outside the subset is an `unparseable`
 * {@link ActionFormatError}.
 */
import { unparseable } from "../errors.ts";

type TokKind = "name" | "number" | "string" | "op" | "newline" | "indent" | "dedent" | "eof";
interface Token {
  kind: TokKind;
  value: string;
  /** Decoded value of string literals; parsed value of numbers. */
  str?: string;
  num?: number;
  line: number;
}

/** Syntax tree of the subset. */
export type Expr =
  | { kind: "num"; value: number }
  | { kind: "str"; value: string }
  | { kind: "const"; value: boolean | null }
  | { kind: "name"; name: string }
  | { kind: "attr"; object: Expr; attr: string }
  | { kind: "call"; func: Expr; args: Expr[]; kwargs: { name: string; value: Expr }[]; line: number }
  | { kind: "seq"; items: Expr[] }
  | { kind: "index"; object: Expr; index: Expr }
  | { kind: "unary"; op: "-" | "+"; operand: Expr }
  | { kind: "binary"; op: string; left: Expr; right: Expr };

export type Stmt =
  | { kind: "import"; module: string; alias: string; line: number }
  | { kind: "from"; module: string; names: { name: string; alias: string }[]; line: number }
  | { kind: "expr"; expr: Expr; line: number }
  | { kind: "assign"; targets: Expr[]; value: Expr; line: number }
  | { kind: "for"; variable: string; iterable: Expr; body: Stmt[]; line: number }
  | { kind: "pass"; line: number };

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
const KEYWORDS = new Set([
  "if",
  "elif",
  "else",
  "while",
  "def",
  "class",
  "with",
  "lambda",
  "return",
  "try",
  "except",
  "finally",
  "raise",
  "del",
  "global",
  "nonlocal",
  "yield",
  "assert",
  "async",
  "await",
  "and",
  "or",
  "not",
  "is",
  "break",
  "continue",
]);
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

/** Parse tokens into statements. */
export function parsePython(src: string): Stmt[] {
  return new Parser(tokenize(src)).file();
}

class Parser {
  private pos = 0;
  constructor(private readonly toks: Token[]) {}

  private peek(offset = 0): Token {
    return this.toks[Math.min(this.pos + offset, this.toks.length - 1)];
  }
  private next(): Token {
    return this.toks[this.pos++];
  }
  private isOp(v: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "op" && t.value === v;
  }
  private isName(v: string): boolean {
    const t = this.peek();
    return t.kind === "name" && t.value === v;
  }
  private expectOp(v: string): void {
    if (!this.isOp(v)) this.fail(`expected "${v}"`);
    this.pos++;
  }
  private expectName(): string {
    const t = this.next();
    if (t.kind !== "name") this.fail(`expected a name`, t);
    return t.value;
  }
  private fail(msg: string, t: Token = this.peek()): never {
    const near = t.kind === "eof" ? "end of code" : t.kind === "newline" ? "end of line" : JSON.stringify(t.value);
    throw unparseable(`line ${t.line}: ${msg} near ${near}`);
  }

  file(): Stmt[] {
    const out: Stmt[] = [];
    while (this.peek().kind !== "eof") {
      if (this.peek().kind === "newline") {
        this.pos++;
        continue;
      }
      if (this.peek().kind === "indent") this.fail("unexpected indentation");
      out.push(...this.statement());
    }
    return out;
  }

  private statement(): Stmt[] {
    if (this.isName("for")) return [this.forLoop()];
    const out = [this.simple()];
    while (this.isOp(";")) {
      this.pos++;
      if (this.peek().kind === "newline") break;
      out.push(this.simple());
    }
    if (this.peek().kind !== "newline") this.fail("expected end of statement");
    this.pos++;
    return out;
  }

  private forLoop(): Stmt {
    const line = this.next().line;
    const variable = this.expectName();
    if (!this.isName("in")) this.fail(`expected "in"`);
    this.pos++;
    const iterable = this.expr();
    this.expectOp(":");
    let body: Stmt[];
    if (this.peek().kind === "newline") {
      this.pos++;
      if (this.peek().kind !== "indent") this.fail("expected an indented loop body");
      this.pos++;
      body = [];
      while (this.peek().kind !== "dedent" && this.peek().kind !== "eof") {
        if (this.peek().kind === "newline") {
          this.pos++;
          continue;
        }
        body.push(...this.statement());
      }
      if (this.peek().kind === "dedent") this.pos++;
    } else {
      body = this.statement();
    }
    return { kind: "for", variable, iterable, body, line };
  }

  private simple(): Stmt {
    const t = this.peek();
    if (t.kind === "name" && t.value === "import") {
      this.pos++;
      const module = this.dotted();
      let alias = module.split(".")[0];
      if (this.isName("as")) {
        this.pos++;
        alias = this.expectName();
      }
      if (this.isOp(",")) {
        // `import pyautogui, time` becomes two statements via a synthetic ';'
        this.toks.splice(
          this.pos,
          1,
          { kind: "op", value: ";", line: t.line },
          { kind: "name", value: "import", line: t.line },
        );
      }
      return { kind: "import", module, alias, line: t.line };
    }
    if (t.kind === "name" && t.value === "from") {
      this.pos++;
      const module = this.dotted();
      if (!this.isName("import")) this.fail(`expected "import"`);
      this.pos++;
      const names: { name: string; alias: string }[] = [];
      const paren = this.isOp("(");
      if (paren) this.pos++;
      do {
        if (this.isOp(",")) this.pos++;
        if (this.isOp("*")) {
          this.pos++;
          names.push({ name: "*", alias: "*" });
          continue;
        }
        const name = this.expectName();
        let alias = name;
        if (this.isName("as")) {
          this.pos++;
          alias = this.expectName();
        }
        names.push({ name, alias });
      } while (this.isOp(","));
      if (paren) this.expectOp(")");
      return { kind: "from", module, names, line: t.line };
    }
    if (t.kind === "name" && t.value === "pass") {
      this.pos++;
      return { kind: "pass", line: t.line };
    }
    if (t.kind === "name" && (KEYWORDS.has(t.value) || t.value === "for"))
      this.fail(`Python "${t.value}" statements are not supported in actions`);
    const first = this.exprList();
    if (this.isOp("=")) {
      const targets = [first];
      let value = first;
      while (this.isOp("=")) {
        this.pos++;
        value = this.exprList();
        targets.push(value);
      }
      targets.pop();
      return { kind: "assign", targets, value, line: t.line };
    }
    return { kind: "expr", expr: first, line: t.line };
  }

  private dotted(): string {
    let name = this.expectName();
    while (this.isOp(".")) {
      this.pos++;
      name += "." + this.expectName();
    }
    return name;
  }

  /** `a, b` at statement level is a tuple. */
  private exprList(): Expr {
    const first = this.expr();
    if (!this.isOp(",")) return first;
    const items = [first];
    while (this.isOp(",")) {
      this.pos++;
      if (this.peek().kind === "newline" || this.isOp("=") || this.isOp(";")) break;
      items.push(this.expr());
    }
    return { kind: "seq", items };
  }

  expr(): Expr {
    let left = this.term();
    while (this.isOp("+") || this.isOp("-")) {
      const op = this.next().value;
      left = { kind: "binary", op, left, right: this.term() };
    }
    return left;
  }

  private term(): Expr {
    let left = this.unary();
    while (this.isOp("*") || this.isOp("/") || this.isOp("//") || this.isOp("%")) {
      const op = this.next().value;
      left = { kind: "binary", op, left, right: this.unary() };
    }
    return left;
  }

  private unary(): Expr {
    if (this.isOp("-") || this.isOp("+")) {
      const op = this.next().value as "-" | "+";
      return { kind: "unary", op, operand: this.unary() };
    }
    const base = this.postfix();
    if (this.isOp("**")) {
      this.pos++;
      return { kind: "binary", op: "**", left: base, right: this.unary() };
    }
    return base;
  }

  private postfix(): Expr {
    let e = this.atom();
    for (;;) {
      if (this.isOp(".")) {
        this.pos++;
        e = { kind: "attr", object: e, attr: this.expectName() };
      } else if (this.isOp("(")) {
        const line = this.next().line;
        const args: Expr[] = [];
        const kwargs: { name: string; value: Expr }[] = [];
        while (!this.isOp(")")) {
          if (this.isOp("*") || this.isOp("**")) this.fail("star-arguments are not supported");
          if (this.peek().kind === "name" && this.isOp("=", 1)) {
            const name = this.next().value;
            this.pos++;
            kwargs.push({ name, value: this.expr() });
          } else {
            if (kwargs.length) this.fail("positional argument after keyword argument");
            args.push(this.expr());
          }
          if (!this.isOp(",")) break;
          this.pos++;
        }
        this.expectOp(")");
        e = { kind: "call", func: e, args, kwargs, line };
      } else if (this.isOp("[")) {
        this.pos++;
        const index = this.expr();
        this.expectOp("]");
        e = { kind: "index", object: e, index };
      } else {
        return e;
      }
    }
  }

  private atom(): Expr {
    const t = this.next();
    if (t.kind === "number") return { kind: "num", value: t.num! };
    if (t.kind === "string") {
      let value = t.str!;
      while (this.peek().kind === "string") value += this.next().str!;
      return { kind: "str", value };
    }
    if (t.kind === "name") {
      if (t.value === "True" || t.value === "False") return { kind: "const", value: t.value === "True" };
      if (t.value === "None") return { kind: "const", value: null };
      if (KEYWORDS.has(t.value)) this.fail(`Python "${t.value}" is not supported in actions`, t);
      return { kind: "name", name: t.value };
    }
    if (t.kind === "op" && (t.value === "(" || t.value === "[")) {
      const closing = t.value === "(" ? ")" : "]";
      const items: Expr[] = [];
      let comma = false;
      while (!this.isOp(closing)) {
        items.push(this.expr());
        if (!this.isOp(",")) break;
        comma = true;
        this.pos++;
      }
      this.expectOp(closing);
      if (t.value === "(" && items.length === 1 && !comma) return items[0];
      return { kind: "seq", items };
    }
    this.fail("expected a value", t);
  }
}
