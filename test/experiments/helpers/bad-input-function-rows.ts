/**
 * Bad-input corpus rows of model and task text: action strings and OSWorld task files fed to the
 * parsers, which must refuse them with one line naming what is wrong, never run them.
 */
import { parsePyautogui } from "../../../packages/models/src/actions/pyautogui/convert.ts";
import { uiTarsToActions } from "../../../packages/models/src/actions/uitars/convert.ts";
import { openAIComputerActionToActions } from "../../../packages/models/src/actions/openai-cua/convert.ts";
import { anthropicComputerInputToActions } from "../../../packages/models/src/actions/anthropic/convert.ts";
import { parseOsworldTask } from "../../../packages/desktops/src/osworld/tasks.ts";

export interface FunctionRow {
  name: string;
  /** Returns the one-line refusal (a thrown error's message or a rejection reason). */
  run: () => string;
  error: RegExp;
}

const thrown = (f: () => unknown): string => {
  try {
    const v = f();
    return `no error: ${JSON.stringify(v)}`;
  } catch (err) {
    return (err as Error).message;
  }
};
const osworld = (text: string, file = "/tasks/chrome/t1.json") => {
  const r = parseOsworldTask(text, file, "chrome");
  return "reason" in r ? r.reason : `accepted ${r.id}`;
};
const OSW = {
  id: "t1",
  snapshot: "chrome",
  instruction: "Open the settings.",
  source: "",
  config: [],
  trajectory: "trajectories/",
  related_apps: ["chrome"],
  evaluator: {
    func: "exact_match",
    result: { type: "vm_command_line", command: "true" },
    expected: { type: "rule", rules: { expected: "" } },
  },
};

export const FUNCTION_ROWS: FunctionRow[] = [
  {
    name: "pyautogui: os.system",
    run: () => thrown(() => parsePyautogui("import os\nos.system('touch /tmp/pwned')")),
    error: /import|os/,
  },
  {
    name: "pyautogui: __import__",
    run: () => thrown(() => parsePyautogui("__import__('os').system('id')")),
    error: /__import__|not (allowed|supported)/,
  },
  { name: "pyautogui: eval", run: () => thrown(() => parsePyautogui("eval('1+1')")), error: /eval/ },
  { name: "pyautogui: unclosed call", run: () => thrown(() => parsePyautogui("pyautogui.click(")), error: /.+/ },
  {
    name: "pyautogui: unknown function",
    run: () => thrown(() => parsePyautogui("pyautogui.format_disk()")),
    error: /format_disk/,
  },
  {
    name: "pyautogui: subprocess",
    run: () => thrown(() => parsePyautogui("import subprocess; subprocess.run(['id'])")),
    error: /subprocess|import/,
  },
  {
    name: "UI-TARS: unknown action",
    run: () =>
      thrown(() => uiTarsToActions("Thought: x\nAction: rm(path='/')", { screen: { width: 1280, height: 800 } })),
    error: /rm/,
  },
  {
    name: "UI-TARS: coordinates not numbers",
    run: () =>
      thrown(() => uiTarsToActions("Action: click(start_box='(abc,def)')", { screen: { width: 1280, height: 800 } })),
    error: /start_box|coordinate|abc/i,
  },
  {
    name: "OpenAI computer use: unknown action",
    run: () => thrown(() => openAIComputerActionToActions({ type: "teleport" } as never)),
    error: /teleport/,
  },
  {
    name: "Anthropic computer use: unknown action",
    run: () => thrown(() => anthropicComputerInputToActions({ action: "format_disk" } as never)),
    error: /format_disk/,
  },
  { name: "OSWorld task: not JSON", run: () => osworld("{ nope"), error: /not valid JSON/ },
  {
    name: "OSWorld task: no instruction",
    run: () => osworld(JSON.stringify({ ...OSW, instruction: undefined })),
    error: /^instruction: /,
  },
  {
    name: "OSWorld task: id does not match the file",
    run: () => osworld(JSON.stringify({ ...OSW, id: "t2" })),
    error: /id "t2" does not match the file name/,
  },
  {
    name: "OSWorld task: no evaluator",
    run: () => osworld(JSON.stringify({ ...OSW, evaluator: undefined })),
    error: /^evaluator: /,
  },
  {
    name: "OSWorld task: config is not a list",
    run: () => osworld(JSON.stringify({ ...OSW, config: "setup" })),
    error: /^config: /,
  },
];
