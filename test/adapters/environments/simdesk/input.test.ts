import { describe, expect, it } from "vitest";
import type { Action } from "../../../../packages/core/src/action.ts";
import { ACTION_TYPES_FOR_TEST } from "./action-types.ts";
import type { SimDeskTask } from "../../../../packages/simdesk/src/simdesk.ts";
import { centerOf, makeDesk } from "./helpers.ts";

const LONG = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n");

const task: SimDeskTask = {
  id: "input-playground",
  env: "simdesk",
  instruction: "play",
  setup: {
    files: {
      "~/Documents/a.txt": "alpha\n",
      "~/Documents/b.txt": "beta\n",
      "~/Documents/long.txt": LONG,
      "~/Documents/t.csv": "1\n2\n",
    },
    open: [{ app: "files", cwd: "~/Documents" }],
  },
  evaluator: { checks: [] },
  plan: [],
  mistakes: [],
  horizon: "short",
};

async function setup() {
  const { desk } = makeDesk();
  await desk.reset(task);
  const at = async (role: string, name: string) => centerOf((await desk.observe()).axTree!, role, name);
  const click = async (role: string, name: string, extra: Partial<Action> = {}) => {
    const c = await at(role, name);
    return desk.step({ type: "CLICK", x: c.x, y: c.y, button: "left", numClicks: 1, ...extra } as Action);
  };
  return { desk, at, click };
}

describe("SimDesk input handling", () => {
  it("accepts every computer_13 action type without throwing", async () => {
    const { desk } = await setup();
    for (const a of ACTION_TYPES_FOR_TEST) {
      const out = await desk.step(a);
      expect(typeof out.info.noop).toBe("boolean");
    }
  });

  it("MOUSE_DOWN, MOVE_TO, MOUSE_UP drags a file onto Trash; ctrl held via KEY_DOWN multi-selects", async () => {
    const { desk, at, click } = await setup();
    const a = await at("list item", "a.txt");
    const trash = await at("list item", "Trash");
    await desk.step({ type: "MOVE_TO", ...a });
    await desk.step({ type: "MOUSE_DOWN", button: "left" });
    await desk.step({ type: "MOVE_TO", ...trash });
    await desk.step({ type: "MOUSE_UP", button: "left" });
    expect(desk.getState().trash.map((t) => t.key)).toEqual(["a.txt"]);
    await click("list item", "b.txt");
    await desk.step({ type: "KEY_DOWN", key: "ctrl" });
    await click("list item", "long.txt");
    await desk.step({ type: "KEY_UP", key: "ctrl" });
    const v = desk.getState().windows[0].view;
    expect(v.app === "files" && v.files.selected).toEqual(["b.txt", "long.txt"]);
  });

  it("DRAG_TO on a title bar moves the window; nextRestorativeAction drags it back", async () => {
    const { desk, at } = await setup();
    const target = (await desk.observe()).stateId!;
    const title = await at("title bar", "Documents - Files");
    await desk.step({ type: "MOVE_TO", ...title });
    await desk.step({ type: "DRAG_TO", x: title.x + 100, y: title.y + 50 });
    expect(desk.getState().windows[0]).toMatchObject({ x: 140, y: 106 });
    for (let i = 0; i < 4; i++) {
      const next = desk.nextRestorativeAction(target);
      if (next === null) break;
      expect(next).not.toBe("unreachable");
      if (next !== "unreachable") await desk.step(next.action);
    }
    expect(desk.nextRestorativeAction(target)).toBeNull();
  });

  it("scrolls a long document, types, undoes and redoes with shortcuts", async () => {
    const { desk, at } = await setup();
    const item = await at("list item", "long.txt");
    await desk.step({ type: "DOUBLE_CLICK", ...item });
    const text = await at("text", "Document");
    await desk.step({ type: "SCROLL", dx: 0, dy: -5, ...text });
    const ed = () => {
      const w = desk.getState().windows.find((x) => x.id === "editor")!;
      if (w.view.app !== "editor") throw new Error("no editor");
      return w.view.editor;
    };
    expect(ed().scroll).toBe(15);
    await desk.step({ type: "HOTKEY", keys: ["ctrl", "end"] });
    await desk.step({ type: "TYPING", text: "!" });
    expect(ed().text.endsWith("line 60!")).toBe(true);
    await desk.step({ type: "HOTKEY", keys: ["ctrl", "z"] });
    expect(ed().text).toBe(LONG);
    await desk.step({ type: "HOTKEY", keys: ["ctrl", "y"] });
    expect(ed().text.endsWith("!")).toBe(true);
    await desk.step({ type: "PRESS", key: "backspace" });
    expect(ed().text).toBe(LONG);
  });

  it("evaluates spreadsheet formulas, flags cycles and saves computed values as CSV", async () => {
    const { desk, at, click } = await setup();
    const item = await at("list item", "t.csv");
    await desk.step({ type: "DOUBLE_CLICK", ...item });
    await click("cell", "A3");
    await desk.step({ type: "TYPING", text: "=SUM(A1:A2)*2\n=A5\n=A4\n" });
    const cells = () =>
      JSON.stringify(
        (desk.getState().windows.find((w) => w.id === "sheet")!.view as { sheet: { cells: unknown } }).sheet.cells,
      );
    expect(cells()).toContain("=SUM(A1:A2)*2");
    await desk.step({ type: "HOTKEY", keys: ["ctrl", "s"] });
    expect(desk.getState().fs["/home/user/Documents/t.csv"]).toEqual({
      type: "file",
      text: "1\n2\n6\n#CYCLE\n#CYCLE\n",
    });
  });

  it("opens and closes menus: a right-click menu, Escape, and a click elsewhere", async () => {
    const { desk, at, click } = await setup();
    const a = await at("list item", "a.txt");
    await desk.step({ type: "RIGHT_CLICK", ...a });
    expect(desk.getState().menu?.name).toBe("context");
    await desk.step({ type: "PRESS", key: "esc" });
    expect(desk.getState().menu).toBeUndefined();
    await click("menu", "Edit");
    expect(desk.getState().menu?.name).toBe("Edit");
    const out = await desk.step({ type: "CLICK", x: 1200, y: 700, button: "left", numClicks: 1 });
    expect(out.info.noop).toBe(false);
    expect(desk.getState().menu).toBeUndefined();
  });
});
