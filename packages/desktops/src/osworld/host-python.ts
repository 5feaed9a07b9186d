/**
 * `/execute` on the host's own X11 desktop: the Python that OSWorld's client sends is parsed, never
 * run. pyautogui calls become retrace Actions (adapters/actions/pyautogui) and a few read-only
 * lookups are answered here: `print`, `platform.system/machine/release/node/python_version`,
 * `os.path.expanduser/exists/isfile/isdir/join/basename/dirname/splitext`, `os.getcwd`. Paths are
 * answered for the desktop user's home only. Python errors that Python itself would raise (an
 * undefined name, a syntax error, division by zero) come back as OSWorld does: a traceback and
 * returncode 1. Anything outside the subset is a refusal.
 */
import { arch, release } from "node:os";
import type { Action } from "@retrace-cua/core/action";
import { ActionFormatError } from "@retrace-cua/models/actions/errors";
import { Interpreter, type ReadOnlyQueries, type Value } from "@retrace-cua/models/actions/pyautogui/interpreter";
import { parsePython, type Stmt } from "@retrace-cua/models/actions/pyautogui/python-subset";
import { tokenize } from "@retrace-cua/models/actions/pyautogui/python-tokenizer";

/** What the host needs to answer the read-only lookups. */
export interface HostPythonContext {
  screen: { width: number; height: number };
  cursor?: { x: number; y: number };
  /** The desktop user's home (absolute, as OSWorld's paths name it after translation). */
  home: string;
  /** Whether a path under the home exists, and as what. */
  stat(absPath: string): Promise<"file" | "dir" | undefined>;
}

/** Parsed host Python: actions to run and text it prints, or a Python error to report. */
export type HostPythonResult =
  | { kind: "ok"; actions: Action[]; output: string }
  | { kind: "python-error"; traceback: string }
  | { kind: "refused"; message: string };

const PY_ERRORS: Array<[RegExp, string]> = [
  [/is not defined/, "NameError"],
  [/division by zero/, "ZeroDivisionError"],
  [/out of range/, "IndexError"],
  [/cannot unpack/, "ValueError"],
  [/must be a number|needs a number|needs a string/, "TypeError"],
  [/unterminated|unexpected character|indentation|unclosed bracket|bad number| near /, "SyntaxError"],
  [/is not available on the host desktop/, "NotImplementedError"],
];

/** Longest code `/execute` accepts on the host (the parser's own limit; refused before any scan). */
export const HOST_CODE_MAX_CHARS = 100_000;

/** Most distinct paths one `/execute` may ask about (each is one look-up as the desktop user). */
export const HOST_STAT_MAX_PATHS = 64;

/** Evaluate `code` against the host desktop without running anything. */
export async function evaluateHostPython(code: string, ctx: HostPythonContext): Promise<HostPythonResult> {
  if (code.length > HOST_CODE_MAX_CHARS)
    return {
      kind: "refused",
      message: `the code is ${code.length} characters long; at most ${HOST_CODE_MAX_CHARS} are accepted`,
    };
  // Paths the code may ask about are gathered first (os.path.exists needs I/O; the interpreter is
  // synchronous), from the tokens in one linear pass (a regular expression here once took 42 s).
  const stats = new Map<string, "file" | "dir" | undefined>();
  for (const raw of statArguments(code)) {
    const p = expandUser(raw, ctx.home);
    if (!withinHome(p, ctx.home) || stats.has(p)) continue;
    if (stats.size >= HOST_STAT_MAX_PATHS)
      return {
        kind: "refused",
        message: `the code asks about more than ${HOST_STAT_MAX_PATHS} paths; at most ${HOST_STAT_MAX_PATHS} are looked up`,
      };
    stats.set(p, await ctx.stat(p));
  }
  const out: string[] = [];
  const queries: ReadOnlyQueries = {
    modules: new Set(["platform", "os", "os.path"]),
    builtins: new Set(["print"]),
    call: (fn, args) => answer(fn, args, ctx, stats, out),
  };
  try {
    screen(code);
    const program = parsePython(code);
    checkImports(program);
    const actions = new Interpreter({ screen: ctx.screen, cursor: ctx.cursor, queries }).run(program);
    return { kind: "ok", actions, output: out.join("") };
  } catch (err) {
    if (!(err instanceof ActionFormatError)) throw err;
    const py = PY_ERRORS.find(([re]) => re.test(err.message));
    if (py && err.kind !== "unsafe")
      return {
        kind: "python-error",
        traceback: `Traceback (most recent call last):\n  File "<string>", line ${lineOf(err.message)}, in <module>\n${py[1]}: ${err.message.replace(/^line \d+: /, "")}\n`,
      };
    return {
      kind: "refused",
      message: `${err.message} (the host desktop never runs code: only pyautogui actions and read-only print/platform/os.path lookups are accepted)`,
    };
  }
}

/** Modules host code may import: pyautogui and time act, platform and os answer read-only lookups. */
const HOST_MODULES = new Set(["pyautogui", "time", "platform", "os", "os.path"]);
/** Names that could only mean acting on the host; their presence refuses the code before anything runs. */
const DANGEROUS = new Set([
  "sys",
  "subprocess",
  "shutil",
  "socket",
  "pathlib",
  "open",
  "exec",
  "eval",
  "compile",
  "importlib",
  "getattr",
  "setattr",
  "delattr",
  "globals",
  "locals",
  "vars",
  "builtins",
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
  "tempfile",
  "glob",
  "io",
  "codecs",
]);

