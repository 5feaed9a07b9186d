/**
 * Post-restoration notice after a restoration that was NOT confirmed, history kept
 * (`unconfirmedRestoration: "disclose-and-keep"`, retrace's default outside the paper presets).
 * Purpose: tell the forward agent the truth when the recovery sub-agent, the replay or the
 *   verifier could not confirm that the environment is back at step R: which step was judged off
 *   track, that the return to R is unconfirmed, and that its history was kept (the actions after R
 *   may still be in effect), so it looks at the screen before acting instead of trusting either
 *   its memory or a claim of recovery.
 * Used by: the `restore-context` node (packages/graphs/src/), which puts the rendered text in
 *   PolicyInput.notice; the SDK wrappers and the LangChain middleware
 *   (packages/core/src/runtime/step-recovery.ts), which append it as a user message.
 * Variables:
 *   step - R, the step whose state the recovery tried to bring back.
 *   errorStep - E, the step the detector judged off track.
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "post-restoration.unconfirmed-kept",
  version: "1",
  usedBy:
    "restore-context (packages/graphs/src/), StepRecovery (packages/sdk-shared/src/: SDK wrappers, recoveryMiddleware)",
  variables: ["step", "errorStep"],
  template: `Note: a check found that step {{errorStep}} went off track. An attempt to return the environment to the state it had at step {{step}} could not be confirmed, so your history was kept as it is. The environment may be anywhere between that state and where you left it: look at the current screen before acting, and continue the task from what it shows.`,
});
