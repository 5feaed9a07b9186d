/**
 * The symbolic interpreter behind the pyautogui parser: walks the parsed Python subset and turns
 * `pyautogui.*` / `time.sleep` calls into `Action`s, computing literal values and simple
 * arithmetic. Nothing is executed on the host.
 */
import type { Action, MouseButton } from "@retrace-cua/core/action";
import { empty, unparseable, unsafe } from "../errors.ts";
import { normalizeKey } from "../keys.ts";
import type { Expr, Stmt } from "./python-subset.ts";

/** Options for {@link parsePyautogui} and {@link pyautoguiResponseToActions}. */
export interface PyautoguiParseOptions {
  /** Multiply x coordinates by this (e.g. the model saw a resized screenshot). @default 1 */
  scaleX?: number;
  /** Multiply y coordinates by this. @default 1 */
  scaleY?: number;
  /** Screen size returned by `pyautogui.size()`; without it `size()` is rejected. */
  screen?: { width: number; height: number };
  /** Pointer position before the code runs, for relative moves (`moveRel`, `drag`). */
  cursor?: { x: number; y: number };
  /** At most this many actions per code string. @default 200 */
  maxActions?: number;
  /**
   * Read-only lookups beside the actions (OSWorld's control server on a desktop: `print`,
   * `platform.*`, `os.path.*`). Without it those names stay unknown, as they are for model output.
   */
  queries?: ReadOnlyQueries;
}

/** Read-only functions a control server answers itself; nothing reaches a real Python. */
export interface ReadOnlyQueries {
  /** Module names these functions live in, e.g. `platform`, `os`, `os.path`. */
  modules: ReadonlySet<string>;
  /** Builtins beside the harmless ones, e.g. `print`. */
  builtins: ReadonlySet<string>;
  /** Answer `fn(args)`; `undefined` means "not one of mine" (an unsupported call). */
  call(fn: string, args: Value[], kwargs: Map<string, Value>, line: number): Value | undefined;
}

/** Module names the code may import and use. */
export const ALLOWED_MODULES = new Set(["pyautogui", "time"]);
/** Harmless builtins agents use in coordinates (`int(w/2)`, `round(x)`). */
export const BUILTINS = new Set(["int", "float", "round", "abs", "min", "max", "range", "len", "str"]);
export const SPECIAL = new Set(["DONE", "FAIL", "WAIT"]);
const MAX_LOOP = 100;

export type Value = number | string | boolean | null | Value[] | { module: string } | { fn: string };

/** The action for OSWorld's special answers DONE, FAIL and WAIT. */
export function special(word: string): Action {
  if (word === "DONE") return { type: "DONE" };
  if (word === "FAIL") return { type: "FAIL" };
  return { type: "WAIT" };
}

/** Symbolic interpreter of the checked program: values are computed, pyautogui calls become actions. */
export class Interpreter {
  private readonly vars = new Map<string, Value>();
  private readonly actions: Action[] = [];
  private cursor?: { x: number; y: number };
  private readonly sx: number;
  private readonly sy: number;
  private readonly maxActions: number;

  constructor(private readonly options: PyautoguiParseOptions) {
    this.sx = options.scaleX ?? 1;
    this.sy = options.scaleY ?? 1;
    this.maxActions = options.maxActions ?? 200;
    this.cursor = options.cursor;
  }

  run(program: Stmt[]): Action[] {
    for (const s of program) this.exec(s);
    if (this.actions.length === 0 && !this.options.queries) throw empty("the code performs no pyautogui action");
    return this.actions;
  }

  private emit(a: Action): void {
    if (this.actions.length >= this.maxActions)
      throw unparseable(`the code produces more than ${this.maxActions} actions`);
    this.actions.push(a);
  }

  private exec(s: Stmt): void {
    switch (s.kind) {
      case "import":
        // `import os.path` binds `os`, as Python does.
        this.vars.set(s.alias, {
          module: s.module.includes(".") && s.alias === s.module.split(".")[0] ? s.alias : s.module,
        });
        return;
      case "from":
        for (const n of s.names) {
          if (n.name === "*")
            throw unparseable(
              `line ${s.line}: "from ${s.module} import *" is not supported; call ${s.module}.<name>(...)`,
            );
          this.vars.set(n.alias, { fn: `${s.module}.${n.name}` });
        }
        return;
      case "pass":
        return;
      case "expr":
        if (s.expr.kind === "name" && SPECIAL.has(s.expr.name)) return this.emit(special(s.expr.name));
        this.eval(s.expr);
        return;
      case "assign": {
        const value = this.eval(s.value);
        for (const t of s.targets) this.assign(t, value, s.line);
        return;
      }
      case "for": {
        const it = this.eval(s.iterable);
        if (!Array.isArray(it)) throw unparseable(`line ${s.line}: a for loop must run over range(n) or a list`);
        if (it.length > MAX_LOOP)
          throw unparseable(`line ${s.line}: loop of ${it.length} iterations; at most ${MAX_LOOP}`);
        for (const v of it) {
          this.vars.set(s.variable, v);
          for (const b of s.body) this.exec(b);
        }
        return;
      }
    }
  }

