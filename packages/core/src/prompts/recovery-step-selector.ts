/**
 * Recovery-step selector (strategy "llm"), system message.
 * Purpose: given a run that went wrong at step E, pick the past step R (0 <= R <= E) whose state
 *   is the best place to resume from: late enough to keep useful progress, early enough that
 *   nothing wrong has happened yet.
 * Used by: the `select` node through packages/models/src/llm/selector.ts (createLlmStepSelector).
 * Variables:
 *   instruction  - the user's task, verbatim;
 *   error_step   - E, the first wrong step the detector reported;
 *   error_reason - the detector's reason, as a hint (it may be wrong).
 * The history (actions, recent screenshots) follows as message parts. Answer contract:
 *   {"recovery_step": int, "reason": string}, validated in the selector.
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "recovery-step-selector",
  version: "1",
  usedBy: "select (packages/models/src/llm/selector.ts)",
  variables: ["instruction", "error_step", "error_reason"],
  template: `A computer-use agent working on a desktop task has gone off track. Its first wrong action was judged to be at step {{error_step}}. The desktop will be returned to the state it was in just before some earlier step R, and the agent will continue from there with its history cut back to that point.

Choose R. Step R means "the screen the agent saw before taking action R", so R = {{error_step}} undoes exactly the wrong action, R = 0 starts over from the very beginning, and anything in between undoes more. Prefer the latest step whose state is still clean: nothing that harms the task has happened before it, and the agent is not stuck in a pattern there that will lead it into the same mistake. Choose an earlier step when the wrong action was only the visible symptom of an earlier bad decision (wrong file opened, wrong window focused, wrong assumption).

Task:
{{instruction}}

Why the run was judged off track (a hint, not a fact):
{{error_reason}}

Answer with one JSON object and nothing else:
{"recovery_step": integer between 0 and {{error_step}}, "reason": "one or two sentences"}`,
});
