/**
 * From a recovery or perturbation model's reply to a decision: the RESTORED declaration, actions
 * parsed by the action-format converter (pyautogui by default), or a recorded failure.
 * Model output is data: it is parsed symbolically, never executed on the host.
 */
import type { Action } from "@retrace-cua/core/action";
import type { PolicyDecision } from "@retrace-cua/core/policy";
import type { RecoveryDecision } from "@retrace-cua/core/recovery";
import { toPolicyFailure } from "../actions/errors.ts";
import { extractCodeBlocks, pyautoguiResponseToActions } from "../actions/pyautogui/convert.ts";

/** Converts a model reply to actions; throws an ActionFormatError on unusable output. */
export type ActionParser = (reply: string, screen: { width: number; height: number }) => Action[];

/** The pyautogui converter from packages/models/src/actions/pyautogui/convert.ts. */
export const defaultActionParser: ActionParser = (reply, screen) => pyautoguiResponseToActions(reply, { screen });

/** How {@link decideFromReply} reads a reply. */
export interface ReplyReading {
  parse: ActionParser;
  screen: { width: number; height: number };
  /** A line consisting of just this word (and no code block) declares the target restored. */
  restoredToken?: string;
  /** Treat a DONE answer as "restored" (recovery) instead of passing it on. */
  doneMeansRestored?: boolean;
}

/** Decision with an optional `restored` flag (recovery). */
export type ReplyDecision = Pick<PolicyDecision, "actions" | "failure"> & { restored?: boolean };

/** Read a reply: restored declaration, actions, or a failure (never throws on model output). */
export function decideFromReply(reply: string, how: ReplyReading): ReplyDecision {
  if (how.restoredToken && declaresToken(reply, how.restoredToken)) return { actions: [], restored: true };
  let actions: Action[];
  try {
    actions = how.parse(reply, how.screen);
  } catch (err) {
    return { actions: [], failure: toPolicyFailure(err) };
  }
  // Same DONE/FAIL reading as the format-adapter path (no response given: no second token check).
  return how.doneMeansRestored ? readRecoveryReply({ actions }, how.restoredToken ?? "") : { actions };
}

/**
 * A recovery agent's decision from its format adapter's decision: an answer that declares the
 * token (and carries no usable action) is a restored claim, whatever the format's parser made of
 * it; DONE first is a restored claim (actions before DONE still run first); FAIL is a recorded
 * give-up. Response, usage and memo are kept.
 */
export function readRecoveryReply(decision: PolicyDecision, restoredToken: string): RecoveryDecision {
  const { actions, failure: _failure, ...kept } = decision;
  if (actions.length === 0 && decision.response && declaresToken(decision.response, restoredToken))
    return { ...kept, actions: [], restored: true };
  if (decision.failure) return decision;
  const done = actions.findIndex((a) => a.type === "DONE");
  if (done === 0) return { ...kept, actions: [], restored: true };
  if (done > 0) return { ...kept, actions: actions.slice(0, done) };
  if (actions.some((a) => a.type === "FAIL")) {
    return {
      ...kept,
      actions: [],
      failure: { kind: "refused", message: "the recovery agent answered FAIL (gave up on restoring the target)" },
    };
  }
  return decision;
}

/** True when a line is just the token (markdown emphasis and a trailing period allowed) and there is no code block. */
function declaresToken(reply: string, token: string): boolean {
  if (extractCodeBlocks(reply).length > 0) return false;
  const word = new RegExp(`^[\\s*_\`"']*${token}[\\s*_\`"'.!]*$`, "i");
  return reply.split(/\r?\n/).some((line) => word.test(line));
}
