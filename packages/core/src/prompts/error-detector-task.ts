/**
 * Error-step detector, production layout: the task prefix (first text part of the user message).
 * Purpose: the stable part of every judge request of an episode (system + this text never change
 *   from step to step), so provider prefix caches hit; the history follows append-only, the
 *   current screen and the question (error-detector.question) come last.
 * Used by: the `production` detection preset through packages/models/src/llm/detector.ts
 *   (createLlmErrorDetector with `layout: "cached"`). The paper preset keeps error-detector.user.
 * Variables:
 *   instruction - the user's task, verbatim.
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "error-detector.task",
  version: "1",
  usedBy: "detect, production preset (packages/models/src/llm/detector.ts, layout cached)",
  variables: ["instruction"],
  template: `Task given to the agent:
{{instruction}}

Below is each step's action, oldest first; for the most recent steps, the screen each action left follows it (as the lines of the accessibility tree it changed, when the screen is given as a tree). The last screen shown is the screen as it is now.`,
});
