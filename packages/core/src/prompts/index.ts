/**
 * Every prompt retrace ships, by name, plus `ALL_PROMPTS`. Each prompt lives in its own file with
 * a header saying what it is for, which node uses it and what its variables mean.
 */
import { promptRef, renderPrompt, type PromptTemplate } from "../prompt.ts";
import type { TransitionString, UnconfirmedRestoration } from "../episode.ts";
import errorDetectorSystem from "./error-detector-system.ts";
import errorDetectorSystemCautious from "./error-detector-system-cautious.ts";
import errorDetectorUser from "./error-detector-user.ts";
import errorDetectorTask from "./error-detector-task.ts";
import errorDetectorQuestion from "./error-detector-question.ts";
import recoveryStepSelector from "./recovery-step-selector.ts";
import recoverySystemPrefix from "./recovery-system-prefix.ts";
import recoveryInstructionPrefix from "./recovery-instruction-prefix.ts";
import recoveryInstructionPrefixStable from "./recovery-instruction-prefix-stable.ts";
import recoverySystemPrefixTool from "./recovery-system-prefix-tool.ts";
import recoveryInstructionPrefixTool from "./recovery-instruction-prefix-tool.ts";
import recoveryTargetContextualizer from "./recovery-target-contextualizer.ts";
import stateVerifier from "./state-verifier.ts";
import recoveryJudge from "./recovery-judge.ts";
import agenticStateVerifier from "./agentic-state-verifier.ts";
import perturbationInstruction from "./perturbation-instruction.ts";
import postRestorationTransition from "./post-restoration-transition.ts";
import postRestorationTransitionDetailed from "./post-restoration-transition-detailed.ts";
import postRestorationUnconfirmedKept from "./post-restoration-unconfirmed-kept.ts";
import postRestorationUnconfirmedCut from "./post-restoration-unconfirmed-cut.ts";
import forwardPyautoguiSystem from "./forward-pyautogui-system.ts";
import forwardPyautoguiStep from "./forward-pyautogui-step.ts";

/** Every prompt by name. */
export const PROMPTS = {
  errorDetectorSystem,
  errorDetectorSystemCautious,
  errorDetectorUser,
  errorDetectorTask,
  errorDetectorQuestion,
  recoveryStepSelector,
  recoverySystemPrefix,
  recoveryInstructionPrefix,
  recoveryInstructionPrefixStable,
  recoverySystemPrefixTool,
  recoveryInstructionPrefixTool,
  recoveryTargetContextualizer,
  stateVerifier,
  recoveryJudge,
  agenticStateVerifier,
  perturbationInstruction,
  postRestorationTransition,
  postRestorationTransitionDetailed,
  postRestorationUnconfirmedKept,
  postRestorationUnconfirmedCut,
  forwardPyautoguiSystem,
  forwardPyautoguiStep,
} as const satisfies Record<string, PromptTemplate>;

/** Every prompt, for listing (`id@version`) and for tests. */
export const ALL_PROMPTS: readonly PromptTemplate[] = Object.values(PROMPTS);

/** The transition strings after a restoration, by the `transition` option (packages/core/src/episode.ts). */
export const TRANSITION_PROMPTS = {
  short: postRestorationTransition,
  detailed: postRestorationTransitionDetailed,
} as const satisfies Record<string, PromptTemplate>;

/**
 * Which notice follows a restoration, and whether the agent's history is cut: one decision for
 * the graph runtime (packages/graphs/src/nodes/restore-context.ts), the SDK wrappers and the LangChain
 * middleware (packages/core/src/runtime/step-recovery.ts). A confirmed restoration cuts the history to
 * R and shows the transition string (`transition`); an unconfirmed one follows
 * `unconfirmedRestoration` (packages/core/src/episode.ts: the paper's "claim-recovered", or retrace's
 * disclosure with the history kept or cut).
 */
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
export function postRestoration(args: {
  step: number;
  errorStep: number;
  restored: boolean;
  transition: TransitionString;
  unconfirmed: UnconfirmedRestoration;
}): PostRestoration {
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
