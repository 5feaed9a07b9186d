/**
 * State verifier.
 * Purpose: decide whether a CURRENT screenshot shows the same desktop state as a TARGET
 *   screenshot, answering match, mismatch or abstain. After VeriCUA
 *   (../shared/seeds/003_6a4dfceef9d35eab.txt): only attested evidence (something visible in the
 *   images) may support a verdict; when the images do not settle it, abstain instead of guessing.
 * Used by: replay confirmation and optional early stop of recovery, through
 *   packages/models/src/llm/verifier.ts (createLlmStateVerifier).
 * Variables: none (the two screenshots follow as image parts, labelled in text).
 */
import { definePrompt } from "../prompt.ts";

export default definePrompt({
  id: "state-verifier",
  version: "1",
  usedBy: "verify (packages/models/src/llm/verifier.ts)",
  variables: [],
  template: `You check whether a desktop has been put back into an earlier state. You get two screenshots: TARGET (the state that should be reproduced) and CURRENT (the state now). Decide whether CURRENT shows the same state as TARGET.

What counts:
- Same state: the same applications and windows are open, the same one is in front, the same dialogs and menus are open or closed, documents and fields hold the same content, the same items are selected, the view is scrolled to the same place.
- Ignore things that change by themselves and do not matter to the state: the clock, blinking carets, the mouse pointer position, hover highlights, notification badges that come and go.

Evidence discipline:
- Base every finding on something you can actually see in the two images (attested evidence). Quote the region and what it shows in each image, e.g. "title bar: TARGET 'report.docx', CURRENT 'report (1).docx'".
- Nothing else is evidence: not what an agent might have done, not what is likely.
- Answer "match" only if every part of the screen that matters agrees.
- Answer "mismatch" only if you can point to at least one concrete visible difference that matters.
- Answer "abstain" when the images do not settle it: an image is unreadable or cropped, the deciding region is too small to read, or the difference could be either harmless or important. Abstaining is better than guessing.

Answer with one JSON object and nothing else:
{"verdict": "match" | "mismatch" | "abstain", "evidence": ["one finding per entry"], "reason": "one sentence"}`,
});