  private assign(target: Expr, value: Value, line: number): void {
    if (target.kind === "name") {
      if (ALLOWED_MODULES.has(target.name)) throw unparseable(`line ${line}: cannot assign to ${target.name}`);
      this.vars.set(target.name, value);
    } else if (target.kind === "seq") {
      if (!Array.isArray(value) || value.length !== target.items.length)
        throw unparseable(`line ${line}: cannot unpack into ${target.items.length} names`);
      target.items.forEach((t, i) => this.assign(t, value[i], line));
    } else if (
      target.kind === "attr" &&
      target.object.kind === "name" &&
      ["FAILSAFE", "PAUSE", "MINIMUM_DURATION"].includes(target.attr)
    ) {
      return; // pyautogui settings: no effect on what the actions are
    } else {
      throw unparseable(`line ${line}: only names can be assigned`);
    }
  }

  private eval(e: Expr): Value {
    switch (e.kind) {
      case "num":
        return e.value;
      case "str":
        return e.value;
      case "const":
        return e.value;
      case "name": {
        if (this.vars.has(e.name)) return this.vars.get(e.name)!;
        if (BUILTINS.has(e.name) || this.options.queries?.builtins.has(e.name)) return { fn: e.name };
        if (ALLOWED_MODULES.has(e.name) || this.options.queries?.modules.has(e.name)) return { module: e.name };
        throw unparseable(`"${e.name}" is not defined`);
      }
      case "attr": {
        const obj = this.eval(e.object);
        if (!obj || typeof obj !== "object" || !("module" in obj))
          throw unsafe(`attribute access ".${e.attr}" on something other than pyautogui or time is not allowed`);
        if (this.options.queries?.modules.has(`${obj.module}.${e.attr}`)) return { module: `${obj.module}.${e.attr}` };
        return { fn: `${obj.module}.${e.attr}` };
      }
      case "seq":
        return e.items.map((i) => this.eval(i));
      case "index": {
        const obj = this.eval(e.object);
        const idx = this.eval(e.index);
        if (!Array.isArray(obj) || typeof idx !== "number" || !Number.isInteger(idx))
          throw unparseable("only integer indexing of tuples and lists is supported");
        const v = obj[idx < 0 ? obj.length + idx : idx];
        if (v === undefined) throw unparseable(`index ${idx} is out of range`);
        return v;
      }
      case "unary": {
        const v = this.eval(e.operand);
        if (typeof v !== "number") throw unparseable(`unary ${e.op} needs a number`);
        return e.op === "-" ? -v : v;
      }
      case "binary":
        return binary(e.op, this.eval(e.left), this.eval(e.right));
      case "call": {
        const f = this.eval(e.func);
        if (!f || typeof f !== "object" || !("fn" in f)) throw unparseable(`line ${e.line}: that is not a function`);
        const args = e.args.map((a) => this.eval(a));
        const kwargs = new Map(e.kwargs.map((k) => [k.name, this.eval(k.value)] as const));
        return this.call(f.fn, args, kwargs, e.line);
      }
    }
  }

