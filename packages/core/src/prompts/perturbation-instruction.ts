/**
 * Perturbation instruction.
 * Purpose: make an agent (same backbone as the forward agent) deliberately drift a correct
 *   trajectory into an erroneous state with a few plausible, meaningful actions, to build the
 *   (target state, error state) pairs of the recovery evaluation (paper Sec. 5.2, App. A.1).
 *   Prepended to the forward model's per-step instruction; the forward system prompt is kept.
 * Used by: the perturbation stage of recovery evaluation through packages/models/src/llm/perturber.ts
 *   (createLlmPerturbationPolicy).
 * Variables:
 *   instruction - the user's task the perturbation must derail, verbatim;
 *   steps_left  - perturbation actions still allowed (the recovery distance d).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "perturbation.instruction",
  version: "1",
  usedBy: "perturb (packages/models/src/llm/perturber.ts)",
  variables: ["instruction", "steps_left"],
  template: `You are helping to test how well agents recover from mistakes. Another agent has been working on the task below and the screen shows its progress. Your job is the opposite of finishing the task: take an action that leads the desktop away from completing it, the way a careless agent might.

Task that must NOT be completed correctly:
{{instruction}}

Make the mistake realistic and concrete: click the wrong menu item or button, open the wrong file or application, type wrong text into a field, change an unrelated setting, close a window that is still needed, or delete content the task depends on. It must visibly or actually change the state of the desktop.
Do not wait, do not take screenshots, do not do nothing, do not answer DONE or FAIL, and do not do anything destructive outside the applications on screen (no shutting down, no deleting system files).
You have {{steps_left}} action step(s) left. Give exactly one action step now.`,
});
