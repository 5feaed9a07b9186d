/**
 * Prompt framing: how one forward policy adapter is turned into another agent on the same
 * backbone and action format without copying it. The paper builds the explicit recovery agent by
 * prepending recovery prefixes to the forward model's default system prompt and instruction
 * (App. A.2), and the perturbation agent by prepending the perturbation instruction (App. A.1).
 * Every format adapter (pyautogui, UI-TARS, OpenAI computer use, Anthropic computer use) accepts a
 * framing per call as the optional second argument of `propose`; without it, it is the plain
 * forward agent.
 */
import type { ChatContentPart } from "@retrace-cua/core/model";
import type { ForwardPolicy, PolicyDecision, PolicyFailure, PolicyInput } from "@retrace-cua/core/policy";
import type { ModelRole } from "@retrace-cua/core/usage";

/** What is put around a forward policy's own prompts for one call. */
export interface PromptFraming {
  /** `id@version` of the framing prompts (joined with `+`); recorded before the format's own. */
  prompt: string;
  /** Prepended to the format's system prompt, separated by a blank line. @default none */
  systemPrefix?: string;
  /** Prepended to the format's per-step instruction (which carries the task), blank line between. @default none */
  instructionPrefix?: string;
  /**
   * Content shown before the conversation, e.g. the TARGET screenshot and the recovery context.
   * Images are blob references, sent like the policy's other screenshots. @default none
   */
  preamble?: ChatContentPart[];
  /** Role stamped on the call's usage record. @default "policy" */
  role?: ModelRole;
  /**
   * Text appended to the current turn only, after its screen (chat formats): what changes from
   * call to call, kept out of the earlier turns so consecutive calls share a byte-identical
   * prefix in a provider's prefix cache. @default none
   */
  currentSuffix?: string;
}

/** Per-policy counters (failures are also on each PolicyDecision). */
export interface ChatPolicyStats {
  calls: number;
  failures: Partial<Record<PolicyFailure["kind"], number>>;
}

/** A forward policy that can also answer under a framing (same backbone, same action format). */
export interface FramablePolicy extends ForwardPolicy {
  readonly stats: ChatPolicyStats;
  /** One decision; with `framing`, applied to this call's prompts. */
  propose(input: PolicyInput, framing?: PromptFraming): Promise<PolicyDecision>;
}

/** `prefix` + blank line + `base`, or `base` alone. */
export function prefixed(prefix: string | undefined, base: string): string {
  return prefix ? `${prefix}\n\n${base}` : base;
}

/** The call's prompt record: the framing's prompts, then the format's. */
export function framedPromptRef(framing: PromptFraming | undefined, base: string): string {
  return framing?.prompt ? `${framing.prompt}+${base}` : base;
}