/** The string literal arguments of `os.path.exists/isfile/isdir("...")` calls, from the tokens (linear). */
function statArguments(code: string): string[] {
  let toks;
  try {
    toks = tokenize(code);
  } catch {
    return [];
  }
  const out: string[] = [];
  const is = (i: number, kind: string, value?: string) =>
    toks[i]?.kind === kind && (value === undefined || toks[i].value === value);
  for (let i = 0; i + 7 < toks.length; i++) {
    if (
      is(i, "name", "os") &&
      is(i + 1, "op", ".") &&
      is(i + 2, "name", "path") &&
      is(i + 3, "op", ".") &&
      ["exists", "isfile", "isdir"].includes(toks[i + 4].value) &&
      is(i + 5, "op", "(") &&
      is(i + 6, "string") &&
      is(i + 7, "op", ")")
    ) {
      out.push(toks[i + 6].str ?? "");
    }
  }
  return out;
}

function screen(code: string): void {
  let toks;
  try {
    toks = tokenize(code);
  } catch {
    return; // a syntax error, reported by the parser
  }
  for (const t of toks) {
    if (t.kind === "name" && (DANGEROUS.has(t.value) || t.value.startsWith("__")))
      throw new ActionFormatError(`the code uses "${t.value}", which could act on the host`, { kind: "unsafe" });
  }
}

function checkImports(program: Stmt[]): void {
  const visit = (s: Stmt): void => {
    if ((s.kind === "import" || s.kind === "from") && !HOST_MODULES.has(s.module))
      throw new ActionFormatError(`line ${s.line}: "${s.module}" may not be imported`, { kind: "unsafe" });
    if (s.kind === "for") s.body.forEach(visit);
  };
  program.forEach(visit);
}

function lineOf(message: string): number {
  return Number(/^line (\d+)/.exec(message)?.[1] ?? 1);
}

function answer(
  fn: string,
  args: Value[],
  ctx: HostPythonContext,
  stats: Map<string, "file" | "dir" | undefined>,
  out: string[],
): Value | undefined {
  const str = (i: number): string => {
    const v = args[i];
    if (typeof v !== "string") throw new ActionFormatError(`${fn}() needs a string`, { kind: "unparseable" });
    return v;
  };
  switch (fn) {
    case "print":
      out.push(args.map(pyStr).join(" ") + "\n");
      return null;
    case "platform.system":
      return "Linux";
    case "platform.machine":
      return arch() === "x64" ? "x86_64" : arch() === "arm64" ? "aarch64" : arch();
    case "platform.release":
      return release();
    case "platform.node":
      return "retrace-desktop";
    case "platform.python_version":
      return "3";
    case "os.getcwd":
      return ctx.home;
    case "os.path.expanduser":
      return expandUser(str(0), ctx.home);
    case "os.path.exists":
    case "os.path.isfile":
    case "os.path.isdir": {
      const p = expandUser(str(0), ctx.home);
      if (!withinHome(p, ctx.home))
        throw new ActionFormatError(`${fn}() answers for the desktop user's home only, not ${p}`, { kind: "unsafe" });
      const kind = stats.get(p);
      return fn === "os.path.exists" ? kind !== undefined : fn === "os.path.isfile" ? kind === "file" : kind === "dir";
    }
    case "os.path.join":
      return args
        .map((_, i) => str(i))
        .reduce((a, b) => (b.startsWith("/") ? b : a.endsWith("/") || !a ? a + b : `${a}/${b}`), "");
    case "os.path.basename":
      return str(0).split("/").pop() ?? "";
    case "os.path.dirname": {
      const s = str(0);
      return s.includes("/") ? s.slice(0, s.lastIndexOf("/")) || "/" : "";
    }
    case "os.path.splitext": {
      const s = str(0);
      const m = /^(.*?)(\.[^./]*)?$/.exec(s)!;
      return [m[1], m[2] ?? ""];
    }
    default:
      return undefined;
  }
}

/** `~` and OSWorld's `/home/user` become the desktop user's home. */
export function expandUser(path: string, home: string): string {
  if (path === "~" || path === "/home/user") return home;
  if (path.startsWith("~/")) return `${home}/${path.slice(2)}`;
  if (path.startsWith("/home/user/")) return `${home}/${path.slice("/home/user/".length)}`;
  return path;
}

function withinHome(path: string, home: string): boolean {
  return (path === home || path.startsWith(home + "/")) && !path.split("/").includes("..");
}

/** Python's `str()` of a value, as `print` writes it. */
function pyStr(v: Value): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(v);
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return `(${v.map(pyRepr).join(", ")}${v.length === 1 ? "," : ""})`;
  // a module or function object: the host answers values only, never a stand-in for one
  const name = "module" in v ? v.module : v.fn;
  throw new ActionFormatError(
    `${name} is not available on the host desktop (only pyautogui actions and read-only print/platform/os.path lookups are)`,
    { kind: "unparseable" },
  );
}

function pyRepr(v: Value): string {
  return typeof v === "string" ? `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'` : pyStr(v);
}
