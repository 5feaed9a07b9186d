/**
 * Explicit recovery, instruction prefix.
 * Purpose: the per-step user instruction of the recovery agent. Prepended to the forward model's
 *   own per-step instruction (which still carries the original task, for context only).
 * Used by: the `recover` node through packages/models/src/llm/recoverer.ts (createLlmRecoveryPolicy).
 * Variables:
 *   target_step    - R, the step whose state must be restored;
 *   error_step     - E, the step judged to have gone wrong;
 *   context_note   - one sentence describing what recovery context is given (history, summary, none;
 *                    the sentences live in packages/models/src/llm/recoverer.ts). v2: the 0-E sentence says
 *                    the history runs up to the current screen (every step after the wrong one
 *                    included), as the 0-E context now does; v1 said "up to and including the
 *                    wrong step";
 *   steps_left     - recovery actions still allowed in this attempt;
 *   restored_token - the word that declares the target reached.
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "recovery.instruction-prefix",
  version: "2",
  usedBy: "recover (packages/models/src/llm/recoverer.ts)",
  variables: ["target_step", "error_step", "context_note", "steps_left", "restored_token"],
  template: `Restore the desktop to the TARGET state: the state just before step {{target_step}} of the earlier run, shown in the TARGET screenshot. The run went wrong from step {{error_step}} on. {{context_note}}
You have at most {{steps_left}} more action step(s) for this. If the current screen already matches the TARGET state, reply with {{restored_token}} alone. Otherwise give the next action that moves the desktop back toward the TARGET state.

The original task is repeated below only so you understand what the TARGET state is for. Do not work on it now.`,
});
