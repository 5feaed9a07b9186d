/**
 * Error-step detector, production layout: the task prefix (first text part of the user message).
 * Purpose: the stable part of every judge request of an episode (system + this text never change
 *   from step to step), so provider prefix caches hit; the history follows append-only, the
 *   current screen and the question (error-detector.question) come last.
 * Used by: the `production` detection preset through adapters/llm/detector.ts
 *   (createLlmErrorDetector with `layout: "cached"`). The paper preset keeps error-detector.user.
 * Variables:
 *   instruction - the user's task, verbatim.
 */
import { definePrompt } from "../src/prompt.ts";

export default definePrompt({
  id: "error-detector.task",
  version: "1",
  usedBy: "detect, production preset (adapters/llm/detector.ts, layout cached)",
  variables: ["instruction"],
  template: `Task given to the agent:
{{instruction}}

Below are the agent's most recent steps, oldest first: the screen before the first of them, then each step's action and the screen it left. The screen as it is now and the question come last.`,
});
