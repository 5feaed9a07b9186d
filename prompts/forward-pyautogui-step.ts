/**
 * Default forward agent, per-step instruction, pyautogui action space.
 * Purpose: the text sent with each new screenshot: the task, and the reminder of the answer
 *   format. The recovery and perturbation prefixes are prepended to it.
 * Used by: the forward policy adapter for OpenAI-compatible models (adapters/, "propose" node),
 *   adapters/llm/recoverer.ts and adapters/llm/perturber.ts.
 * Variables:
 *   instruction - the user's task, verbatim.
 */
import { definePrompt } from "../src/prompt.ts";

export default definePrompt({
  id: "forward.pyautogui.step",
  version: "1",
  usedBy: "propose (forward policy adapters), recover, perturb",
  variables: ["instruction"],
  template: `Task: {{instruction}}

Here is the current screenshot. Give the next step as a \`\`\`python\`\`\` code block using pyautogui, or one of WAIT, DONE, FAIL.`,
});
