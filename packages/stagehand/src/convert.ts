/**
 * Stagehand agent tool calls (hybrid and DOM modes of `@browserbasehq/stagehand` 3.x) as retrace
 * Actions, for the detector's history. Stagehand executes the calls itself on its page; these
 * Actions only describe them. Coordinate tools map one to one (`click`, `type`, `dragAndDrop`,
 * `clickAndHold`, `scroll` with coordinates, `keys`); tools that act through the DOM or a URL
 * (`act`, `fillForm`, `goto`, `navback`, `fillFormVision` fields without coordinates) have no
 * screen action and map to none: the step keeps the call's text (`response`) instead.
 * Tool input is model output: read defensively, never trusted.
 */
import type { Action } from "@retrace-cua/core/action";

/** Stagehand tools that only read the page (or end the run): not agent steps. */
export const STAGEHAND_READ_ONLY_TOOLS: readonly string[] = [
  "screenshot",
  "ariaTree",
  "extract",
  "think",
  "wait",
  "search",
  "done",
];

const KEY_NAMES: Record<string, string> = {
  control: "ctrl",
  meta: "command",
  cmd: "command",
  return: "enter",
  escape: "esc",
  arrowup: "up",
  arrowdown: "down",
  arrowleft: "left",
  arrowright: "right",
  " ": "space",
};

/** A key name as pyautogui's lower-case name ("Control" -> "ctrl", "ArrowDown" -> "down"). */
function keyName(k: string): string {
  const lower = k.trim().toLowerCase();
  return KEY_NAMES[lower] ?? lower;
}

function point(v: unknown): { x: number; y: number } | undefined {
  if (Array.isArray(v) && typeof v[0] === "number" && typeof v[1] === "number") return { x: v[0], y: v[1] };
  if (
    v &&
    typeof v === "object" &&
    typeof (v as { x?: unknown }).x === "number" &&
    typeof (v as { y?: unknown }).y === "number"
  )
    return { x: (v as { x: number }).x, y: (v as { y: number }).y };
  return undefined;
}

/** The retrace Actions one Stagehand tool call stands for (none when it has no screen action). */
export function stagehandToolCallToActions(toolName: string, input: unknown): Action[] {
  const i = (input && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const at = point(i.coordinates);
  switch (toolName) {
    case "click":
      return at ? [{ type: "CLICK", ...at, button: "left", numClicks: 1 }] : [];
    case "type":
      return typeof i.text === "string"
        ? [
            ...(at ? [{ type: "CLICK" as const, ...at, button: "left" as const, numClicks: 1 }] : []),
            { type: "TYPING", text: i.text },
          ]
        : [];
    case "clickAndHold":
      return at
        ? [
            { type: "MOVE_TO", ...at },
            { type: "MOUSE_DOWN", button: "left" },
            { type: "WAIT", seconds: typeof i.duration === "number" ? i.duration / 1000 : undefined },
            { type: "MOUSE_UP", button: "left" },
          ]
        : [];
    case "dragAndDrop": {
      const from = point(i.startCoordinates);
      const to = point(i.endCoordinates);
      return from && to
        ? [
            { type: "MOVE_TO", ...from },
            { type: "DRAG_TO", ...to },
          ]
        : [];
    }
    case "scroll": {
      const pct = typeof i.percentage === "number" ? i.percentage : 80;
      const clicks = Math.max(1, Math.round(pct / 10));
      return i.direction === "up" || i.direction === "down"
        ? [{ type: "SCROLL", dx: 0, dy: i.direction === "up" ? clicks : -clicks, ...(at ?? {}) }]
        : [];
    }
    case "keys": {
      if (typeof i.value !== "string" || i.value.length === 0) return [];
      if (i.method === "type") return [{ type: "TYPING", text: i.value }];
      const keys = i.value.split("+").map(keyName).filter(Boolean);
      const one: Action = keys.length === 1 ? { type: "PRESS", key: keys[0] } : { type: "HOTKEY", keys };
      const times = typeof i.repeat === "number" && i.repeat > 1 ? Math.min(Math.floor(i.repeat), 50) : 1;
      return Array.from({ length: times }, () => one);
    }
    case "fillFormVision": {
      const fields = Array.isArray(i.fields) ? (i.fields as Record<string, unknown>[]) : [];
      return fields.flatMap((f): Action[] => {
        const p = point(f?.coordinates);
        return p && typeof f.value === "string"
          ? [
              { type: "CLICK", ...p, button: "left", numClicks: 1 },
              { type: "TYPING", text: f.value },
            ]
          : [];
      });
    }
    default:
      return [];
  }
}
