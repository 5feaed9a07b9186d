/**
 * Post-restoration transition string.
 * Purpose: the paper's "short transition string informing the agent that the environment has been
 *   recovered", prepended before the next forward decision (App. B.2, "Post-recovery context";
 *   `transition: "short"`, the default). It says only that: no advice on what to re-check, so the
 *   agent's own state tracking is what is measured (Sec. 6.3). v1 carried extra instructions; they
 *   are the `post-restoration.transition-detailed` variant now.
 * Used by: the `restore-context` node, which puts the rendered text in PolicyInput.notice; and
 *   packages/langchain/src/recovery-middleware.ts, which injects it as a message.
 * Variables:
 *   step - R, the step whose state was restored (history now holds steps 0..R-1).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "post-restoration.transition",
  version: "2",
  usedBy: "restore-context (packages/graphs/src/), recoveryMiddleware (packages/langchain/src/)",
  variables: ["step"],
  template: `Note: the environment has been recovered to the state it had at step {{step}}.`,
});
