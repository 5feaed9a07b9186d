/**
 * The transition string the forward policy sees after a recovery (paper App. B.2, "Post-recovery
 * context"), and the notice of guided recovery. Its own file so that the main entry exports them
 * without loading the graph (packages/graphs/src/load-graph.ts); the `restoreContext` node uses them.
 */
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import { TRANSITION_PROMPTS } from "@retrace-cua/core/prompts/index";
import type { TransitionString } from "@retrace-cua/core/episode";

/** `id@version` of the default (the paper's short) transition string, recorded in results. */
export const TRANSITION_PROMPT = promptRef(TRANSITION_PROMPTS.short);

/** `id@version` of the transition string of `kind` (option `transition`). */
export function transitionPromptRef(kind: TransitionString = "short"): string {
  return promptRef(TRANSITION_PROMPTS[kind]);
}

/** The transition string shown before the first forward decision after restoring to step R. */
export function transitionNotice(recoveryStep: number, kind: TransitionString = "short"): string {
  return renderPrompt(TRANSITION_PROMPTS[kind], { step: recoveryStep });
}

/** The notice for guided recovery (no restoration, history kept, the policy is told which step went wrong). */
export function guidedNotice(errorStep: number, reason: string): string {
  return `Note: a check of your trajectory found that step ${errorStep} went off track (${reason}). The environment was not restored. Look at the current screen and correct course before continuing the task.`;
}
