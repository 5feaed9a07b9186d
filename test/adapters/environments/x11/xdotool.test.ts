import { describe, expect, it } from "vitest";
import { ActionSchema, type Action } from "../../../../packages/core/src/action.ts";
import { keysym, planXdotool } from "../../../../packages/desktops/src/x11/xdotool.ts";
import { cellValue, parseCsv } from "../../../../packages/desktops/src/x11/oracle.ts";
import { packTar, unpackTar } from "../../../../packages/desktops/src/docker/tar.ts";
import { parseDesktopTask } from "../../../../packages/desktops/src/desktop-tasks/types.ts";
import { DESKTOP_TASKS } from "../../../../packages/desktops/src/desktop-tasks/tasks.ts";

const plan = (a: unknown) => planXdotool(ActionSchema.parse(a) as Action);

describe("xdotool mapping", () => {
  it("maps every action type to xdotool commands, a wait or nothing", () => {
    expect(plan({ type: "CLICK", x: 10.4, y: 20.6 })).toEqual({
      kind: "xdotool",
      argvs: [["xdotool", "mousemove", "10", "21", "click", "1"]],
    });
    expect(plan({ type: "CLICK", button: "right", numClicks: 2 })).toEqual({
      kind: "xdotool",
      argvs: [["xdotool", "click", "--repeat", "2", "--delay", "60", "3"]],
    });
    expect(plan({ type: "DOUBLE_CLICK", x: 1, y: 2 })).toMatchObject({
      argvs: [["xdotool", "mousemove", "1", "2", "click", "--repeat", "2", "--delay", "60", "1"]],
    });
    expect(plan({ type: "RIGHT_CLICK" })).toMatchObject({ argvs: [["xdotool", "click", "3"]] });
    expect(plan({ type: "MOVE_TO", x: 5, y: 6 })).toMatchObject({ argvs: [["xdotool", "mousemove", "5", "6"]] });
    expect(plan({ type: "DRAG_TO", x: 5, y: 6 })).toMatchObject({
      argvs: [["xdotool", "mousedown", "1", "mousemove", "5", "6", "mouseup", "1"]],
    });
    expect(plan({ type: "MOUSE_DOWN", button: "middle" })).toMatchObject({ argvs: [["xdotool", "mousedown", "2"]] });
    expect(plan({ type: "MOUSE_UP" })).toMatchObject({ argvs: [["xdotool", "mouseup", "1"]] });
    expect(plan({ type: "SCROLL", dx: 0, dy: 3 })).toMatchObject({
      argvs: [["xdotool", "click", "--repeat", "3", "--delay", "20", "4"]],
    });
    expect(plan({ type: "SCROLL", dx: -2, dy: -1, x: 1, y: 1 })).toMatchObject({
      argvs: [
        [
          "xdotool",
          "mousemove",
          "1",
          "1",
          "click",
          "--repeat",
          "1",
          "--delay",
          "20",
          "5",
          "click",
          "--repeat",
          "2",
          "--delay",
          "20",
          "6",
        ],
      ],
    });
    expect(plan({ type: "PRESS", key: "enter" })).toMatchObject({
      argvs: [["xdotool", "key", "--clearmodifiers", "Return"]],
    });
    expect(plan({ type: "KEY_DOWN", key: "shift" })).toMatchObject({
      argvs: [["xdotool", "keydown", "--clearmodifiers", "shift"]],
    });
    expect(plan({ type: "KEY_UP", key: "shift" })).toMatchObject({
      argvs: [["xdotool", "keyup", "--clearmodifiers", "shift"]],
    });
    expect(plan({ type: "HOTKEY", keys: ["ctrl", "shift", "pagedown"] })).toMatchObject({
      argvs: [["xdotool", "key", "--clearmodifiers", "ctrl+shift+Next"]],
    });
    expect(plan({ type: "WAIT", seconds: 0.5 })).toEqual({ kind: "wait", ms: 500 });
    expect(plan({ type: "WAIT", seconds: 999 })).toEqual({ kind: "wait", ms: 10_000 });
    expect(plan({ type: "DONE" })).toEqual({ kind: "none" });
    expect(plan({ type: "FAIL" })).toEqual({ kind: "none" });
  });

  it("types newlines as Enter presses, as pyautogui.write does", () => {
    expect(plan({ type: "TYPING", text: "a\nb\n" })).toEqual({
      kind: "xdotool",
      argvs: [
        ["xdotool", "type", "--delay", "12", "--", "a"],
        ["xdotool", "key", "Return"],
        ["xdotool", "type", "--delay", "12", "--", "b"],
        ["xdotool", "key", "Return"],
      ],
    });
    expect(plan({ type: "TYPING", text: "" })).toEqual({ kind: "none" });
  });

  it("turns an unknown key into a no-op with a reason instead of an exception", () => {
    expect(plan({ type: "PRESS", key: "hyperspace" })).toEqual({ kind: "invalid", reason: 'unknown key "hyperspace"' });
    expect(keysym("F12")).toBe("F12");
    expect(keysym("+")).toBe("plus");
    expect(keysym("A")).toBe("A");
  });
});

describe("desktop task helpers", () => {
  it("every real-app task validates, and has a plan ending in DONE and mistakes inside the plan", () => {
    expect(DESKTOP_TASKS.length).toBeGreaterThanOrEqual(10);
    expect(new Set(DESKTOP_TASKS.map((t) => t.id)).size).toBe(DESKTOP_TASKS.length);
    for (const t of DESKTOP_TASKS) {
      expect(() => parseDesktopTask(t)).not.toThrow();
      expect(t.plan.at(-1)).toEqual({ type: "DONE" });
      for (const m of t.mistakes) expect(m.atStep).toBeLessThan(t.plan.length);
    }
  });

  it("rejects a task with a bad setup, naming the field", () => {
    const bad = { ...DESKTOP_TASKS[0], setup: { files: { "/etc/passwd": "x" }, launch: [{ app: "mousepad" }] } };
    expect(() => parseDesktopTask(bad)).toThrow(/setup\.files/);
  });

  it("parses CSV as ssconvert writes it and reads cells by A1 name", () => {
    const grid = parseCsv('item,price\r\n"pears, ripe",4\n"say ""hi""",\n');
    expect(cellValue(grid, "A2")).toBe("pears, ripe");
    expect(cellValue(grid, "B2")).toBe("4");
    expect(cellValue(grid, "A3")).toBe('say "hi"');
    expect(cellValue(grid, "C9")).toBe("");
  });

  it("packs and unpacks tar archives for the container file API", () => {
    const long = `${"d".repeat(90)}/${"e".repeat(60)}/f.txt`;
    const tar = packTar(
      [
        { path: "a/b.txt", data: Buffer.from("hello") },
        { path: long, data: Buffer.alloc(1000, 7) },
      ],
      { uid: 1000, gid: 1000 },
    );
    const files = unpackTar(tar);
    expect(files.get("a/b.txt")?.toString()).toBe("hello");
    expect(files.get(long)?.length).toBe(1000);
  });
});
