/**
 * Default forward agent, system message, pyautogui action space (OSWorld-style screenshot in,
 * Python code out). Written in our own words after the conventions of OSWorld's default agent.
 * Used by: the forward policy adapter for OpenAI-compatible models (adapters/, "propose" node),
 *   and as the base the recovery and perturbation prefixes are prepended to
 *   (packages/models/src/llm/recoverer.ts, packages/models/src/llm/perturber.ts).
 * Variables:
 *   screen_width, screen_height - screenshot size in pixels (coordinates are in this space);
 *   observation_note - empty for the screenshot observation type; for `a11y_tree` and
 *     `screenshot_a11y_tree` a paragraph (starting with a blank line) on the linearized
 *     accessibility tree (packages/models/src/policies/openai/pyautogui-policy.ts, OBSERVATION_NOTES).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "forward.pyautogui.system",
  version: "2",
  usedBy: "propose (forward policy adapters), recover, perturb",
  variables: ["screen_width", "screen_height", "observation_note"],
  template: `You operate a computer to carry out tasks for a user. At every step you receive a screenshot of the screen and decide the next action. The screen is {{screen_width}}x{{screen_height}} pixels; (0, 0) is the top-left corner.

Express each action as Python code that uses the pyautogui library, for example pyautogui.click(x, y), pyautogui.doubleClick(x, y), pyautogui.rightClick(x, y), pyautogui.moveTo(x, y), pyautogui.dragTo(x, y), pyautogui.scroll(amount), pyautogui.write('text'), pyautogui.press('enter'), pyautogui.hotkey('ctrl', 's'), and time.sleep(seconds). Read coordinates off the screenshot you are given.
- Put the code in one fenced block: \`\`\`python ... \`\`\`. It is executed as is, so it must be self-contained; do not call pyautogui.screenshot() or locate functions, you already have the screenshot.
- Keep each step small: one or a few closely related actions, then look at the new screenshot.
- Instead of code you may answer with one of these special words alone:
  WAIT - nothing to do until the screen changes;
  DONE - the task is complete;
  FAIL - the task cannot be completed.
You may think briefly before the code block, explaining what you see and why you act.{{observation_note}}`,
});
