import { describe, expect, it } from "vitest";
import { ActionSchema, type Action } from "../../../../packages/core/src/action.ts";
import { parsePyautogui } from "../../../../packages/models/src/actions/pyautogui/convert.ts";
import { actionToPyautogui } from "../../../../packages/desktops/src/osworld/environment.ts";

describe("actions as pyautogui code for OSWorld's /execute", () => {
  it("round-trips every executable action through the pyautogui parser", () => {
    const actions = [
      { type: "MOVE_TO", x: 10, y: 20 },
      { type: "CLICK", x: 10, y: 20, button: "right", numClicks: 2 },
      { type: "CLICK" },
      { type: "RIGHT_CLICK", x: 3, y: 4 },
      { type: "DOUBLE_CLICK", x: 3, y: 4 },
      { type: "MOUSE_DOWN", button: "left" },
      { type: "MOUSE_UP", button: "left" },
      { type: "DRAG_TO", x: 50, y: 60 },
      { type: "SCROLL", dx: 0, dy: -3, x: 5, y: 6 },
      { type: "TYPING", text: 'say "hi"\\n\n' },
      { type: "PRESS", key: "enter" },
      { type: "KEY_DOWN", key: "shift" },
      { type: "KEY_UP", key: "shift" },
      { type: "HOTKEY", keys: ["ctrl", "s"] },
    ].map((a) => ActionSchema.parse(a) as Action);
    for (const a of actions) {
      const code = actionToPyautogui(a)!;
      expect(parsePyautogui(code, { screen: { width: 1280, height: 800 } }).map((x) => ActionSchema.parse(x))).toEqual([
        a,
      ]);
    }
    expect(actionToPyautogui({ type: "DONE" })).toBeUndefined();
  });
});
