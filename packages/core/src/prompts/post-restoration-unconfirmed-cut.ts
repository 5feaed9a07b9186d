/**
 * Post-restoration notice after a restoration that was NOT confirmed, history cut to R
 * (`unconfirmedRestoration: "disclose-and-cut"`).
 * Purpose: the paper's cut of the history to the recovery boundary, without the paper's claim
 *   that the environment has been recovered: the forward agent is told the return to step R could
 *   not be confirmed, so it looks at the screen before acting.
 * Used by: the `restore-context` node (packages/graphs/src/), which puts the rendered text in
 *   PolicyInput.notice; the SDK wrappers and the LangChain middleware
 *   (packages/core/src/runtime/step-recovery.ts), which append it as a user message.
 * Variables:
 *   step - R, the step whose state the recovery tried to bring back (history now holds 0..R-1).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "post-restoration.unconfirmed-cut",
  version: "1",
  usedBy:
    "restore-context (packages/graphs/src/), StepRecovery (packages/sdk-shared/src/: SDK wrappers, recoveryMiddleware)",
  variables: ["step"],
  template: `Note: your history was cut back to step {{step}} because later actions went off track, and the environment was to be returned to the state it had at step {{step}}, but that could not be confirmed. Look at the current screen before acting: it may not match your history.`,
});
