/**
 * `recoverWithPolicy(options)`: a restore routine for {@link recoveryMiddleware} that runs the
 * explicit recovery sub-agent (any RecoveryPolicy, e.g. createLlmRecoveryPolicy) in an
 * environment: up to `recoveryBudget` steps per attempt, with the recovery context of the paper (0-E,
 * 0-R, none, or a summarizer's briefing), ending early when the policy declares the target
 * restored (without a verifier) or when the verifier says the screen matches the target (with
 * one, only a match confirms: a restored claim it abstains on, or fails on, is not accepted).
 * Unusable policy output is a recorded, counted failed step; the attempt goes on.
 */
import { settleAfterStep } from "../../src/settle.ts";
import { z } from "zod";
import { isTerminal } from "../../src/action.ts";
import type { BlobReader } from "../../src/blob-store.ts";
import type { Environment } from "../../src/environment.ts";
import type { HistoryEntry } from "../../src/policy.ts";
import { RECOVERY_CONTEXTS, type RecoveryContext, type RecoveryPolicy, type StateVerifier, type Summarizer } from "../../src/recovery.ts";
import type { ModelUsage } from "../../src/usage.ts";
import { recoveryContextHistory } from "../../src/runtime/history.ts";
import { ConfigError, describeError } from "../../src/errors.ts";
import { renameDeprecatedKeys } from "../../src/deprecation.ts";
import type { RestoreRequest, RestoreResult } from "./options.ts";
import { untilAborted } from "../../src/abortable.ts";

/** Options of {@link recoverWithPolicy}. */
export interface RecoverWithPolicyOptions {
  /** The recovery sub-agent (same backbone as the forward agent in the paper). */
  recoverer: RecoveryPolicy;
  /** The environment the agent's tools act on. */
  env: Pick<Environment, "step" | "observe">;
  blobs: BlobReader;
  /** Recovery steps per attempt. @default 10 */
  recoveryBudget?: number;
  /** @deprecated The old name of `recoveryBudget`; accepted with a warning until the next release. */
  budget?: number;
  /** What the sub-agent is shown besides the target observation. @default "0-E" */
  recoveryContext?: (typeof RECOVERY_CONTEXTS)[number];
  /** Needed for `recoveryContext: "contextualized"`. */
  summarizer?: Summarizer;
  /** When given, consulted after each recovery step; "match" ends the attempt as restored. */
  verifier?: StateVerifier;
  /** Wait after each executed recovery step before observing, in ms (src/settle.ts; OSWorld 10000). @default 0 */
  settleMs?: number;
}

const Schema = z.object({
  recoveryBudget: z.number().int().min(1).default(10),
  recoveryContext: z.enum(RECOVERY_CONTEXTS).default("0-E"),
});

/** Build the restore routine. */
export function recoverWithPolicy(given: RecoverWithPolicyOptions): (request: RestoreRequest) => Promise<RestoreResult> {
  const options = renameDeprecatedKeys("recoverWithPolicy", given, { budget: "recoveryBudget" });
  const parsed = Schema.safeParse({ recoveryBudget: options.recoveryBudget, recoveryContext: options.recoveryContext });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`recoverWithPolicy: option "${issue.path.join(".")}" ${issue.message}`, { field: issue.path.join(".") });
  }
  const { recoveryBudget: budget, recoveryContext } = parsed.data;
  if (recoveryContext === "contextualized" && !options.summarizer) {
    throw new ConfigError('recoverWithPolicy: option "summarizer" is required for recoveryContext "contextualized"', { field: "summarizer" });
  }
  const { recoverer, env, blobs, summarizer, verifier } = options;

  return async (req: RestoreRequest): Promise<RestoreResult> => {
    const usage: ModelUsage[] = [];
    const prompts = new Set<string>();
    const context: RecoveryContext = { kind: recoveryContext, history: recoveryContextHistory(recoveryContext, req.history, req.errorStep, req.step) };
    if (recoveryContext === "contextualized") {
      const s = await summarizer!.summarize({ task: req.task, history: req.history.slice(0, req.step), target: req.target, blobs, signal: req.signal });
      context.summary = s.summary;
      usage.push(...(s.usage ?? []));
      if (s.prompt) prompts.add(s.prompt);
    }
    const recoveryHistory: HistoryEntry[] = [];
    let observation = await env.observe();
    let failures = 0;
    for (let used = 0; used < budget; used++) {
      const decision = await untilAborted(recoverer.propose({
        task: req.task,
        target: req.target,
        errorStep: req.errorStep,
        context,
        recoveryHistory,
        observation,
        budget: { used, max: budget },
        tick: used,
        blobs,
        signal: req.signal,
      }), req.signal, "the recovery sub-agent");
      usage.push(...(decision.usage ?? []));
      for (const u of decision.usage ?? []) if (u.prompt) prompts.add(u.prompt);
      if (decision.restored && !verifier) return done(true, used, `the recovery agent declared the target restored after ${used} step(s)`);
      if (decision.failure) failures++;
      const actions = decision.actions.filter((a) => !isTerminal(a));
      const before = observation;
      for (const action of actions) observation = (await env.step(action)).observation;
      observation = await settleAfterStep(env, actions.length, options.settleMs, observation, req.signal);
      recoveryHistory.push({
        step: used,
        observation: before,
        actions,
        ...(decision.response !== undefined ? { response: decision.response } : {}),
        ...(decision.memo !== undefined ? { memo: decision.memo } : {}),
      });
      if (verifier) {
        // Only a match confirms: an abstention, or a verifier that fails, is not a yes (a restored claim included).
        const v = await verifier.verify({ target: req.target.observation, current: observation, blobs, signal: req.signal }).catch((err: unknown) => {
          if (req.signal?.aborted) throw err;
          return { verdict: "abstain" as const, reason: `the verifier failed: ${describeError(err)}`, usage: [] };
        });
        usage.push(...(v.usage ?? []));
        const ref = (v as { prompt?: unknown }).prompt;
        if (typeof ref === "string") prompts.add(ref);
        if (v.verdict === "match") return done(true, used + 1, `the verifier confirmed the target after ${used + 1} step(s): ${v.reason}`);
      }
    }
    return done(false, budget, `budget of ${budget} recovery step(s) spent${failures ? ` (${failures} unusable)` : ""}`);

    function done(restored: boolean, steps: number, detail: string): RestoreResult {
      return { restored, steps, observation, detail, usage, prompts: [...prompts] };
    }
  };
}
