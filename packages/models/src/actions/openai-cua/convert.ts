/**
 * OpenAI computer use (the Responses API `computer_use_preview` tool) -> `Action[]`.
 * A `computer_call` item carries one action: click, double_click, drag, keypress, move,
 * screenshot, scroll, type or wait. Coordinates are screen pixels of the declared display.
 */
import type { Action, MouseButton } from "@retrace-cua/core/action";
import { ActionFormatError, unparseable } from "../errors.ts";
import { normalizeKey } from "../keys.ts";

/** The action object of a `computer_call` (loosely typed: it is model output). */
export interface OpenAIComputerAction {
  type: string;
  [field: string]: unknown;
}

/** Options for {@link openAIComputerActionToActions}. */
export interface OpenAIComputerConvertOptions {
  /** Pixels of one wheel click, to turn `scroll_y` pixels into clicks. @default 100 */
  scrollPixelsPerClick?: number;
}

/** Convert one computer_call action. Throws {@link ActionFormatError} when it is unusable. */
export function openAIComputerActionToActions(
  action: OpenAIComputerAction,
  options: OpenAIComputerConvertOptions = {},
): Action[] {
  try {
    return convert(action, options);
  } catch (err) {
    if (err instanceof ActionFormatError)
      throw new ActionFormatError(err.message, { kind: err.kind, output: JSON.stringify(action) });
    throw err;
  }
}

function convert(a: OpenAIComputerAction, o: OpenAIComputerConvertOptions): Action[] {
  if (!a || typeof a !== "object" || typeof a.type !== "string") throw unparseable("computer_call has no action type");
  switch (a.type) {
    case "click": {
      const at = xy(a, "click");
      const b = String(a.button ?? "left");
      const button: MouseButton | undefined =
        b === "left" ? "left" : b === "right" ? "right" : b === "wheel" || b === "middle" ? "middle" : undefined;
      if (!button) throw unparseable(`click button "${b}" is not supported (left, right, wheel)`);
      return [{ type: "CLICK", ...at, button, numClicks: 1 }];
    }
    case "double_click":
      return [{ type: "DOUBLE_CLICK", ...xy(a, "double_click") }];
    case "move":
      return [{ type: "MOVE_TO", ...xy(a, "move") }];
    case "drag": {
      const path = Array.isArray(a.path) ? a.path.map((p) => xy(p as Record<string, unknown>, "drag path")) : [];
      if (path.length < 2) throw unparseable("drag needs a path of at least two points");
      if (path.length === 2)
        return [
          { type: "MOVE_TO", ...path[0] },
          { type: "DRAG_TO", ...path[1] },
        ];
      return [
        { type: "MOVE_TO", ...path[0] },
        { type: "MOUSE_DOWN", button: "left" },
        ...path.slice(1).map((p): Action => ({ type: "MOVE_TO", ...p })),
        { type: "MOUSE_UP", button: "left" },
      ];
    }
    case "keypress": {
      const raw = Array.isArray(a.keys) ? a.keys : [];
      if (!raw.length) throw unparseable("keypress needs keys");
      const keys = raw.map((k) => {
        const n = typeof k === "string" ? normalizeKey(k) : undefined;
        if (!n) throw unparseable(`unknown key ${JSON.stringify(k)}`);
        return n.length === 1 ? n.toLowerCase() : n;
      });
      return keys.length === 1 ? [{ type: "PRESS", key: keys[0] }] : [{ type: "HOTKEY", keys }];
    }
    case "type":
      if (typeof a.text !== "string") throw unparseable("type needs text");
      return [{ type: "TYPING", text: a.text }];
    case "scroll": {
      const per = o.scrollPixelsPerClick ?? 100;
      const clicks = (px: unknown) => {
        const v = Number(px ?? 0);
        if (!Number.isFinite(v)) throw unparseable("scroll amounts must be numbers");
        return v === 0 ? 0 : Math.sign(v) * Math.max(1, Math.round(Math.abs(v) / per));
      };
      const at = a.x !== undefined && a.y !== undefined ? xy(a, "scroll") : {};
      // OpenAI: scroll_y > 0 scrolls down; ours (pyautogui): dy > 0 scrolls up
      return [{ type: "SCROLL", dx: clicks(a.scroll_x), dy: -clicks(a.scroll_y), ...at }];
    }
    case "wait":
      return [{ type: "WAIT", seconds: typeof a.ms === "number" ? a.ms / 1000 : 2 }];
    case "screenshot":
      // the model only wants to look again: a zero wait yields a fresh observation
      return [{ type: "WAIT", seconds: 0 }];
    default:
      throw unparseable(`computer action "${a.type}" is not supported`);
  }
}

function xy(a: Record<string, unknown>, what: string): { x: number; y: number } {
  const x = Number(a.x);
  const y = Number(a.y);
  if (a.x === undefined || a.y === undefined || !Number.isFinite(x) || !Number.isFinite(y))
    throw unparseable(`${what} needs numeric x and y`);
  return { x: Math.round(x), y: Math.round(y) };
}
