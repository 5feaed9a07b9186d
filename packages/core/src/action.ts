/**
 * The action space: OSWorld's computer_13, as a discriminated union on `type`.
 * Vendor formats (pyautogui code, UI-TARS, OpenAI/Anthropic computer use) are converted
 * to this in adapters only. Coordinates are screen pixels; key names are pyautogui's
 * lower-case names ("enter", "ctrl", "a", "f5").
 */
import { z } from "zod";

export const MOUSE_BUTTONS = ["left", "right", "middle"] as const;
export type MouseButton = (typeof MOUSE_BUTTONS)[number];

const coord = z.number().finite();
const button = z.enum(MOUSE_BUTTONS);

/** zod schema for {@link Action}; use it to validate actions read from files or models. */
export const ActionSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("MOVE_TO"), x: coord, y: coord }),
  z.object({
    type: z.literal("CLICK"),
    x: coord.optional(),
    y: coord.optional(),
    button: button.default("left"),
    numClicks: z.number().int().min(1).max(3).default(1),
  }),
  z.object({ type: z.literal("MOUSE_DOWN"), button: button.default("left") }),
  z.object({ type: z.literal("MOUSE_UP"), button: button.default("left") }),
  z.object({ type: z.literal("RIGHT_CLICK"), x: coord.optional(), y: coord.optional() }),
  z.object({ type: z.literal("DOUBLE_CLICK"), x: coord.optional(), y: coord.optional() }),
  z.object({ type: z.literal("DRAG_TO"), x: coord, y: coord }),
  z.object({
    type: z.literal("SCROLL"),
    dx: z.number().int(),
    dy: z.number().int(),
    x: coord.optional(),
    y: coord.optional(),
  }),
  z.object({ type: z.literal("TYPING"), text: z.string() }),
  z.object({ type: z.literal("PRESS"), key: z.string().min(1) }),
  z.object({ type: z.literal("KEY_DOWN"), key: z.string().min(1) }),
  z.object({ type: z.literal("KEY_UP"), key: z.string().min(1) }),
  z.object({ type: z.literal("HOTKEY"), keys: z.array(z.string().min(1)).min(1) }),
  z.object({ type: z.literal("WAIT"), seconds: z.number().nonnegative().optional() }),
  z.object({ type: z.literal("FAIL") }),
  z.object({ type: z.literal("DONE") }),
]);

/** One primitive desktop action. `SCROLL.dy` > 0 scrolls up (pyautogui's sign). */
export type Action = z.infer<typeof ActionSchema>;
export type ActionType = Action["type"];

/** Actions that end an episode. */
export function isTerminal(action: Action): boolean {
  return action.type === "DONE" || action.type === "FAIL";
}

/**
 * The terminal an agent ended a run of steps with (the first DONE/FAIL), or null. Environments
 * whose oracle depends on it (OSWorld's `infeasible` metric) get it through `evaluate({ terminal })`.
 */
export function terminalOf(steps: ReadonlyArray<readonly Action[]>): "DONE" | "FAIL" | null {
  for (const actions of steps) for (const a of actions) if (a.type === "DONE" || a.type === "FAIL") return a.type;
  return null;
}

/** Compact human-readable form, e.g. `CLICK(120,40)` or `TYPING("hello")`, for logs, prompts and reports. */
export function formatAction(a: Action): string {
  const xy = (x?: number, y?: number) =>
    x === undefined || y === undefined ? "" : `${Math.round(x)},${Math.round(y)}`;
  switch (a.type) {
    case "MOVE_TO":
    case "DRAG_TO":
      return `${a.type}(${xy(a.x, a.y)})`;
    case "CLICK": {
      const extra = [a.button !== "left" ? a.button : "", a.numClicks > 1 ? `x${a.numClicks}` : ""].filter(Boolean);
      return `CLICK(${[xy(a.x, a.y), ...extra].filter(Boolean).join(",")})`;
    }
    case "RIGHT_CLICK":
    case "DOUBLE_CLICK":
      return `${a.type}(${xy(a.x, a.y)})`;
    case "MOUSE_DOWN":
    case "MOUSE_UP":
      return `${a.type}(${a.button})`;
    case "SCROLL":
      return `SCROLL(${[a.dx, a.dy, xy(a.x, a.y)].filter((v) => v !== "").join(",")})`;
    case "TYPING":
      return `TYPING(${JSON.stringify(a.text)})`;
    case "PRESS":
    case "KEY_DOWN":
    case "KEY_UP":
      return `${a.type}(${a.key})`;
    case "HOTKEY":
      return `HOTKEY(${a.keys.join("+")})`;
    case "WAIT":
      return a.seconds === undefined ? "WAIT" : `WAIT(${a.seconds})`;
    case "FAIL":
    case "DONE":
      return a.type;
  }
}
