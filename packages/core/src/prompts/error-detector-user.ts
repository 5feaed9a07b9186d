/**
 * Error-step detector, user message (text part placed before the rendered history).
 * Purpose: give the detector the task, how many steps exist and the valid range of step indices;
 *   the history (actions per step, recent screenshots) and the newest screenshot follow as parts.
 * Used by: the `detect` node through packages/models/src/llm/detector.ts (createLlmErrorDetector).
 * Variables:
 *   instruction - the user's task, verbatim;
 *   step_count  - number of steps taken so far (history length t);
 *   last_step   - highest valid step index (t - 1).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "error-detector.user",
  version: "1",
  usedBy: "detect (packages/models/src/llm/detector.ts)",
  variables: ["instruction", "step_count", "last_step"],
  template: `Task given to the agent:
{{instruction}}

The agent has taken {{step_count}} step(s), numbered 0 to {{last_step}}. Below is each step's action (with the screenshot it acted on for the most recent steps), followed by the screen as it is now, after the last action.
Has the agent gone off track? If yes, "error_step" must be an integer between 0 and {{last_step}}.`,
});
