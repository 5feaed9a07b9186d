/**
 * Error-step detector, production layout: the question (last text part of the user message).
 * Purpose: everything that changes from step to step (the step count, the valid range of
 *   error_step) sits after the append-only history, so it never breaks the cached prefix.
 * Used by: the `production` detection preset through packages/models/src/llm/detector.ts
 *   (createLlmErrorDetector with `layout: "cached"`).
 * Variables:
 *   step_count  - number of steps taken so far (history length t);
 *   first_shown - the earliest step whose screen is shown (the window's start);
 *   last_step   - highest valid step index (t - 1).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "error-detector.question",
  version: "1",
  usedBy: "detect, production preset (packages/models/src/llm/detector.ts, layout cached)",
  variables: ["step_count", "first_shown", "last_step"],
  template: `The agent has taken {{step_count}} step(s), numbered 0 to {{last_step}}; the screens after steps {{first_shown}} to {{last_step}} are shown above.
Has the agent gone off track? If yes, "error_step" must be an integer between 0 and {{last_step}}, normally one of the steps shown.`,
});
