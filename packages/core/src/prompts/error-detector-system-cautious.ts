/**
 * Error-step detector, system message: retrace's cautious variant (`stance: "cautious"`).
 * Same as `error-detector.system` plus one line telling the judge to say "on track" when unsure
 * (a false alarm interrupts a working agent). Not the paper's stance: kept so both can be run
 * side by side (experiments/configs/models/end-to-end-variants.yaml). This text was
 * `error-detector.system@1`.
 * Purpose: turn a chat model into a judge that reads a computer-use agent's observation-action
 *   history plus the newest screenshot and says whether the run has gone off track and, if so,
 *   at which step the first wrong action was taken.
 * Used by: the `detect` node through packages/models/src/llm/detector.ts (createLlmErrorDetector).
 * Variables: none. The answer contract (a JSON object) is spelled out here and validated with zod
 *   in the detector; keep the field names in sync with `DetectorReplySchema`.
 */
import { definePrompt } from "../prompt.ts";
import neutral from "./error-detector-system.ts";
import { InternalError } from "../errors.ts";

/** The one line this variant adds, after the judging rules. */
const WHEN_UNSURE =
  "- When you are unsure, say the agent is on track and give a low confidence. A false alarm interrupts a working agent, which is costly.";
const ANCHOR = "\n\nAnswer with one JSON object";
if (!neutral.template.includes(ANCHOR))
  throw new InternalError("error-detector.system-cautious: the neutral template lost its answer section");

export default definePrompt({
  id: "error-detector.system-cautious",
  version: "1",
  usedBy: "detect (packages/models/src/llm/detector.ts)",
  variables: [],
  template: neutral.template.replace(ANCHOR, `\n${WHEN_UNSURE}${ANCHOR}`),
});
