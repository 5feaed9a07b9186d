import { describe, expect, it } from "vitest";
import {
  parsePyautogui,
  pyautoguiResponseToActions,
  extractCodeBlocks,
} from "../../../packages/models/src/actions/pyautogui/convert.ts";
import { ActionFormatError } from "../../../packages/models/src/actions/errors.ts";
import { ModelBehaviorError } from "../../../packages/core/src/errors.ts";
import { ActionSchema } from "../../../packages/core/src/action.ts";

function failureOf(fn: () => unknown): ActionFormatError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ActionFormatError);
    expect(err).toBeInstanceOf(ModelBehaviorError);
    return err as ActionFormatError;
  }
  throw new Error("expected the parser to reject the code");
}

describe("pyautogui parser", () => {
  it("parses a multi-statement OSWorld-style block with imports, sleeps and comments", () => {
    const code = `import pyautogui
import time
# open the File menu
pyautogui.click(35, 12)
time.sleep(0.5)
pyautogui.typewrite('report.txt', interval=0.05)  # type the name
pyautogui.press('enter')`;
    const actions = parsePyautogui(code);
    expect(actions).toEqual([
      { type: "CLICK", x: 35, y: 12, button: "left", numClicks: 1 },
      { type: "WAIT", seconds: 0.5 },
      { type: "TYPING", text: "report.txt" },
      { type: "PRESS", key: "enter" },
    ]);
    for (const a of actions) expect(ActionSchema.parse(a)).toEqual(a);
  });

  it("maps every supported pyautogui call to the matching action", () => {
    const code = [
      "pyautogui.click(x=100, y=200, button='right')",
      "pyautogui.click(10, 20, clicks=2)",
      "pyautogui.doubleClick(300, 400)",
      "pyautogui.tripleClick(5, 6)",
      "pyautogui.rightClick(7, 8)",
      "pyautogui.middleClick(9, 10)",
      "pyautogui.moveTo(50, 60, duration=0.3)",
      "pyautogui.dragTo(70, 80, duration=1.0, button='left')",
      "pyautogui.scroll(-5)",
      "pyautogui.scroll(3, x=640, y=400)",
      "pyautogui.hscroll(2)",
      "pyautogui.hotkey('ctrl', 'shift', 't')",
      "pyautogui.keyDown('shift'); pyautogui.keyUp('shift')",
      "pyautogui.mouseDown(1, 2); pyautogui.mouseUp(button='left')",
      "pyautogui.press(['down', 'down', 'enter'])",
      "pyautogui.press('tab', presses=2)",
      "pyautogui.write('a\\tb\\n')",
      "pyautogui.click()",
    ].join("\n");
    expect(parsePyautogui(code)).toEqual([
      { type: "CLICK", x: 100, y: 200, button: "right", numClicks: 1 },
      { type: "CLICK", x: 10, y: 20, button: "left", numClicks: 2 },
      { type: "DOUBLE_CLICK", x: 300, y: 400 },
      { type: "CLICK", x: 5, y: 6, button: "left", numClicks: 3 },
      { type: "RIGHT_CLICK", x: 7, y: 8 },
      { type: "CLICK", x: 9, y: 10, button: "middle", numClicks: 1 },
      { type: "MOVE_TO", x: 50, y: 60 },
      { type: "DRAG_TO", x: 70, y: 80 },
      { type: "SCROLL", dx: 0, dy: -5 },
      { type: "SCROLL", dx: 0, dy: 3, x: 640, y: 400 },
      { type: "SCROLL", dx: 2, dy: 0 },
      { type: "HOTKEY", keys: ["ctrl", "shift", "t"] },
      { type: "KEY_DOWN", key: "shift" },
      { type: "KEY_UP", key: "shift" },
      { type: "MOVE_TO", x: 1, y: 2 },
      { type: "MOUSE_DOWN", button: "left" },
      { type: "MOUSE_UP", button: "left" },
      { type: "PRESS", key: "down" },
      { type: "PRESS", key: "down" },
      { type: "PRESS", key: "enter" },
      { type: "PRESS", key: "tab" },
      { type: "PRESS", key: "tab" },
      { type: "TYPING", text: "a\tb\n" },
      { type: "CLICK", button: "left", numClicks: 1 },
    ]);
  });

  it("decodes string literals with escapes, quotes, triple quotes and implicit concatenation", () => {
    expect(parsePyautogui(`pyautogui.write("He said \\"hi\\" \\u00e9")`)).toEqual([
      { type: "TYPING", text: 'He said "hi" é' },
    ]);
    expect(parsePyautogui(`pyautogui.write('it\\'s', interval=0.1)`)).toEqual([{ type: "TYPING", text: "it's" }]);
    expect(parsePyautogui(`pyautogui.typewrite("""line one\nline two""")`)).toEqual([
      { type: "TYPING", text: "line one\nline two" },
    ]);
    expect(parsePyautogui(`pyautogui.write('=SUM(' 'A1:A3)')`)).toEqual([{ type: "TYPING", text: "=SUM(A1:A3)" }]);
    expect(parsePyautogui(`pyautogui.write(r'C:\\new')`)).toEqual([{ type: "TYPING", text: "C:\\new" }]);
    expect(parsePyautogui(`pyautogui.write('# not a comment')  # a comment`)).toEqual([
      { type: "TYPING", text: "# not a comment" },
    ]);
  });

  it("computes variables, tuples, arithmetic, loops and aliases without executing anything", () => {
    const code = `import pyautogui as pg
from time import sleep
x, y = 640, 400
pg.click(x + 10, y // 2)
for _ in range(3):
    pg.press('down')
    sleep(0.1)
pg.moveTo((int(x * 1.5), 7))`;
    expect(parsePyautogui(code)).toEqual([
      { type: "CLICK", x: 650, y: 200, button: "left", numClicks: 1 },
      { type: "PRESS", key: "down" },
      { type: "WAIT", seconds: 0.1 },
      { type: "PRESS", key: "down" },
      { type: "WAIT", seconds: 0.1 },
      { type: "PRESS", key: "down" },
      { type: "WAIT", seconds: 0.1 },
      { type: "MOVE_TO", x: 960, y: 7 },
    ]);
  });

  it("normalises key spellings and rejects unknown keys", () => {
    expect(parsePyautogui("pyautogui.hotkey('Control', 'Return'); pyautogui.press('escape')")).toEqual([
      { type: "HOTKEY", keys: ["ctrl", "enter"] },
      { type: "PRESS", key: "esc" },
    ]);
    expect(failureOf(() => parsePyautogui("pyautogui.press('flux-capacitor')")).message).toMatch(
      /unknown key "flux-capacitor"/,
    );
  });

  it("scales coordinates and tracks the pointer for relative moves", () => {
    expect(parsePyautogui("pyautogui.click(500, 500)\npyautogui.moveRel(10, -10)", { scaleX: 2, scaleY: 0.5 })).toEqual(
      [
        { type: "CLICK", x: 1000, y: 250, button: "left", numClicks: 1 },
        { type: "MOVE_TO", x: 1020, y: 245 },
      ],
    );
    expect(failureOf(() => parsePyautogui("pyautogui.moveRel(10, 0)")).kind).toBe("unparseable");
    expect(
      parsePyautogui("w, h = pyautogui.size()\npyautogui.click(w / 2, h / 2)", {
        screen: { width: 1280, height: 800 },
      }),
    ).toEqual([{ type: "CLICK", x: 640, y: 400, button: "left", numClicks: 1 }]);
  });

  it("rejects host access as unsafe, never running it", () => {
    for (const code of [
      'import os; os.system("rm -rf /")',
      "import subprocess\nsubprocess.run(['rm', '-rf', '/'])",
      "open('/etc/passwd').read()",
      "exec('print(1)')",
      "__import__('os').system('id')",
      "pyautogui.click(1, 2)\nwith open('x', 'w') as f: f.write('y')",
      "from os import system\nsystem('id')",
      "pyautogui.click(1,2).__class__",
      "import pyautogui, shutil\nshutil.rmtree('/')",
      "x = 'a'\nx.join(['b'])",
    ]) {
      const err = failureOf(() => parsePyautogui(code));
      expect(err.kind, code).toBe("unsafe");
      expect(err.output).toBe(code);
    }
  });

  it("rejects code outside the subset as unparseable with a line number", () => {
    expect(failureOf(() => parsePyautogui("pyautogui.click(10, 20")).message).toMatch(/unclosed bracket/);
    expect(failureOf(() => parsePyautogui("while True:\n    pyautogui.press('a')")).message).toMatch(/"while"/);
    expect(failureOf(() => parsePyautogui("pyautogui.locateOnScreen('ok.png')")).message).toMatch(
      /line 1: pyautogui.locateOnScreen\(\) is not a supported action/,
    );
    expect(failureOf(() => parsePyautogui("pyautogui.click(1, 2, button='sideways')")).message).toMatch(
      /unknown mouse button/,
    );
    expect(failureOf(() => parsePyautogui("pyautogui.click(1, 2, foo=3)")).message).toMatch(/unexpected keyword "foo"/);
    expect(failureOf(() => parsePyautogui("pyautogui.write(f'{x}')")).message).toMatch(/f-strings/);
    expect(failureOf(() => parsePyautogui("for i in range(1000):\n  pyautogui.press('a')")).kind).toBe("unparseable");
    expect(failureOf(() => parsePyautogui("import pyautogui")).kind).toBe("empty");
  });

  it("reads whole responses: prose, fences, several blocks and the special answers", () => {
    const qwen = `I need to save the document. I'll press Ctrl+S and then confirm.
\`\`\`python
pyautogui.hotkey('ctrl', 's')
time.sleep(1)
\`\`\`
Then confirm the dialog:
\`\`\`
pyautogui.press('enter')
\`\`\``;
    expect(pyautoguiResponseToActions(qwen)).toEqual([
      { type: "HOTKEY", keys: ["ctrl", "s"] },
      { type: "WAIT", seconds: 1 },
      { type: "PRESS", key: "enter" },
    ]);
    expect(pyautoguiResponseToActions("DONE")).toEqual([{ type: "DONE" }]);
    expect(pyautoguiResponseToActions("The task is complete.\n```\nDONE\n```")).toEqual([{ type: "DONE" }]);
    expect(pyautoguiResponseToActions("```FAIL```")).toEqual([{ type: "FAIL" }]);
    expect(pyautoguiResponseToActions("The page is still loading, so I wait.\nWAIT")).toEqual([{ type: "WAIT" }]);
    expect(pyautoguiResponseToActions("pyautogui.click(3, 4)")).toEqual([
      { type: "CLICK", x: 3, y: 4, button: "left", numClicks: 1 },
    ]);
    expect(extractCodeBlocks("a ```py\nx()\n``` b ```\ny()```")).toEqual(["x()\n", "y()"]);
    expect(pyautoguiResponseToActions("Click it: ```pyautogui.click(7, 8)```")).toEqual([
      { type: "CLICK", x: 7, y: 8, button: "left", numClicks: 1 },
    ]);
    expect(pyautoguiResponseToActions("```Python3\npyautogui.FAILSAFE = False\npyautogui.sleep(2)\n```")).toEqual([
      { type: "WAIT", seconds: 2 },
    ]);
  });

  it("reports prose without code as empty and bad code in a fence with the whole response", () => {
    const prose = "I think I should click the Save button next.";
    const e1 = failureOf(() => pyautoguiResponseToActions(prose));
    expect(e1.kind).toBe("empty");
    expect(e1.output).toBe(prose);
    const bad = 'Cleaning up first.\n```python\nimport os; os.system("rm -rf /")\n```';
    const e2 = failureOf(() => pyautoguiResponseToActions(bad));
    expect(e2.kind).toBe("unsafe");
    expect(e2.output).toBe(bad);
  });
});
