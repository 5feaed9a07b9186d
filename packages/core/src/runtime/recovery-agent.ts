/**
 * The recovery sub-agent's loop, once: propose a restorative step, execute it, settle, confirm a
 * restored claim with the one confirmation rule (./confirm.ts), and decide whether the attempt is
 * over. Two callers: the graph's recovery subgraph (its nodes `proposeRestoration` and
 * `executeRestoration` are thin callers of {@link proposeRecoveryStep} and
 * {@link settleRecoveryStep}, so the steps stay checkpointable) and `recoverWithPolicy`
 * (./recover-with-policy.ts, behind the LangChain middleware and the SDK wrappers), which runs
 * the same two functions in the plain loop {@link runRecoveryAgent}.
 *
 * The rule: the budget counts executed steps plus restored claims a check refused; a claim (the
 * decision's `restored`, or a DONE action) is checked when it is made: with no verifier it is
 * taken ("claimed"), with one only a confirmation ends the attempt as restored, a refused claim
 * goes on while budget remains. FAIL, an environment failure or a spent budget end the attempt
 * refused; so does, with `onRecoveryRepeat: "stop"`, a step that repeats the attempt (the same
 * actions on a screen it already stood on), before it is executed. Unusable output is a counted,
 * recorded failed step; the attempt goes on.
 */
import { stableStringify } from "../hash.ts";
import { isTerminal, type Action } from "../action.ts";
import type { OnRecoveryRepeat } from "../episode.ts";
import type { Observation } from "../observation.ts";
import type { HistoryEntry, PolicyDecision } from "../policy.ts";
import type { ModelUsage } from "../usage.ts";
import { isRestored, type ConfirmOutcome, type RestorationConfirmation } from "./confirm.ts";
import { sanitizeDecision } from "./decision.ts";

/** Where the attempt stands: its budget, executed steps and refused claims. */
export interface RecoveryAgentProgress {
  budget: number;
  /** Recovery steps executed so far. */
  steps: number;
  /** Action-less restored claims a check refused; each costs one budget step. */
  rejectedClaims: number;
}

/** A sanitized decision of the sub-agent, with its restored claim. */
export type RecoveryStepDecision = PolicyDecision & { restored: boolean };

/** The attempt ended (`confirmation` says how) or goes on. */
export type RecoveryStepVerdict =
  | { done: true; confirmation: RestorationConfirmation; reason: string; usage: ModelUsage[]; rejectedClaim?: boolean }
  | { done: false; reason: string; usage: ModelUsage[]; rejectedClaim?: boolean };

/** Budget used so far. */
export const budgetUsed = (p: RecoveryAgentProgress): number => p.steps + p.rejectedClaims;

const spent = (budget: number) => `recovery budget of ${budget} steps spent`;

/**
 * Whether a proposed step repeats the attempt: on the screen `observation` (compared by its screenshot), the same
 * actions the attempt already took on that screen. That is the same action again with no screen change, or an
 * A-B-A-B cycle back to a screen it stood on. Restored claims, failed answers and empty steps never repeat (a claim is
 * checked, not executed). Returns the reason, or null.
 */
export function repeatedStep(
  history: readonly HistoryEntry[],
  observation: Observation,
  decision: RecoveryStepDecision,
): string | null {
  if (decision.restored || decision.failure || decision.actions.length === 0) return null;
  const actions = stableStringify(decision.actions);
  const k = history.findIndex(
    (h) => h.observation.screenshot === observation.screenshot && stableStringify(h.actions) === actions,
  );
  if (k < 0) return null;
  return `the recovery agent repeated itself: recovery step ${k + 1}'s actions again on the same screen, after ${history.length} step(s)`;
}

/** What {@link proposeRecoveryStep} checks a proposal against when the option `onRecoveryRepeat` is "stop". */
export interface RepeatCheck {
  /** The attempt's executed steps so far, each with the screen it was taken on. */
  history: readonly HistoryEntry[];
  /** The screen the proposal is made on. */
  observation: Observation;
}

