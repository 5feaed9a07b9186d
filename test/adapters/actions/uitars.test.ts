import { describe, expect, it } from "vitest";
import { uiTarsToActions } from "../../../packages/models/src/actions/uitars/convert.ts";
import { ActionFormatError } from "../../../packages/models/src/actions/errors.ts";

const screen = { width: 1920, height: 1080 };

describe("UI-TARS converter", () => {
  it("reads Thought and a click with 0-1000 coordinates as pixels", () => {
    const r = uiTarsToActions(
      "Thought: The Save button is at the top left, I'll click it.\nAction: click(start_box='(100,200)')",
      { screen },
    );
    expect(r.thought).toBe("The Save button is at the top left, I'll click it.");
    expect(r.actions).toEqual([{ type: "CLICK", x: 192, y: 216, button: "left", numClicks: 1 }]);
  });

  it("understands box tokens, boxes, points and every action kind", () => {
    const text = `Thought: Several steps.
Action: left_double(start_box='<|box_start|>(500,500)<|box_end|>')

right_single(start_box='(0,0,100,100)')

drag(start_box='(10,10)', end_box='(20,20)')

hotkey(key='ctrl c')

type(content='hello\\n')

scroll(start_box='(500,500)', direction='down')

press(key='Return')

wait()`;
    expect(uiTarsToActions(text, { screen }).actions).toEqual([
      { type: "DOUBLE_CLICK", x: 960, y: 540 },
      { type: "RIGHT_CLICK", x: 96, y: 54 },
      { type: "MOVE_TO", x: 19, y: 11 },
      { type: "DRAG_TO", x: 38, y: 22 },
      { type: "HOTKEY", keys: ["ctrl", "c"] },
      { type: "TYPING", text: "hello\n" },
      { type: "SCROLL", dx: 0, dy: -5, x: 960, y: 540 },
      { type: "PRESS", key: "enter" },
      { type: "WAIT", seconds: 5 },
    ]);
    expect(
      uiTarsToActions("Thought: t\nAction: click(point='<point>640 400</point>')", { screen, coordinates: "absolute" })
        .actions,
    ).toEqual([{ type: "CLICK", x: 640, y: 400, button: "left", numClicks: 1 }]);
    expect(
      uiTarsToActions("Action: click(start_box='(640,400)')", { screen, coordinates: { width: 1280, height: 720 } })
        .actions,
    ).toEqual([{ type: "CLICK", x: 960, y: 600, button: "left", numClicks: 1 }]);
  });

  it("maps finished() to DONE and call_user() to FAIL, using the last Action line", () => {
    expect(
      uiTarsToActions("Thought: My Action: so far was fine.\nAction: finished(content='saved')", { screen }).actions,
    ).toEqual([{ type: "DONE" }]);
    expect(uiTarsToActions("Thought: I need a password.\nAction: call_user()", { screen }).actions).toEqual([
      { type: "FAIL" },
    ]);
  });

  it("reports unusable output as recorded failures with the raw response", () => {
    const cases: [string, string][] = [
      ["I will click the button.", "empty"],
      ["Thought: x\nAction: teleport(start_box='(1,1)')", "unparseable"],
      ["Thought: x\nAction: click(start_box='(1500,20)')", "unparseable"],
      ["Thought: x\nAction: click(start_box='(1,2)'", "unparseable"],
      ["Thought: x\nAction: scroll(direction='sideways')", "unparseable"],
    ];
    for (const [text, kind] of cases) {
      try {
        uiTarsToActions(text, { screen });
        throw new Error(`accepted: ${text}`);
      } catch (err) {
        expect(err, text).toBeInstanceOf(ActionFormatError);
        expect((err as ActionFormatError).kind, text).toBe(kind);
        expect((err as ActionFormatError).output).toBe(text);
      }
    }
  });
});
