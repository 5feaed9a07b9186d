/**
 * Which notice follows a restoration, and whether the agent's history is cut: one decision for
 * the graph runtime (graphs/nodes/restore-context.ts), the SDK wrappers and the LangChain
 * middleware (adapters/sdk/shared/step-recovery.ts). A confirmed restoration cuts the history to
 * R and shows the transition string (`transition`); an unconfirmed one follows
 * `unconfirmedRestoration` (src/episode.ts: the paper's "claim-recovered", or retrace's
 * disclosure with the history kept or cut).
 */
import { promptRef, renderPrompt } from "../src/prompt.ts";
import type { TransitionString, UnconfirmedRestoration } from "../src/episode.ts";
import { TRANSITION_PROMPTS, PROMPTS } from "./index.ts";

/** What the agent is shown after a restoration. */
export interface PostRestoration {
  /** Cut the history to entries 0..R-1 (false: keep every entry). */
  cut: boolean;
  /** The notice shown before the next forward decision. */
  notice: string;
  /** `id@version` of the notice's prompt. */
  prompt: string;
}

/** The notice and the cut after restoring (or trying to restore) step `step` after error step `errorStep`. */
export function postRestoration(args: { step: number; errorStep: number; restored: boolean; transition: TransitionString; unconfirmed: UnconfirmedRestoration }): PostRestoration {
  if (args.restored || args.unconfirmed === "claim-recovered") {
    const t = TRANSITION_PROMPTS[args.transition];
    return { cut: true, notice: renderPrompt(t, { step: args.step }), prompt: promptRef(t) };
  }
  if (args.unconfirmed === "disclose-and-cut") {
    const t = PROMPTS.postRestorationUnconfirmedCut;
    return { cut: true, notice: renderPrompt(t, { step: args.step }), prompt: promptRef(t) };
  }
  const t = PROMPTS.postRestorationUnconfirmedKept;
  return { cut: false, notice: renderPrompt(t, { step: args.step, errorStep: args.errorStep }), prompt: promptRef(t) };
}