/** A proposal that ends the attempt; `usage` is the recoverer's call when it was made (a repeated step). */
export type RecoveryProposalEnd = { done: true; confirmation: "refused"; reason: string; usage?: ModelUsage[] };

/**
 * Ask the sub-agent for its next step (`ask` calls the recoverer with `used`; its raw answer is
 * untrusted), unless the budget is spent or the run is stopping (`stop`: why). With `repeat` (option
 * `onRecoveryRepeat: "stop"`), a step that repeats the attempt ({@link repeatedStep}) ends it unconfirmed, not executed.
 */
export async function proposeRecoveryStep(
  p: RecoveryAgentProgress,
  ask: (used: number) => Promise<unknown>,
  stop?: string | null,
  repeat?: RepeatCheck,
): Promise<RecoveryProposalEnd | { done: false; decision: RecoveryStepDecision }> {
  const used = budgetUsed(p);
  if (used >= p.budget) return { done: true, confirmation: "refused", reason: spent(p.budget) };
  if (stop) return { done: true, confirmation: "refused", reason: stop };
  const raw = await ask(used);
  const restored = !!raw && typeof raw === "object" && (raw as { restored?: unknown }).restored === true;
  let decision = sanitizeDecision(raw);
  // Declaring the target restored with no action is a valid, final answer, not an empty step.
  if (restored && decision.failure?.kind === "empty") decision = { ...decision, failure: undefined };
  const d = { ...decision, restored };
  const repeated = repeat ? repeatedStep(repeat.history, repeat.observation, d) : null;
  if (repeated) return { done: true, confirmation: "refused", reason: repeated, usage: d.usage ?? [] };
  return { done: false, decision: d };
}

/** A restored claim with no action: an answer, not a step (nothing is executed; it costs budget only when refused). */
export const isPureClaim = (d: RecoveryStepDecision): boolean => d.restored && d.actions.length === 0 && !d.failure;

/** What executing one step did. */
export interface ExecutedRecoveryStep {
  observation: Observation;
  /** A DONE/FAIL among the step's actions. */
  terminal?: "DONE" | "FAIL" | null;
  /** The environment failed (data: the attempt ends refused). */
  envError?: string | null;
}

/**
 * Decide after the sub-agent's step. `run` is the executed step (null for a pure claim, checked
 * on `current` = the screen before); `p.steps` counts the executed step already. `confirm` applies
 * the one rule to `current`; `verifierName` names the checker in the reason.
 */
export async function settleRecoveryStep(
  p: RecoveryAgentProgress,
  decision: RecoveryStepDecision,
  run: ExecutedRecoveryStep | null,
  current: Observation,
  confirm: (current: Observation) => Promise<ConfirmOutcome>,
  verifierName?: string,
): Promise<RecoveryStepVerdict> {
  if (run?.envError)
    return { done: true, confirmation: "refused", reason: `environment failed: ${run.envError}`, usage: [] };
  if (run?.terminal === "FAIL")
    return { done: true, confirmation: "refused", reason: "the recovery agent gave up (FAIL)", usage: [] };
  if (!run || decision.restored || run.terminal === "DONE") {
    const c = await confirm(current);
    if (isRestored(c.confirmation)) {
      const reason =
        c.confirmation === "claimed"
          ? "the recovery agent declared the target restored"
          : `restored claim confirmed by ${verifierName ?? "the check"} (${c.verdict ?? c.confirmation}): ${c.verdict === "match" ? (c.verifierReason ?? c.reason) : c.reason}`;
      return { done: true, confirmation: c.confirmation, reason, usage: c.usage };
    }
    const why =
      c.verdict === "mismatch"
        ? `verifier ${verifierName} rejected the restored claim: ${c.verifierReason ?? ""}`
        : c.reason;
    const used = budgetUsed(p) + (run ? 0 : 1);
    const rejectedClaim = !run;
    if (used >= p.budget)
      return {
        done: true,
        confirmation: "refused",
        reason: `${why}; the budget is spent`,
        usage: c.usage,
        rejectedClaim,
      };
    return { done: false, reason: why, usage: c.usage, rejectedClaim };
  }
  if (budgetUsed(p) >= p.budget) return { done: true, confirmation: "refused", reason: spent(p.budget), usage: [] };
  return { done: false, reason: "", usage: [] };
}

