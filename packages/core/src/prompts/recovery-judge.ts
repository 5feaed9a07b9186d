/**
 * Recovery judge (the LLM-judge baseline of the paper's oracle study, Table 1 / Figure 38).
 * Purpose: decide whether a recovery attempt restored the TARGET state, the way the paper's
 *   human annotators and its GPT-5.4 baseline judged: from the task, the actions that led to the
 *   error, the recovery actions, and the TARGET, ERROR and RECOVERED screenshots, answering
 *   restored yes/no with a reason. Differences that are only environment noise (clock, caret,
 *   pointer, a notification) do not count, as in the annotators' guideline (Figure 11).
 *   Departure: the paper's judge also sees a screenshot of every history step; here the history
 *   is the actions as text (the three states it must compare are images).
 * Used by: `retrace eval-recovery --agreement --labels` (the "LLM judge" row) through
 *   packages/models/src/llm/judge.ts (createLlmRecoveryJudge).
 * Variables:
 *   instruction - the user's task, verbatim;
 *   history - the actions from the start to the error state, one numbered line per step, with
 *     the steps after the target marked as the erroneous ones;
 *   recovery - the recovery agent's actions (and rationales), one numbered line per step, or
 *     "(no actions)".
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "recovery-judge",
  version: "1",
  usedBy: "eval-recovery --agreement (packages/models/src/llm/judge.ts)",
  variables: ["instruction", "history", "recovery"],
  template: `You judge whether a computer-use agent undid a mistake. An agent working on a task reached a good state (TARGET), then took one or more wrong steps that led to an ERROR state. A recovery agent then acted to bring the desktop back to the TARGET state; the result is the RECOVERED state. Decide whether the RECOVERED state is the TARGET state again.

Task the agent was working on:
{{instruction}}

Actions from the start up to the ERROR state:
{{history}}

Actions the recovery agent took from the ERROR state:
{{recovery}}

You get three screenshots after this text, labelled TARGET, ERROR and RECOVERED.

How to judge:
- Restored means the RECOVERED state has the same meaning for the task as TARGET: the same applications and windows open, the same one in front, the same dialogs and menus open or closed, the same document or page, the same content in documents and fields, the same selection, the same settings. Continuing the task from RECOVERED would work exactly as from TARGET.
- Also consider what a screenshot cannot show: if an erroneous action saved, deleted, moved or changed something, and the recovery actions do not undo it, the state is not restored even when the screen looks the same.
- Ignore differences that come from the environment alone and not from the agent: the clock, a blinking caret, the mouse pointer, hover highlights, a notification that comes and goes.
- Doing more than undoing (progressing the task past TARGET) is not restored.

Answer with one JSON object and nothing else:
{"restored": true | false, "reason": "one or two sentences naming what matches or differs"}`,
});
