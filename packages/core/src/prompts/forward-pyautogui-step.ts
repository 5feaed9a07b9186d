/**
 * Default forward agent, per-step instruction, pyautogui action space.
 * Purpose: the text sent with each new screenshot: the task, and the reminder of the answer
 *   format. The recovery and perturbation prefixes are prepended to it.
 * Used by: the forward policy adapter for OpenAI-compatible models (adapters/, "propose" node),
 *   packages/models/src/llm/recoverer.ts and packages/models/src/llm/perturber.ts.
 * Variables:
 *   instruction - the user's task, verbatim;
 *   observation - what follows: "screenshot", "accessibility tree" or "screenshot and accessibility tree".
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "forward.pyautogui.step",
  version: "2",
  usedBy: "propose (forward policy adapters), recover, perturb",
  variables: ["instruction", "observation"],
  template: `Task: {{instruction}}

Here is the current {{observation}}. Give the next step as a \`\`\`python\`\`\` code block using pyautogui, or one of WAIT, DONE, FAIL.`,
});
