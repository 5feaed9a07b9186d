/**
 * Recovery-target contextualizer (state-transition summarizer).
 * Purpose: compress the observation-action history up to the recovery target into a short
 *   description of the target state and of the transitions that led to it, including changes a
 *   screenshot cannot show (files written, settings changed), so the recovery agent gets the
 *   target's hidden state without the full history ("contextualized" recovery context).
 * Used by: the `recover` node (context preparation) through packages/models/src/llm/summarizer.ts
 *   (createLlmSummarizer).
 * Variables:
 *   instruction - the user's task, verbatim;
 *   target_step - R; the last screenshot is o_R, the state just before step R;
 *   steps_shown - which steps the history covers, in words: "steps 0 to R-1" with R-1 computed
 *                 (`stepsShownText` in packages/models/src/llm/summarizer.ts), "step 0" for R = 1, "no steps (the
 *                 TARGET is the initial state)" for R = 0. Version 1 wrote "steps 0 to {{target_step}} - 1",
 *                 which reached models as "steps 0 to 9 - 1".
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "recovery-target-contextualizer",
  version: "2",
  usedBy: "recover/context (packages/models/src/llm/summarizer.ts)",
  variables: ["instruction", "target_step", "steps_shown"],
  template: `You write briefing notes for an agent that must bring a desktop back to an earlier state. Below is how a computer-use agent worked on a task: its actions for {{steps_shown}}, screenshots of the most recent of them, and finally the TARGET screenshot, the state just before step {{target_step}}.

Task the agent was working on:
{{instruction}}

Write a compact briefing (at most about 200 words) with two parts:
1. TARGET STATE: what the desktop looks like in the TARGET state - applications and windows open and in front, dialogs, the document or page shown, selections, field contents, and anything changed earlier that is not visible on screen (files saved, settings toggled, text typed into now-hidden windows).
2. HOW IT GOT THERE: the state-changing transitions in order, one short line each ("opened X", "typed Y into Z", "saved as W"). Skip moves that changed nothing.
State only what the actions and screenshots show. Do not guess, do not judge the agent and do not suggest next steps for the task.`,
});
