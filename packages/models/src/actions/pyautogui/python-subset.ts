/**
 * The parser for the small subset of Python that computer-use agents emit as pyautogui code
 * (tokens come from python-tokenizer.ts): imports, calls with positional and keyword arguments, string/number/bool/None
 * literals (escapes, triple quotes, implicit concatenation), lists and tuples, simple arithmetic,
 * assignments to names, and `for _ in range(n):` loops. It builds a syntax tree only; nothing is
 * ever evaluated by JavaScript or Python. Anything outside the subset is an `unparseable`
 * {@link ActionFormatError}.
 */
import { unparseable } from "../errors.ts";
import { tokenize, type Token } from "./python-tokenizer.ts";

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
