/**
 * Explicit recovery, instruction prefix for tool-calling computer-use APIs (OpenAI computer use,
 * Anthropic computer use); the counterpart of recovery-instruction-prefix.ts (text action spaces).
 * The paper has two recovery instruction prefixes (Figs. 30, 32).
 * Purpose: the recovery agent's instruction. Prepended to the task the forward agent is given
 *   (which is repeated for context only).
 * Used by: the `recover` node through adapters/llm/recoverer.ts (createLlmRecoveryPolicy) with
 *   `agent.format` "openai-cua" or "anthropic".
 * Variables:
 *   target_step    - R, the step whose state must be restored;
 *   error_step     - E, the first step judged wrong;
 *   context_note   - one sentence describing what recovery context is given (history, summary, none;
 *                    adapters/llm/recoverer.ts). v2: the 0-E sentence says the history runs up to
 *                    the current screen, as the 0-E context now does;
 *   steps_left     - recovery actions still allowed in this attempt;
 *   restored_token - the word that declares the target reached.
 */
import { definePrompt } from "../src/prompt.ts";

export default definePrompt({
  id: "recovery.instruction-prefix.tool",
  version: "2",
  usedBy: "recover (adapters/llm/recoverer.ts, computer-tool formats)",
  variables: ["target_step", "error_step", "context_note", "steps_left", "restored_token"],
  template: `Restore the desktop to the TARGET state: the state just before step {{target_step}} of the earlier run, shown in the TARGET screenshot. The run went wrong from step {{error_step}} on. {{context_note}}
You have at most {{steps_left}} more action(s) for this. If the current screen already matches the TARGET state, answer {{restored_token}} as text without calling the computer tool. Otherwise use the computer tool for the next action that moves the desktop back toward the TARGET state.

The original task follows only so you understand what the TARGET state is for. Do not work on it now.
Original task:`,
});
