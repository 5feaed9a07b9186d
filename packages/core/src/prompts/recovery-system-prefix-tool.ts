/**
 * Explicit recovery, system prefix for tool-calling computer-use APIs (OpenAI computer use,
 * Anthropic computer use). The paper has two recovery system prefixes (Figs. 29, 31); retrace
 * keeps one for text action spaces (recovery-system-prefix.ts: pyautogui code, UI-TARS calls) and
 * this one for agents that act through a computer tool and have no code to leave out.
 * Purpose: turn the forward agent (same backbone, same default system prompt) into a recovery agent
 *   whose only goal is to bring the desktop back to a past target state. Prepended to the forward
 *   agent's own system prompt (sent as `instructions` for OpenAI computer use, which has none).
 * Used by: the `recover` node through packages/models/src/llm/recoverer.ts (createLlmRecoveryPolicy) with
 *   `agent.format` "openai-cua" or "anthropic".
 * Variables:
 *   restored_token - the word the agent replies with, as text and without a tool call, once the
 *                    target is reached (RESTORED_TOKEN in packages/models/src/llm/recoverer.ts).
 */
import { definePrompt } from "../prompt.ts";
import textPrefix from "./recovery-system-prefix.ts";
import { InternalError } from "../errors.ts";

// The opening and the first three rules are the text-action prefix's, word for word; the last two
// rules (how to act, how to say "restored") are this variant's own.
const OWN_RULES = "\n- Take one small";
if (!textPrefix.template.includes(OWN_RULES))
  throw new InternalError("recovery.system-prefix.tool: the text-action prefix lost its step rule");
const SHARED = textPrefix.template.slice(0, textPrefix.template.indexOf(OWN_RULES));

export default definePrompt({
  id: "recovery.system-prefix.tool",
  version: "1",
  usedBy: "recover (packages/models/src/llm/recoverer.ts, computer-tool formats)",
  variables: ["restored_token"],
  template: `${SHARED}
- Act through the computer tool, one small, deliberate action at a time, and look at the result before the next one.
- When the current screen matches the TARGET state, do not call the tool: answer with the single word {{restored_token}} as text.`,
});