  private call(fn: string, args: Value[], kwargs: Map<string, Value>, line: number): Value {
    const name = fn.startsWith("pyautogui.") ? fn.slice("pyautogui.".length) : fn;
    const bind = (params: string[]) => bindArgs(fn, params, args, kwargs, line);
    switch (fn) {
      case "int":
      case "round":
        return Math.round(num(args[0], fn));
      case "float":
        return num(args[0], fn);
      case "abs":
        return Math.abs(num(args[0], fn));
      case "min":
      case "max": {
        const xs = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((v) => num(v, fn));
        return fn === "min" ? Math.min(...xs) : Math.max(...xs);
      }
      case "len":
        if (typeof args[0] === "string" || Array.isArray(args[0])) return args[0].length;
        throw unparseable(`line ${line}: len() needs a string or list`);
      case "str":
        return String(args[0] ?? "");
      case "range": {
        const ns = args.map((v) => num(v, "range"));
        const [start, stop, stepBy] = ns.length === 1 ? [0, ns[0], 1] : [ns[0], ns[1], ns[2] ?? 1];
        if (stepBy === 0) throw unparseable(`line ${line}: range() step must not be zero`);
        const out: number[] = [];
        for (let i = start; stepBy > 0 ? i < stop : i > stop; i += stepBy) {
          out.push(i);
          if (out.length > MAX_LOOP) break;
        }
        return out;
      }
      case "time.sleep":
      case "pyautogui.sleep": {
        const p = bind(["seconds"]);
        const seconds = num(p.seconds, `${fn} seconds`);
        if (seconds < 0) throw unparseable(`line ${line}: cannot sleep a negative time`);
        this.emit({ type: "WAIT", seconds });
        return null;
      }
    }
    const answered = this.options.queries?.call(fn, args, kwargs, line);
    if (answered !== undefined) return answered;
    if (!fn.startsWith("pyautogui."))
      throw unparseable(`line ${line}: ${fn}() is not supported; use pyautogui functions and time.sleep`);
    switch (name) {
      case "click":
      case "leftClick":
      case "doubleClick":
      case "tripleClick":
      case "rightClick":
      case "middleClick": {
        const p = bind(["x", "y", "clicks", "interval", "button", "duration", "tween", "logScreenshot", "_pause"]);
        const at = this.point(p.x, p.y, line);
        let button = toButton(p.button ?? "left", line);
        let clicks = p.clicks === undefined || p.clicks === null ? 1 : Math.round(num(p.clicks, "clicks"));
        if (name === "doubleClick") clicks = 2;
        if (name === "tripleClick") clicks = 3;
        if (name === "rightClick") button = "right";
        if (name === "middleClick") button = "middle";
        if (clicks < 1) throw unparseable(`line ${line}: clicks must be at least 1`);
        if (at) this.cursor = at;
        if (name === "doubleClick" && button === "left") return (this.emit({ type: "DOUBLE_CLICK", ...at }), null);
        if (name === "rightClick") return (this.emit({ type: "RIGHT_CLICK", ...at }), null);
        for (let left = clicks; left > 0; left -= 3)
          this.emit({ type: "CLICK", ...at, button, numClicks: Math.min(3, left) });
        return null;
      }
      case "moveTo":
      case "dragTo": {
        const p = bind([
          "x",
          "y",
          "duration",
          name === "dragTo" ? "button" : "tween",
          "tween",
          "logScreenshot",
          "_pause",
          "mouseDownUp",
        ]);
        const at = this.point(p.x, p.y, line);
        if (!at) throw unparseable(`line ${line}: ${fn}() needs x and y`);
        if (name === "dragTo" && p.button !== undefined && toButton(p.button, line) !== "left")
          throw unparseable(`line ${line}: only left-button drags are supported`);
        this.cursor = at;
        this.emit(name === "moveTo" ? { type: "MOVE_TO", ...at } : { type: "DRAG_TO", ...at });
        return null;
      }
      case "moveRel":
      case "move":
      case "dragRel":
      case "drag": {
        const p = bind(["xOffset", "yOffset", "duration", "button", "tween"]);
        if (!this.cursor)
          throw unparseable(
            `line ${line}: ${fn}() moves relative to a pointer position that is not known; use moveTo/dragTo with absolute coordinates`,
          );
        const dx = num(p.xOffset ?? 0, "xOffset") * this.sx;
        const dy = num(p.yOffset ?? 0, "yOffset") * this.sy;
        const at = { x: Math.round(this.cursor.x + dx), y: Math.round(this.cursor.y + dy) };
        this.cursor = at;
        this.emit(name === "moveRel" || name === "move" ? { type: "MOVE_TO", ...at } : { type: "DRAG_TO", ...at });
        return null;
      }
      case "mouseDown":
      case "mouseUp": {
        const p = bind(["x", "y", "button", "duration", "tween"]);
        const at = this.point(p.x, p.y, line);
        if (at) {
          this.cursor = at;
          this.emit({ type: "MOVE_TO", ...at });
        }
        this.emit({
          type: name === "mouseDown" ? "MOUSE_DOWN" : "MOUSE_UP",
          button: toButton(p.button ?? "left", line),
        });
        return null;
      }
      case "scroll":
      case "vscroll":
      case "hscroll": {
        const p = bind(["clicks", "x", "y"]);
        const clicks = Math.round(num(p.clicks, "clicks"));
        const at = this.point(p.x, p.y, line);
        this.emit({ type: "SCROLL", dx: name === "hscroll" ? clicks : 0, dy: name === "hscroll" ? 0 : clicks, ...at });
        return null;
      }
      case "write":
      case "typewrite": {
        const p = bind(["message", "interval", "logScreenshot", "_pause"]);
        if (typeof p.message === "string") {
          if (p.message.length) this.emit({ type: "TYPING", text: p.message });
          return null;
        }
        if (Array.isArray(p.message)) {
          for (const k of p.message) this.emit({ type: "PRESS", key: key(k, line) });
          return null;
        }
        throw unparseable(`line ${line}: ${fn}() needs a string`);
      }
      case "press": {
        const p = bind(["keys", "presses", "interval", "logScreenshot", "_pause"]);
        const keys = Array.isArray(p.keys) ? p.keys : [p.keys];
        const presses = p.presses === undefined ? 1 : Math.round(num(p.presses, "presses"));
        if (presses < 0 || presses > MAX_LOOP)
          throw unparseable(`line ${line}: presses must be between 0 and ${MAX_LOOP}`);
        for (let n = 0; n < presses; n++) for (const k of keys) this.emit({ type: "PRESS", key: key(k, line) });
        return null;
      }
      case "hotkey": {
        for (const k of kwargs.keys())
          if (k !== "interval" && k !== "logScreenshot" && k !== "_pause")
            throw unparseable(`line ${line}: hotkey() got an unexpected keyword "${k}"`);
        const keys = (args.length === 1 && Array.isArray(args[0]) ? args[0] : args).map((k) => key(k, line));
        if (!keys.length) throw unparseable(`line ${line}: hotkey() needs at least one key`);
        this.emit({ type: "HOTKEY", keys });
        return null;
      }
      case "keyDown":
      case "keyUp": {
        const p = bind(["key", "logScreenshot", "_pause"]);
        this.emit({ type: name === "keyDown" ? "KEY_DOWN" : "KEY_UP", key: key(p.key, line) });
        return null;
      }
      case "position":
        if (!this.cursor)
          throw unparseable(`line ${line}: pyautogui.position() is not known here; use absolute coordinates`);
        return [this.cursor.x, this.cursor.y];
      case "size":
        if (!this.options.screen)
          throw unparseable(`line ${line}: pyautogui.size() is not known here; use absolute coordinates`);
        return [this.options.screen.width, this.options.screen.height];
      default:
        throw unparseable(`line ${line}: ${fn}() is not a supported action`);
    }
  }

