/**
 * The two action notations the stand-in reads and writes: pyautogui code (what it answers, as an
 * OSWorld-style agent does) and retrace's one-line action text (`formatAction`, what history
 * lines in retrace's prompts show), which it parses back.
 */
import type { Action } from "@retrace-cua/core/action";
import { pyautoguiResponseToActions } from "@retrace-cua/models/actions/pyautogui/convert";

const py = (s: string) =>
  `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n").replace(/\t/g, "\\t")}'`;

/** One action as a line of pyautogui code, or the special word (DONE, FAIL, WAIT). */
export function actionToCode(a: Action): string {
  const r = (n: number) => Math.round(n);
  switch (a.type) {
    case "CLICK":
      return `pyautogui.click(${r(a.x ?? 0)}, ${r(a.y ?? 0)}${a.button !== "left" ? `, button='${a.button}'` : ""}${a.numClicks > 1 ? `, clicks=${a.numClicks}` : ""})`;
    case "DOUBLE_CLICK":
      return `pyautogui.doubleClick(${r(a.x ?? 0)}, ${r(a.y ?? 0)})`;
    case "RIGHT_CLICK":
      return `pyautogui.rightClick(${r(a.x ?? 0)}, ${r(a.y ?? 0)})`;
    case "MOVE_TO":
      return `pyautogui.moveTo(${r(a.x)}, ${r(a.y)})`;
    case "DRAG_TO":
      return `pyautogui.dragTo(${r(a.x)}, ${r(a.y)})`;
    case "SCROLL":
      return `pyautogui.scroll(${r(a.dy ?? 0)}${a.x !== undefined && a.y !== undefined ? `, x=${r(a.x)}, y=${r(a.y)}` : ""})`;
    case "TYPING":
      return `pyautogui.write(${py(a.text)})`;
    case "PRESS":
      return `pyautogui.press(${py(a.key)})`;
    case "HOTKEY":
      return `pyautogui.hotkey(${a.keys.map(py).join(", ")})`;
    case "WAIT":
      return "WAIT";
    case "DONE":
    case "FAIL":
      return a.type;
    default:
      return "WAIT";
  }
}

/** A reply: a short thought, then the actions in one python block (or a special word alone). */
export function replyWith(thought: string, actions: readonly Action[]): string {
  if (actions.length === 1 && (actions[0].type === "DONE" || actions[0].type === "FAIL" || actions[0].type === "WAIT"))
    return `${thought}\n${actions[0].type}`;
  return `${thought}\n\`\`\`python\n${actions.map(actionToCode).join("\n")}\n\`\`\``;
}

/** Actions of an assistant answer in pyautogui form; [] when it has none. */
export function actionsOfAnswer(text: string): Action[] {
  try {
    return pyautoguiResponseToActions(text);
  } catch {
    return [];
  }
}

/** Parse retrace's action text (`formatAction`, several joined by "; "); unknown pieces are skipped. */
export function parseActionText(text: string): Action[] {
  const out: Action[] = [];
  let s = text.trim();
  while (s.length) {
    const m = /^([A-Z_]+)/.exec(s);
    if (!m) break;
    const type = m[1];
    s = s.slice(type.length);
    let arg = "";
    if (s.startsWith("(")) {
      if (type === "TYPING") {
        const end = jsonStringEnd(s, 1);
        arg = s.slice(1, end + 1);
        s = s.slice(end + 2);
      } else {
        const end = s.indexOf(")");
        arg = s.slice(1, end);
        s = s.slice(end + 1);
      }
    }
    s = s.replace(/^;\s*/, "");
    const a = actionOf(type, arg);
    if (a) out.push(a);
  }
  return out;
}

function jsonStringEnd(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === '"') return i;
  }
  return s.length - 1;
}

function actionOf(type: string, arg: string): Action | undefined {
  const nums = arg.split(",").map((x) => Number(x));
  switch (type) {
    case "CLICK": {
      const parts = arg.split(",");
      const button = parts.find((p) => p === "right" || p === "middle") as "right" | "middle" | undefined;
      const times = parts.find((p) => /^x\d$/.test(p));
      return {
        type: "CLICK",
        x: Number(parts[0]),
        y: Number(parts[1]),
        button: button ?? "left",
        numClicks: times ? Number(times.slice(1)) : 1,
      };
    }
    case "DOUBLE_CLICK":
    case "RIGHT_CLICK":
      return { type, x: nums[0], y: nums[1] };
    case "MOVE_TO":
    case "DRAG_TO":
      return { type, x: nums[0], y: nums[1] };
    case "TYPING":
      try {
        return { type: "TYPING", text: JSON.parse(arg) as string };
      } catch {
        return undefined;
      }
    case "PRESS":
      return { type: "PRESS", key: arg };
    case "HOTKEY":
      return { type: "HOTKEY", keys: arg.split("+") };
    case "SCROLL":
      return {
        type: "SCROLL",
        dx: nums[0] || 0,
        dy: nums[1] || 0,
        ...(nums.length >= 4 && { x: nums[2], y: nums[3] }),
      };
    case "WAIT":
      return { type: "WAIT" };
    case "DONE":
    case "FAIL":
      return { type };
    default:
      return undefined;
  }
}