/** What {@link runRecoveryAgent} needs from its caller. */
export interface RecoveryAgentIO {
  /** Ask the recoverer (raw answer) given the budget used, its own steps so far and the screen. */
  propose(input: {
    used: number;
    recoveryHistory: readonly HistoryEntry[];
    observation: Observation;
  }): Promise<unknown>;
  /** Execute a step's actions (terminal ones are not sent) and settle; environment failures are data. */
  execute(actions: readonly Action[], before: Observation): Promise<ExecutedRecoveryStep>;
  /** The one confirmation rule, bound to the target. */
  confirm(current: Observation): Promise<ConfirmOutcome>;
  verifierName?: string;
  /** Why the attempt must stop now (an aborted run), or null. */
  stop?(): string | null;
  /** Option `onRecoveryRepeat`: "stop" ends an attempt that repeats itself ({@link repeatedStep}). @default "continue" */
  onRepeat?: OnRecoveryRepeat;
}

/** One attempt's account. */
export interface RecoveryAgentResult {
  confirmation: RestorationConfirmation;
  reason: string;
  /** Steps executed. */
  steps: number;
  observation: Observation;
  recoveryHistory: HistoryEntry[];
  /** Usage of the recoverer's and the checks' model calls. */
  usage: ModelUsage[];
  /** Unusable sub-agent answers (recorded, counted steps). */
  policyFailures: number;
}

/** Run the sub-agent until the attempt ends, from the screen `observation`, with `budget` steps. */
export async function runRecoveryAgent(
  io: RecoveryAgentIO,
  budget: number,
  observation: Observation,
): Promise<RecoveryAgentResult> {
  const recoveryHistory: HistoryEntry[] = [];
  const usage: ModelUsage[] = [];
  const p: RecoveryAgentProgress = { budget, steps: 0, rejectedClaims: 0 };
  let policyFailures = 0;
  for (;;) {
    const proposed = await proposeRecoveryStep(
      p,
      (used) => io.propose({ used, recoveryHistory, observation }),
      io.stop?.() ?? null,
      io.onRepeat === "stop" ? { history: recoveryHistory, observation } : undefined,
    );
    if (proposed.done) {
      usage.push(...(proposed.usage ?? []));
      return end(proposed.confirmation, proposed.reason);
    }
    const d = proposed.decision;
    usage.push(...(d.usage ?? []));
    let run: ExecutedRecoveryStep | null = null;
    if (!isPureClaim(d)) {
      const before = observation;
      run = await io.execute(d.actions, before);
      observation = run.observation;
      recoveryHistory.push({
        step: p.steps,
        observation: before,
        actions: d.actions,
        ...(d.response !== undefined ? { response: d.response } : {}),
        ...(d.memo !== undefined ? { memo: d.memo } : {}),
      });
      p.steps += 1;
      if (d.failure) policyFailures += 1;
    }
    const v = await settleRecoveryStep(p, d, run, observation, (c) => io.confirm(c), io.verifierName);
    usage.push(...v.usage);
    if (v.rejectedClaim) p.rejectedClaims += 1;
    if (v.done) return end(v.confirmation, v.reason);
  }

  function end(confirmation: RestorationConfirmation, reason: string): RecoveryAgentResult {
    return { confirmation, reason, steps: p.steps, observation, recoveryHistory, usage, policyFailures };
  }
}

/** The first terminal action (DONE/FAIL) among `actions`, if any. */
export function terminalOf(actions: readonly Action[]): "DONE" | "FAIL" | null {
  const t = actions.find((a) => isTerminal(a));
  return t ? (t.type as "DONE" | "FAIL") : null;
}
