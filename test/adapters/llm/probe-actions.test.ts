import { describe, expect, it } from "vitest";
import { acceptProbe } from "../../../packages/models/src/llm/probe-actions.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";

const plain: Observation = { screenshot: "0".repeat(64), width: 100, height: 100 };
const withTree: Observation = {
  ...plain,
  axTree: {
    role: "desktop frame",
    name: "",
    bounds: [0, 0, 100, 100],
    children: [
      { role: "menu", name: "File", bounds: [0, 0, 20, 10] },
      { role: "push button", name: "Delete", bounds: [30, 0, 20, 10] },
      {
        role: "tab list",
        name: "Pages",
        bounds: [0, 20, 100, 20],
        children: [
          { role: "tab", name: "A", bounds: [0, 20, 40, 20], states: ["selected"] },
          { role: "tab", name: "B", bounds: [50, 20, 40, 20] },
        ],
      },
    ],
  },
};

describe("read-only probing actions of the agentic verifier", () => {
  it("pairs each allowed action with the actions that undo it", () => {
    expect(acceptProbe({ type: "SCROLL", x: 5, y: 6, dy: -3 }, plain)).toEqual({
      action: { type: "SCROLL", x: 5, y: 6, dy: -3, dx: 0 },
      undo: [{ type: "SCROLL", x: 5, y: 6, dy: 3, dx: 0 }],
    });
    expect(acceptProbe({ type: "PRESS", key: "Tab" }, plain)).toEqual({
      action: { type: "PRESS", key: "tab" },
      undo: [{ type: "HOTKEY", keys: ["shift", "tab"] }],
    });
    expect(acceptProbe({ type: "PRESS", key: "escape" }, plain)).toEqual({
      action: { type: "PRESS", key: "escape" },
      undo: [],
    });
    expect(acceptProbe({ type: "HOTKEY", keys: ["ctrl", "tab"] }, plain)).toMatchObject({
      undo: [{ type: "HOTKEY", keys: ["ctrl", "shift", "tab"] }],
    });
    expect(acceptProbe({ type: "CLICK", x: 5, y: 5 }, withTree)).toMatchObject({
      undo: [{ type: "PRESS", key: "escape" }],
    });
    // switching to tab B is undone by clicking the tab selected before (A, centre 20,30)
    expect(acceptProbe({ type: "CLICK", x: 60, y: 30 }, withTree)).toMatchObject({
      undo: [{ type: "CLICK", x: 20, y: 30 }],
    });
  });

  it("refuses anything that could change the state, saying why", () => {
    expect(acceptProbe({ type: "PRESS", key: "delete" }, plain)).toEqual({
      refused: expect.stringMatching(/^key "delete" may change the state/),
    });
    expect(acceptProbe({ type: "HOTKEY", keys: ["ctrl", "s"] }, plain)).toEqual({
      refused: expect.stringMatching(/hotkey ctrl\+s may change the state/),
    });
    expect(acceptProbe({ type: "CLICK", x: 35, y: 5 }, withTree)).toEqual({
      refused: expect.stringMatching(/push button "Delete", not a menu or a tab/),
    });
    expect(acceptProbe({ type: "CLICK", x: 5, y: 5 }, plain)).toEqual({
      refused: expect.stringMatching(/no accessibility tree/),
    });
    expect(acceptProbe({ type: "SCROLL", x: 1, y: 1, dy: 0 }, plain)).toEqual({
      refused: expect.stringMatching(/does nothing/),
    });
  });
});
