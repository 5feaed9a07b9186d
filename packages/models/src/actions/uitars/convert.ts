/**
 * UI-TARS output -> `Action[]`. UI-TARS answers
 * `Thought: ...\nAction: click(start_box='(x1,y1)')` (several actions separated by blank lines),
 * with coordinates as `(x,y)`, a box `(x1,y1,x2,y2)` (its centre is used), the
 * `<|box_start|>(x,y)<|box_end|>` form, `[x1, y1, x2, y2]`, or UI-TARS-1.5's `<point>x y</point>`.
 * UI-TARS-1 gives coordinates normalised to 0..1000; UI-TARS-1.5 gives pixels of the image it saw.
 * The action calls are parsed with the same never-evaluating Python-subset parser as pyautogui.
 */
import type { Action } from "@retrace-cua/core/action";
import { ActionFormatError, empty, unparseable } from "../errors.ts";
import { normalizeKey } from "../keys.ts";
import { parsePython, type Expr } from "../pyautogui/python-subset.ts";

/** How UI-TARS coordinates map to screen pixels. */
export type UiTarsCoordinates =
  /** 0..1000 on both axes (UI-TARS-1). */
  | "relative-1000"
  /** Screen pixels already. */
  | "absolute"
  /** Pixels of an image of this size (the resized screenshot the model saw, UI-TARS-1.5). */
  | { width: number; height: number };

/** Options for {@link uiTarsToActions}. */
export interface UiTarsParseOptions {
  /** Screen size in pixels. */
  screen: { width: number; height: number };
  /** @default "relative-1000" */
  coordinates?: UiTarsCoordinates;
  /** Wheel clicks per `scroll(...)`. @default 5 */
  scrollAmount?: number;
  /** Seconds of a `wait()`. @default 5 */
  waitSeconds?: number;
}

/** A parsed UI-TARS answer. */
export interface UiTarsParsed {
  thought: string;
  actions: Action[];
}

/** Split a response into thought and actions. Throws {@link ActionFormatError} on unusable output. */
export function uiTarsToActions(response: string, options: UiTarsParseOptions): UiTarsParsed {
  try {
    return parse(response, options);
  } catch (err) {
    if (err instanceof ActionFormatError)
      throw new ActionFormatError(err.message, { kind: err.kind, output: response });
    throw err;
  }
}

function parse(response: string, options: UiTarsParseOptions): UiTarsParsed {
  if (!response.trim()) throw empty("the model's response is empty");
  // the last line that starts with "Action:" (a thought may mention the word)
  const marks = [...response.matchAll(/(?:^|\n)[ \t]*Action[ \t]*:/g)];
  if (!marks.length) throw empty('the response has no "Action:" line');
  const last = marks[marks.length - 1];
  const at = last.index! + last[0].indexOf("Action");
  const thought = response
    .slice(0, at)
    .replace(/^\s*(Thought|Reflection|Action_Summary)\s*:\s*/i, "")
    .trim();
  let code = response
    .slice(at)
    .replace(/^Action\s*:\s*/, "")
    .trim();
  code = code.replace(/^```[a-z]*\n?|```\s*$/g, "").trim();
  if (!code) throw empty('the "Action:" line is empty');
  let program;
  try {
    program = parsePython(code.replace(/\n{2,}/g, "\n"));
  } catch (err) {
    throw unparseable(`the action is not a UI-TARS call: ${(err as Error).message}`);
  }
  const actions: Action[] = [];
  for (const stmt of program) {
    if (stmt.kind !== "expr" || stmt.expr.kind !== "call" || stmt.expr.func.kind !== "name")
      throw unparseable(`line ${stmt.line}: expected a call such as click(start_box='(x,y)')`);
    actions.push(...callToActions(stmt.expr.func.name, stmt.expr, options));
  }
  if (!actions.length) throw empty("the response has no action");
  return { thought, actions };
}

