/**
 * Explicit recovery, instruction prefix, cache-friendly (`layout: "cached"` of the recovery agent;
 * the production recipe, docs/cost.md). The same instruction as `recovery.instruction-prefix@2`,
 * but without anything that changes between the calls of one attempt: the chat layouts repeat the
 * instruction on every earlier turn, so the paper's per-call `steps_left` there changed the prompt
 * right after the TARGET and the briefing, and a provider's prefix cache served only the part
 * before it. How many steps are left is told on the current turn alone (a notice line).
 * Used by: the `recover` node through packages/models/src/llm/recoverer.ts (createLlmRecoveryPolicy, layout "cached").
 * Variables:
 *   target_step    - R, the step whose state must be restored;
 *   error_step     - E, the step judged to have gone wrong;
 *   context_note   - one sentence describing what recovery context is given (as in v2 of the paper layout);
 *   budget         - recovery actions allowed in this attempt in all;
 *   restored_token - the word that declares the target reached.
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "recovery.instruction-prefix-stable",
  version: "1",
  usedBy: "recover (packages/models/src/llm/recoverer.ts, layout cached)",
  variables: ["target_step", "error_step", "context_note", "budget", "restored_token"],
  template: `Restore the desktop to the TARGET state: the state just before step {{target_step}} of the earlier run, shown in the TARGET screenshot. The run went wrong from step {{error_step}} on. {{context_note}}
You have at most {{budget}} action step(s) in all for this; the current screen says how many are left. If the current screen already matches the TARGET state, reply with {{restored_token}} alone. Otherwise give the next action that moves the desktop back toward the TARGET state.

The original task is repeated below only so you understand what the TARGET state is for. Do not work on it now.`,
});
