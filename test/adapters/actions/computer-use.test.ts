import { describe, expect, it } from "vitest";
import { openAIComputerActionToActions } from "../../../packages/models/src/actions/openai-cua/convert.ts";
import {
  anthropicComputerInputToActions,
  xdotoolKeysToActions,
} from "../../../packages/models/src/actions/anthropic/convert.ts";
import { ActionFormatError } from "../../../packages/models/src/actions/errors.ts";

describe("OpenAI computer-use converter", () => {
  it("maps every computer_call action type", () => {
    const cases: [Record<string, unknown>, unknown][] = [
      [
        { type: "click", x: 10.4, y: 20, button: "left" },
        [{ type: "CLICK", x: 10, y: 20, button: "left", numClicks: 1 }],
      ],
      [{ type: "click", x: 1, y: 2, button: "wheel" }, [{ type: "CLICK", x: 1, y: 2, button: "middle", numClicks: 1 }]],
      [{ type: "double_click", x: 5, y: 6 }, [{ type: "DOUBLE_CLICK", x: 5, y: 6 }]],
      [{ type: "move", x: 7, y: 8 }, [{ type: "MOVE_TO", x: 7, y: 8 }]],
      [
        {
          type: "drag",
          path: [
            { x: 1, y: 1 },
            { x: 9, y: 9 },
          ],
        },
        [
          { type: "MOVE_TO", x: 1, y: 1 },
          { type: "DRAG_TO", x: 9, y: 9 },
        ],
      ],
      [{ type: "keypress", keys: ["CTRL", "S"] }, [{ type: "HOTKEY", keys: ["ctrl", "s"] }]],
      [{ type: "keypress", keys: ["ENTER"] }, [{ type: "PRESS", key: "enter" }]],
      [{ type: "type", text: "hi there" }, [{ type: "TYPING", text: "hi there" }]],
      [
        { type: "scroll", x: 100, y: 200, scroll_x: 0, scroll_y: 300 },
        [{ type: "SCROLL", dx: 0, dy: -3, x: 100, y: 200 }],
      ],
      [
        { type: "scroll", x: 100, y: 200, scroll_x: 0, scroll_y: -40 },
        [{ type: "SCROLL", dx: 0, dy: 1, x: 100, y: 200 }],
      ],
      [{ type: "wait" }, [{ type: "WAIT", seconds: 2 }]],
      [{ type: "screenshot" }, [{ type: "WAIT", seconds: 0 }]],
    ];
    for (const [input, expected] of cases)
      expect(openAIComputerActionToActions(input as never), JSON.stringify(input)).toEqual(expected);
    expect(
      openAIComputerActionToActions({
        type: "drag",
        path: [
          { x: 0, y: 0 },
          { x: 5, y: 5 },
          { x: 9, y: 0 },
        ],
      }),
    ).toEqual([
      { type: "MOVE_TO", x: 0, y: 0 },
      { type: "MOUSE_DOWN", button: "left" },
      { type: "MOVE_TO", x: 5, y: 5 },
      { type: "MOVE_TO", x: 9, y: 0 },
      { type: "MOUSE_UP", button: "left" },
    ]);
  });

  it("rejects malformed actions as unparseable", () => {
    for (const bad of [
      { type: "click", x: "a", y: 1 },
      { type: "teleport" },
      { type: "keypress", keys: ["HYPERDRIVE"] },
      { type: "click", x: 1, y: 1, button: "back" },
    ]) {
      expect(() => openAIComputerActionToActions(bad as never)).toThrow(ActionFormatError);
    }
  });
});

describe("Anthropic computer-use converter", () => {
  it("maps the computer tool's actions, xdotool key names included", () => {
    const cases: [Record<string, unknown>, unknown][] = [
      [
        { action: "left_click", coordinate: [100, 200] },
        [{ type: "CLICK", x: 100, y: 200, button: "left", numClicks: 1 }],
      ],
      [{ action: "right_click", coordinate: [1, 2] }, [{ type: "RIGHT_CLICK", x: 1, y: 2 }]],
      [{ action: "double_click", coordinate: [3, 4] }, [{ type: "DOUBLE_CLICK", x: 3, y: 4 }]],
      [{ action: "triple_click", coordinate: [5, 6] }, [{ type: "CLICK", x: 5, y: 6, button: "left", numClicks: 3 }]],
      [{ action: "middle_click" }, [{ type: "CLICK", button: "middle", numClicks: 1 }]],
      [{ action: "mouse_move", coordinate: [7, 8] }, [{ type: "MOVE_TO", x: 7, y: 8 }]],
      [
        { action: "left_click_drag", start_coordinate: [1, 1], coordinate: [50, 60] },
        [
          { type: "MOVE_TO", x: 1, y: 1 },
          { type: "DRAG_TO", x: 50, y: 60 },
        ],
      ],
      [{ action: "key", text: "ctrl+s" }, [{ type: "HOTKEY", keys: ["ctrl", "s"] }]],
      [{ action: "key", text: "Return" }, [{ type: "PRESS", key: "enter" }]],
      [{ action: "key", text: "Page_Down" }, [{ type: "PRESS", key: "pagedown" }]],
      [{ action: "type", text: "Hello, world" }, [{ type: "TYPING", text: "Hello, world" }]],
      [
        { action: "scroll", coordinate: [640, 400], scroll_direction: "down", scroll_amount: 3 },
        [{ type: "SCROLL", dx: 0, dy: -3, x: 640, y: 400 }],
      ],
      [
        { action: "scroll", coordinate: [640, 400], scroll_direction: "left", scroll_amount: 2 },
        [{ type: "SCROLL", dx: -2, dy: 0, x: 640, y: 400 }],
      ],
      [{ action: "wait", duration: 1.5 }, [{ type: "WAIT", seconds: 1.5 }]],
      [{ action: "screenshot" }, [{ type: "WAIT", seconds: 0 }]],
      [{ action: "left_mouse_down" }, [{ type: "MOUSE_DOWN", button: "left" }]],
      [
        { action: "left_click", coordinate: [9, 9], text: "shift" },
        [
          { type: "KEY_DOWN", key: "shift" },
          { type: "CLICK", x: 9, y: 9, button: "left", numClicks: 1 },
          { type: "KEY_UP", key: "shift" },
        ],
      ],
      [
        { action: "hold_key", text: "alt", duration: 1 },
        [
          { type: "KEY_DOWN", key: "alt" },
          { type: "WAIT", seconds: 1 },
          { type: "KEY_UP", key: "alt" },
        ],
      ],
    ];
    for (const [input, expected] of cases)
      expect(anthropicComputerInputToActions(input as never), JSON.stringify(input)).toEqual(expected);
    expect(
      anthropicComputerInputToActions({ action: "left_click", coordinate: [100, 50] }, { scaleX: 1.5, scaleY: 2 }),
    ).toEqual([{ type: "CLICK", x: 150, y: 100, button: "left", numClicks: 1 }]);
    expect(xdotoolKeysToActions("ctrl+a BackSpace")).toEqual([
      { type: "HOTKEY", keys: ["ctrl", "a"] },
      { type: "PRESS", key: "backspace" },
    ]);
  });

  it("rejects malformed tool input as unparseable", () => {
    for (const bad of [
      { action: "left_click", coordinate: [1] },
      { action: "zoom" },
      { action: "key", text: "ctrl+warp" },
      { action: "scroll", scroll_direction: "diagonal" },
      {},
    ]) {
      expect(() => anthropicComputerInputToActions(bad as never), JSON.stringify(bad)).toThrow(ActionFormatError);
    }
  });
});
