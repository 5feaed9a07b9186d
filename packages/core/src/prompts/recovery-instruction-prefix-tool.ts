/**
 * Explicit recovery, instruction prefix for tool-calling computer-use APIs (OpenAI computer use,
 * Anthropic computer use); the counterpart of recovery-instruction-prefix.ts (text action spaces).
 * The paper has two recovery instruction prefixes (Figs. 30, 32).
 * Purpose: the recovery agent's instruction. Prepended to the task the forward agent is given
 *   (which is repeated for context only).
 * Used by: the `recover` node through packages/models/src/llm/recoverer.ts (createLlmRecoveryPolicy) with
 *   `agent.format` "openai-cua" or "anthropic".
 * Variables:
 *   target_step    - R, the step whose state must be restored;
 *   error_step     - E, the first step judged wrong;
 *   context_note   - one sentence describing what recovery context is given (history, summary, none;
 *                    packages/models/src/llm/recoverer.ts). v2: the 0-E sentence says the history runs up to
 *                    the current screen, as the 0-E context now does;
 *   steps_left     - recovery actions still allowed in this attempt;
 *   restored_token - the word that declares the target reached.
 */
import { definePrompt } from "../prompt.ts";
import textPrefix from "./recovery-instruction-prefix.ts";

// The first line (what to restore, where the run went wrong) is the text-action prefix's, word for
// word; how to act and how to say "restored" are this variant's own.
const WHAT_TO_RESTORE = textPrefix.template.split("\n")[0];

export default definePrompt({
  id: "recovery.instruction-prefix.tool",
  version: "2",
  usedBy: "recover (packages/models/src/llm/recoverer.ts, computer-tool formats)",
  variables: ["target_step", "error_step", "context_note", "steps_left", "restored_token"],
  template: `${WHAT_TO_RESTORE}
You have at most {{steps_left}} more action(s) for this. If the current screen already matches the TARGET state, answer {{restored_token}} as text without calling the computer tool. Otherwise use the computer tool for the next action that moves the desktop back toward the TARGET state.

The original task follows only so you understand what the TARGET state is for. Do not work on it now.
Original task:`,
});
