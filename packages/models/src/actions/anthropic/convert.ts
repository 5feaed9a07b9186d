/**
 * Anthropic computer use (the `computer` tool, versions 20241022/20250124) -> `Action[]`.
 * A `tool_use` block's `input` holds `action` plus its fields: key (xdotool names such as
 * "ctrl+s" or "Return"), type, mouse_move, left_click (optionally with held modifier keys in
 * `text`), right_click, middle_click, double_click, triple_click, left_click_drag,
 * left_mouse_down/up, scroll (direction + amount), hold_key, wait, screenshot, cursor_position.
 * Coordinates are `[x, y]` pixels of the declared display; `scale` maps them to the screen.
 */
import type { Action } from "@retrace-cua/core/action";
import { ActionFormatError, unparseable } from "../errors.ts";
import { normalizeKey } from "../keys.ts";

/** The `input` of a computer tool_use block (loosely typed: it is model output). */
export interface AnthropicComputerInput {
  action: string;
  [field: string]: unknown;
}

/** Options for {@link anthropicComputerInputToActions}. */
export interface AnthropicConvertOptions {
  /** Multiply model coordinates by these (display declared smaller than the screen). @default 1 */
  scaleX?: number;
  scaleY?: number;
}

/** Convert one computer tool call. Throws {@link ActionFormatError} when it is unusable. */
export function anthropicComputerInputToActions(
  input: AnthropicComputerInput,
  options: AnthropicConvertOptions = {},
): Action[] {
  try {
    return convert(input, options);
  } catch (err) {
    if (err instanceof ActionFormatError)
      throw new ActionFormatError(err.message, { kind: err.kind, output: JSON.stringify(input) });
    throw err;
  }
}

/** xdotool key syntax: combos joined by "+", several presses separated by spaces. */
export function xdotoolKeysToActions(text: string): Action[] {
  const presses = text.trim().split(/\s+/).filter(Boolean);
  if (!presses.length) throw unparseable('key needs text such as "ctrl+s"');
  return presses.map((p): Action => {
    const keys = p.split("+").filter(Boolean).map(keyName);
    return keys.length === 1 ? { type: "PRESS", key: keys[0] } : { type: "HOTKEY", keys };
  });
}

function convert(i: AnthropicComputerInput, o: AnthropicConvertOptions): Action[] {
  if (!i || typeof i !== "object" || typeof i.action !== "string")
    throw unparseable("computer tool input has no action");
  const at = () => point(i.coordinate, i.action, o);
  const maybeAt = () => (i.coordinate === undefined || i.coordinate === null ? {} : at());
  const withModifiers = (actions: Action[]): Action[] => {
    if (typeof i.text !== "string" || !i.text.trim()) return actions;
    const mods = i.text.trim().split("+").map(keyName);
    return [
      ...mods.map((key): Action => ({ type: "KEY_DOWN", key })),
      ...actions,
      ...[...mods].reverse().map((key): Action => ({ type: "KEY_UP", key })),
    ];
  };
  switch (i.action) {
    case "key":
      if (typeof i.text !== "string") throw unparseable("key needs text");
      return xdotoolKeysToActions(i.text);
    case "type":
      if (typeof i.text !== "string") throw unparseable("type needs text");
      return [{ type: "TYPING", text: i.text }];
    case "mouse_move":
      return [{ type: "MOVE_TO", ...at() }];
    case "left_click":
      return withModifiers([{ type: "CLICK", ...maybeAt(), button: "left", numClicks: 1 }]);
    case "right_click":
      return withModifiers([{ type: "RIGHT_CLICK", ...maybeAt() }]);
    case "middle_click":
      return withModifiers([{ type: "CLICK", ...maybeAt(), button: "middle", numClicks: 1 }]);
    case "double_click":
      return withModifiers([{ type: "DOUBLE_CLICK", ...maybeAt() }]);
    case "triple_click":
      return withModifiers([{ type: "CLICK", ...maybeAt(), button: "left", numClicks: 3 }]);
    case "left_click_drag": {
      const to = at();
      if (i.start_coordinate !== undefined)
        return [
          { type: "MOVE_TO", ...point(i.start_coordinate, "left_click_drag start", o) },
          { type: "DRAG_TO", ...to },
        ];
      return [{ type: "DRAG_TO", ...to }];
    }
    case "left_mouse_down":
      return [{ type: "MOUSE_DOWN", button: "left" }];
    case "left_mouse_up":
      return [{ type: "MOUSE_UP", button: "left" }];
    case "scroll": {
      const n = Math.round(Number(i.scroll_amount ?? 3));
      if (!Number.isFinite(n) || n < 0) throw unparseable("scroll_amount must be a non-negative number");
      const d = { up: [0, n], down: [0, -n], left: [-n, 0], right: [n, 0] }[String(i.scroll_direction)];
      if (!d)
        throw unparseable(
          `scroll_direction must be up, down, left or right, got ${JSON.stringify(i.scroll_direction)}`,
        );
      return withModifiers([{ type: "SCROLL", dx: d[0], dy: d[1], ...maybeAt() }]);
    }
    case "hold_key": {
      if (typeof i.text !== "string") throw unparseable("hold_key needs text");
      const keys = i.text.split("+").map(keyName);
      const seconds = Number(i.duration ?? 1);
      if (!Number.isFinite(seconds) || seconds < 0)
        throw unparseable("hold_key duration must be a non-negative number");
      return [
        ...keys.map((key): Action => ({ type: "KEY_DOWN", key })),
        { type: "WAIT", seconds },
        ...[...keys].reverse().map((key): Action => ({ type: "KEY_UP", key })),
      ];
    }
    case "wait": {
      const seconds = Number(i.duration ?? 1);
      if (!Number.isFinite(seconds) || seconds < 0) throw unparseable("wait duration must be a non-negative number");
      return [{ type: "WAIT", seconds }];
    }
    case "screenshot":
    case "cursor_position":
      return [{ type: "WAIT", seconds: 0 }];
    default:
      throw unparseable(`computer action "${i.action}" is not supported`);
  }
}

function point(c: unknown, what: string, o: AnthropicConvertOptions): { x: number; y: number } {
  if (!Array.isArray(c) || c.length !== 2 || !c.every((v) => typeof v === "number" && Number.isFinite(v)))
    throw unparseable(`${what} needs coordinate [x, y]`);
  return { x: Math.round(c[0] * (o.scaleX ?? 1)), y: Math.round(c[1] * (o.scaleY ?? 1)) };
}

function keyName(raw: string): string {
  const k = normalizeKey(raw);
  if (!k) throw unparseable(`unknown key ${JSON.stringify(raw)}`);
  return k.length === 1 ? k.toLowerCase() : k;
}
