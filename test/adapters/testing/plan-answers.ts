/** Test helper: realistic pyautogui answers (prose + fenced code) that carry out a plan, for scripted servers. */
import type { Action } from "../../../packages/core/src/action.ts";

/** pyautogui code for one action (the inverse of the pyautogui converter, for the actions plans use). */
export function actionToPyautogui(a: Action): string {
  switch (a.type) {
    case "CLICK":
      return a.numClicks > 1
        ? `pyautogui.click(${a.x}, ${a.y}, clicks=${a.numClicks}, button='${a.button}')`
        : a.button === "left"
          ? `pyautogui.click(${a.x}, ${a.y})`
          : `pyautogui.click(${a.x}, ${a.y}, button='${a.button}')`;
    case "DOUBLE_CLICK":
      return `pyautogui.doubleClick(${a.x}, ${a.y})`;
    case "RIGHT_CLICK":
      return `pyautogui.rightClick(${a.x}, ${a.y})`;
    case "MOVE_TO":
      return `pyautogui.moveTo(${a.x}, ${a.y}, duration=0.2)`;
    case "DRAG_TO":
      return `pyautogui.dragTo(${a.x}, ${a.y}, duration=0.5)`;
    case "TYPING":
      return `pyautogui.typewrite(${JSON.stringify(a.text)}, interval=0.02)`;
    case "PRESS":
      return `pyautogui.press('${a.key}')`;
    case "HOTKEY":
      return `pyautogui.hotkey(${a.keys.map((k) => `'${k}'`).join(", ")})`;
    default:
      throw new Error(`no pyautogui form for ${a.type} in this helper`);
  }
}

/** One answer per plan action, in the style of Qwen/EvoCUA, then DONE. */
export function planAnswers(plan: readonly Action[]): string[] {
  return [
    ...plan.map(
      (a, i) =>
        `Step ${i + 1}: looking at the screen, the next thing to do is this.\n\`\`\`python\nimport pyautogui\n${actionToPyautogui(a)}\n\`\`\``,
    ),
    "The task is complete.\n```\nDONE\n```",
  ];
}

/** Anthropic tool_use content per plan action (left clicks only), then a closing text. */
export function planAnthropicSteps(plan: readonly Action[]): { content?: unknown[]; text?: string }[] {
  return [
    ...plan.map((a, i) => {
      if (a.type !== "CLICK") throw new Error(`helper handles CLICK only, got ${a.type}`);
      return {
        content: [
          { type: "text", text: `Clicking target ${i + 1}.` },
          {
            type: "tool_use",
            id: `toolu_${i}`,
            name: "computer",
            input: { action: "left_click", coordinate: [a.x, a.y] },
          },
        ],
      };
    }),
    { text: "I have completed the task." },
  ];
}

/** OpenAI computer_call output items per plan action (left clicks only), then a closing message. */
export function planOpenAICuaSteps(plan: readonly Action[]): { output?: unknown[]; text?: string }[] {
  return [
    ...plan.map((a, i) => {
      if (a.type !== "CLICK") throw new Error(`helper handles CLICK only, got ${a.type}`);
      return {
        output: [
          {
            type: "computer_call",
            id: `cu_${i}`,
            call_id: `call_${i}`,
            action: { type: "click", x: a.x, y: a.y, button: "left" },
            pending_safety_checks: [],
            status: "completed",
          },
        ],
      };
    }),
    { text: "Done: the file is in the Trash." },
  ];
}
