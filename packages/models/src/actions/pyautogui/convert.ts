/**
 * pyautogui code (what OSWorld-style agents such as Qwen or EvoCUA emit) -> `Action[]`.
 *
 * The code is tokenized (python-tokenizer.ts) and parsed as a tiny Python subset (python-subset.ts)
 * and then interpreted symbolically: only `pyautogui.*` and `time.sleep` calls produce actions, literal
 * values and simple arithmetic are computed, and nothing is ever executed on the host. Imports of
 * other modules, attribute access on anything but pyautogui/time, and calls to builtins such as
 * `open`/`exec` are rejected as `unsafe`; anything else outside the subset as `unparseable`.
 * OSWorld's special answers `DONE`, `FAIL` and `WAIT` are understood, alone or in a code block.
 */
import type { Action } from "@retrace-cua/core/action";
import { ActionFormatError, empty, unparseable, unsafe } from "../errors.ts";
import { parsePython, type Expr, type Stmt } from "./python-subset.ts";
import { tokenize } from "./python-tokenizer.ts";
import { ALLOWED_MODULES, Interpreter, SPECIAL, special, type PyautoguiParseOptions } from "./interpreter.ts";

export type { PyautoguiParseOptions };

/** Names that can only mean host access; seeing one anywhere makes the code unsafe. */
const DANGEROUS = new Set([
  "os",
  "sys",
  "subprocess",
  "shutil",
  "socket",
  "pathlib",
  "open",
  "exec",
  "eval",
  "compile",
  "__import__",
  "importlib",
  "getattr",
  "setattr",
  "delattr",
  "globals",
  "locals",
  "vars",
  "builtins",
  "__builtins__",
  "input",
  "breakpoint",
  "requests",
  "urllib",
  "http",
  "ctypes",
  "pickle",
  "marshal",
  "signal",
  "threading",
  "multiprocessing",
  "pty",
  "webbrowser",
  "pyperclip",
  "platform",
  "tempfile",
  "glob",
  "io",
  "codecs",
  "base64",
]);

/** Parse one pyautogui code string into actions. Throws {@link ActionFormatError} on unusable code. */
export function parsePyautogui(code: string, options: PyautoguiParseOptions = {}): Action[] {
  const trimmed = code.trim();
  if (!trimmed) throw empty("the code is empty");
  if (SPECIAL.has(trimmed)) return [special(trimmed)];
  try {
    screenForDanger(trimmed);
    const program = parsePython(trimmed);
    checkSafety(program);
    return new Interpreter(options).run(program);
  } catch (err) {
    if (err instanceof ActionFormatError && err.output === undefined)
      throw new ActionFormatError(err.message, { kind: err.kind, output: code });
    throw err;
  }
}

/**
 * Turn a whole model response (prose, ``` fences, code) into actions, the way OSWorld's
 * `parse_code_from_string` reads it: every fenced block is code, run in order; a response (or
 * block) that is just DONE, FAIL or WAIT is that action; with no fences the whole text is tried
 * as code, and prose with no code is an `empty` failure.
 */
export function pyautoguiResponseToActions(response: string, options: PyautoguiParseOptions = {}): Action[] {
  const blocks = extractCodeBlocks(response);
  if (blocks.length === 0) {
    const text = response.trim();
    if (!text) throw empty("the model's response is empty", response);
    const last = text
      .split("\n")
      .pop()!
      .trim()
      .replace(/[.`*]+$/g, "")
      .replace(/^[`*]+/, "");
    if (SPECIAL.has(last)) return [special(last)];
    try {
      return parsePyautogui(text, options);
    } catch (err) {
      if (err instanceof ActionFormatError && err.kind === "unparseable" && !/pyautogui|time\.sleep/.test(text))
        throw empty("the response contains no code block and no DONE/FAIL/WAIT", response);
      throw new ActionFormatError((err as Error).message, {
        kind: (err as ActionFormatError).kind ?? "unparseable",
        output: response,
      });
    }
  }
  const actions: Action[] = [];
  for (const block of blocks) {
    try {
      actions.push(...parsePyautogui(block, options));
    } catch (err) {
      if (err instanceof ActionFormatError)
        throw new ActionFormatError(err.message, { kind: err.kind, output: response });
      throw err;
    }
    if (actions.length && (actions[actions.length - 1].type === "DONE" || actions[actions.length - 1].type === "FAIL"))
      break;
  }
  if (actions.length === 0) throw empty("the code blocks contain no actions", response);
  return actions;
}

/** The contents of every ``` fenced block (language tag dropped), in order. */
export function extractCodeBlocks(text: string): string[] {
  const out: string[] = [];
  // a language tag is a word followed by whitespace ("```python\n"); "```pyautogui.click(1, 2)```" has none
  for (const m of text.matchAll(/```(?:([A-Za-z0-9_+-]+)(?=\s))?[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const lang = m[1] ?? "";
    const body = m[2];
    // "```DONE```" puts the word where the language tag goes
    if (!body.trim() && SPECIAL.has(lang)) out.push(lang);
    else if (body.trim()) out.push(body);
  }
  return out;
}

/**
 * Lexical screen: a dangerous identifier anywhere outside strings makes the code unsafe, even when it would not parse.
 */
function screenForDanger(code: string): void {
  let toks;
  try {
    toks = tokenize(code);
  } catch {
    return; // syntax errors are reported by the parser
  }
  for (const t of toks) {
    if (t.kind !== "name") continue;
    if (DANGEROUS.has(t.value) || t.value.startsWith("__"))
      throw unsafe(
        `the code uses "${t.value}", which could act on the host; only pyautogui and time.sleep are allowed`,
      );
  }
}

/** Structural check: imports and attribute access only on the allowed modules. */
function checkSafety(program: Stmt[]): void {
  const aliases = new Set<string>();
  const visitStmt = (s: Stmt): void => {
    switch (s.kind) {
      case "import":
        if (!ALLOWED_MODULES.has(s.module))
          throw unsafe(`line ${s.line}: "import ${s.module}" is not allowed; only pyautogui and time may be imported`);
        aliases.add(s.alias);
        return;
      case "from":
        if (!ALLOWED_MODULES.has(s.module))
          throw unsafe(
            `line ${s.line}: "from ${s.module} import ..." is not allowed; only pyautogui and time may be imported`,
          );
        return;
      case "expr":
        return visitExpr(s.expr);
      case "assign":
        s.targets.forEach(visitExpr);
        return visitExpr(s.value);
      case "for":
        visitExpr(s.iterable);
        return s.body.forEach(visitStmt);
      case "pass":
        return;
    }
  };
  const visitExpr = (e: Expr): void => {
    switch (e.kind) {
      case "attr":
        if (e.object.kind !== "name" || !(ALLOWED_MODULES.has(e.object.name) || aliases.has(e.object.name)))
          throw unsafe(`attribute access ".${e.attr}" on something other than pyautogui or time is not allowed`);
        return;
      case "call":
        visitExpr(e.func);
        e.args.forEach(visitExpr);
        return e.kwargs.forEach((k) => visitExpr(k.value));
      case "seq":
        return e.items.forEach(visitExpr);
      case "index":
        visitExpr(e.object);
        return visitExpr(e.index);
      case "unary":
        return visitExpr(e.operand);
      case "binary":
        visitExpr(e.left);
        return visitExpr(e.right);
      default:
        return;
    }
  };
  program.forEach(visitStmt);
}