  /** Resolve an (x, y) pair, where x may also be a tuple; scaled and rounded to pixels. */
  private point(x: Value | undefined, y: Value | undefined, line: number): { x: number; y: number } | undefined {
    if (Array.isArray(x) && (y === undefined || y === null)) [x, y] = x;
    if ((x === undefined || x === null) && (y === undefined || y === null)) return undefined;
    if (typeof x !== "number" || typeof y !== "number") throw unparseable(`line ${line}: coordinates must be numbers`);
    return { x: Math.round(x * this.sx), y: Math.round(y * this.sy) };
  }
}

function bindArgs(
  fn: string,
  params: string[],
  args: Value[],
  kwargs: Map<string, Value>,
  line: number,
): Record<string, Value | undefined> {
  if (args.length > params.length) throw unparseable(`line ${line}: ${fn}() takes at most ${params.length} arguments`);
  const out: Record<string, Value | undefined> = {};
  args.forEach((a, i) => (out[params[i]] = a));
  for (const [k, v] of kwargs) {
    if (!params.includes(k)) throw unparseable(`line ${line}: ${fn}() got an unexpected keyword "${k}"`);
    if (k in out) throw unparseable(`line ${line}: ${fn}() got "${k}" twice`);
    out[k] = v;
  }
  return out;
}

function num(v: Value | undefined, what: string): number {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw unparseable(`${what} must be a number, got ${JSON.stringify(v ?? null)}`);
}

function binary(op: string, l: Value, r: Value): Value {
  if (op === "+" && typeof l === "string" && typeof r === "string") return l + r;
  if (op === "*" && typeof l === "string" && typeof r === "number")
    return l.repeat(Math.max(0, Math.min(10_000, Math.floor(r))));
  const a = num(l, `left side of ${op}`);
  const b = num(r, `right side of ${op}`);
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      if (b === 0) throw unparseable("division by zero");
      return a / b;
    case "//":
      if (b === 0) throw unparseable("division by zero");
      return Math.floor(a / b);
    case "%":
      if (b === 0) throw unparseable("division by zero");
      return a - b * Math.floor(a / b);
    case "**":
      return a ** b;
    default:
      throw unparseable(`operator ${op} is not supported`);
  }
}

function toButton(v: Value | undefined, line: number): MouseButton {
  const s = typeof v === "string" ? v.toLowerCase() : "";
  if (s === "left" || s === "primary") return "left";
  if (s === "right" || s === "secondary") return "right";
  if (s === "middle") return "middle";
  throw unparseable(`line ${line}: unknown mouse button ${JSON.stringify(v)}`);
}

function key(v: Value | undefined, line: number): string {
  if (typeof v !== "string" || !v) throw unparseable(`line ${line}: key names must be non-empty strings`);
  const k = normalizeKey(v);
  if (!k) throw unparseable(`line ${line}: unknown key ${JSON.stringify(v)}`);
  return k;
}
