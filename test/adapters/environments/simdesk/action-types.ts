/** One action of every computer_13 type (coordinates on a SimDesk at 1280x800). */
import type { Action } from "../../../../packages/core/src/action.ts";

export const ACTION_TYPES_FOR_TEST: Action[] = [
  { type: "MOVE_TO", x: 300, y: 200 },
  { type: "CLICK", x: 300, y: 200, button: "left", numClicks: 1 },
  { type: "CLICK", x: 300, y: 200, button: "middle", numClicks: 3 },
  { type: "MOUSE_DOWN", button: "left" },
  { type: "MOUSE_UP", button: "left" },
  { type: "RIGHT_CLICK", x: 300, y: 200 },
  { type: "PRESS", key: "escape" },
  { type: "DOUBLE_CLICK", x: 5000, y: -20 },
  { type: "DRAG_TO", x: 900, y: 700 },
  { type: "SCROLL", dx: 0, dy: 3 },
  { type: "TYPING", text: "hello\n" },
  { type: "KEY_DOWN", key: "shift" },
  { type: "KEY_UP", key: "shift" },
  { type: "HOTKEY", keys: ["ctrl", "alt", "t"] },
  { type: "WAIT", seconds: 1 },
  { type: "FAIL" },
  { type: "DONE" },
];
