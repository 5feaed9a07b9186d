/**
 * Restorative intent: does a policy's rationale say it is trying to get back to an earlier state
 * (undo, revert, close what it opened, go back)? The paper reads this from rationales (Figure 6,
 * Table 8). The default is a keyword classifier; plug in a model-backed one for real agents.
 */

/** Classifies one rationale: true = restorative, false = not, null = cannot tell. */
export type IntentClassifier = (rationale: string) => boolean | null;

const RESTORATIVE =
  /\b(undo(ing|ne)?|restor\w*|revert\w*|roll(ing|ed)?[ -]?back|go(ing)? back|get(ting)? back|return(ing)? to (the )?(previous|earlier|original|target)|recover\w*|dismiss\w*|close (the |this |that )?(dialog|menu|pop-?up|window)|notic\w*)\b/i;

/** The default keyword classifier (English rationales). */
export const keywordIntent: IntentClassifier = (rationale) => {
  const text = rationale.trim();
  if (text === "") return null;
  return RESTORATIVE.test(text);
};

/** Per-episode intent: how many rationales were judged, how many restorative, and the episode verdict. */
export function episodeIntent(
  rationales: readonly (string | undefined)[],
  classify: IntentClassifier = keywordIntent,
): { judged: number; restorative: number; intent: boolean | null } {
  let judged = 0;
  let restorative = 0;
  for (const r of rationales) {
    if (r === undefined) continue;
    const v = classify(r);
    if (v === null) continue;
    judged++;
    if (v) restorative++;
  }
  return { judged, restorative, intent: judged === 0 ? null : restorative > 0 };
}