function callToActions(name: string, call: Extract<Expr, { kind: "call" }>, o: UiTarsParseOptions): Action[] {
  const args = new Map<string, string>();
  call.args.forEach((a, i) => args.set(`#${i}`, literal(a, name)));
  for (const k of call.kwargs) args.set(k.name, literal(k.value, name));
  const arg = (...names: string[]) => names.map((n) => args.get(n)).find((v) => v !== undefined);
  const point = (...names: string[]) => {
    const v = arg(...names, "#0");
    if (v === undefined) throw unparseable(`${name}() needs a start_box`);
    return toPixels(v, o);
  };
  switch (name) {
    case "click":
    case "left_single":
      return [{ type: "CLICK", ...point("start_box", "point"), button: "left", numClicks: 1 }];
    case "left_double":
    case "double_click":
      return [{ type: "DOUBLE_CLICK", ...point("start_box", "point") }];
    case "left_triple":
      return [{ type: "CLICK", ...point("start_box", "point"), button: "left", numClicks: 3 }];
    case "right_single":
    case "right_click":
      return [{ type: "RIGHT_CLICK", ...point("start_box", "point") }];
    case "middle_single":
      return [{ type: "CLICK", ...point("start_box", "point"), button: "middle", numClicks: 1 }];
    case "hover":
    case "mouse_move":
    case "move_to":
      return [{ type: "MOVE_TO", ...point("start_box", "point") }];
    case "drag":
    case "select": {
      const from = point("start_box", "start_point");
      const toText = arg("end_box", "end_point", "#1");
      if (toText === undefined) throw unparseable(`${name}() needs an end_box`);
      return [
        { type: "MOVE_TO", ...from },
        { type: "DRAG_TO", ...toPixels(toText, o) },
      ];
    }
    case "hotkey": {
      const combo = arg("key", "hotkey", "#0");
      if (!combo?.trim()) throw unparseable("hotkey() needs key='...'");
      const keys = combo
        .trim()
        .split(/[\s+]+/)
        .map(keyName);
      return keys.length === 1 ? [{ type: "PRESS", key: keys[0] }] : [{ type: "HOTKEY", keys }];
    }
    case "press":
    case "keydown":
    case "keyup": {
      const k = keyName((arg("key", "#0") ?? "").trim());
      return [{ type: name === "press" ? "PRESS" : name === "keydown" ? "KEY_DOWN" : "KEY_UP", key: k }];
    }
    case "type": {
      const content = arg("content", "#0");
      if (content === undefined) throw unparseable("type() needs content='...'");
      return content ? [{ type: "TYPING", text: content }] : [];
    }
    case "scroll": {
      const dir = (arg("direction", "#1") ?? "").toLowerCase().trim();
      const n = o.scrollAmount ?? 5;
      const box = arg("start_box", "point", "#0");
      const at = box !== undefined && box.trim() ? toPixels(box, o) : {};
      const delta = { up: [0, n], down: [0, -n], left: [-n, 0], right: [n, 0] }[dir];
      if (!delta) throw unparseable(`scroll() direction must be up, down, left or right, got ${JSON.stringify(dir)}`);
      return [{ type: "SCROLL", dx: delta[0], dy: delta[1], ...at }];
    }
    case "wait":
      return [{ type: "WAIT", seconds: o.waitSeconds ?? 5 }];
    case "finished":
      return [{ type: "DONE" }];
    case "call_user":
      return [{ type: "FAIL" }];
    default:
      throw unparseable(`${name}() is not a UI-TARS action`);
  }
}

function literal(e: Expr, fn: string): string {
  if (e.kind === "str") return e.value;
  if (e.kind === "num") return String(e.value);
  throw unparseable(`${fn}() arguments must be quoted strings`);
}

function keyName(raw: string): string {
  const k = normalizeKey(raw);
  if (!k) throw unparseable(`unknown key ${JSON.stringify(raw)}`);
  return k;
}

/** Numbers in a coordinate string -> a pixel point (a box gives its centre). */
function toPixels(text: string, o: UiTarsParseOptions): { x: number; y: number } {
  const nums = (text.replace(/<\|?\/?(box_start|box_end|point|bbox)\|?>/g, " ").match(/-?\d+(?:\.\d+)?/g) ?? []).map(
    Number,
  );
  let x: number;
  let y: number;
  if (nums.length === 2) [x, y] = nums;
  else if (nums.length === 4) [x, y] = [(nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2];
  else throw unparseable(`cannot read a point from ${JSON.stringify(text)}`);
  const c = o.coordinates ?? "relative-1000";
  if (c === "relative-1000") {
    if (x < 0 || y < 0 || x > 1000 || y > 1000) throw unparseable(`coordinates (${x},${y}) are outside 0..1000`);
    return { x: Math.round((x / 1000) * o.screen.width), y: Math.round((y / 1000) * o.screen.height) };
  }
  if (c === "absolute") return { x: Math.round(x), y: Math.round(y) };
  return { x: Math.round((x * o.screen.width) / c.width), y: Math.round((y * o.screen.height) / c.height) };
}
