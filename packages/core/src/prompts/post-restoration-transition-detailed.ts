/**
 * Post-restoration transition string, retrace's detailed variant (`transition: "detailed"`).
 * Beyond the paper's short note it tells the agent not to trust what it did after step R; that
 * instruction works against the very state-tracking failure the paper measures (Sec. 6.3), so it
 * is not the default. Kept so both can be run side by side.
 * Purpose: the note the forward agent sees before its first decision after a recovery, telling it
 *   the environment was brought back to an earlier step and its history was cut to that point, so
 *   it re-reads the screen instead of assuming the state it remembers. (This was
 *   `post-restoration.transition@1`.)
 * Used by: the `restore-context` node, which puts the rendered text in PolicyInput.notice; and
 *   packages/langchain/src/recovery-middleware.ts, which injects it as a message.
 * Variables:
 *   step - R, the step whose state was restored (history now holds steps 0..R-1).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "post-restoration.transition-detailed",
  version: "1",
  usedBy: "restore-context (packages/graphs/src/), recoveryMiddleware (packages/langchain/src/)",
  variables: ["step"],
  template: `Note: the environment has been recovered. Some of your later actions went off track, so the desktop was returned to the state it had at step {{step}}, and those later actions were removed from your history. The current screenshot shows the recovered state. Look at it carefully before acting, do not assume anything you did after step {{step}} still holds, and continue the task from here.`,
});
