/**
 * `recoverWithPolicy(options)`: a restore routine (./restore.ts) that runs the explicit recovery
 * sub-agent (any RecoveryPolicy, e.g. createLlmRecoveryPolicy) in an environment: up to `budget`
 * steps per attempt, with the recovery context of the paper (0-E, 0-R, none, or a summarizer's
 * briefing). The loop is the one the graph's recovery subgraph runs (./recovery-agent.ts), with the
 * one confirmation rule (./confirm.ts): a restored claim is taken unverified ("claimed") without a
 * verifier; with one, only a match confirms ("verifier"), or SSIM >= 0.99 when the verifier
 * abstains and `onAbstain: "ssim"` ("ssim"). Used by the LangChain middleware and the SDK wrappers.
 * Environment failures are data (the attempt ends refused); unusable policy output is a recorded,
 * counted failed step.
 */
import { isTerminal, type Action } from "../action.ts";
import type { BlobReader } from "../blob-store.ts";
import type { Environment } from "../environment.ts";
import type { OnRecoveryRepeat } from "../episode.ts";
import { ConfigError, describeError } from "../errors.ts";
import { renameDeprecatedKeys } from "../deprecation.ts";
import type { Observation } from "../observation.ts";
import {
  RECOVERY_CONTEXTS,
  type RecoveryContext,
  type RecoveryPolicy,
  type StateVerifier,
  type Summarizer,
} from "../recovery.ts";
import { settleAfterStep } from "../settle.ts";
import type { ModelUsage } from "../usage.ts";
import { untilAborted } from "../abortable.ts";
import { confirmRestoration, isRestored } from "./confirm.ts";
import { recoveryContextHistory } from "./history.ts";
import { resolveRecoveryOptions } from "./options.ts";
import { runRecoveryAgent, terminalOf, type ExecutedRecoveryStep } from "./recovery-agent.ts";
import type { RestoreRequest, RestoreResult } from "./restore.ts";

/**
 * How the recovery sub-agent runs: shared by {@link recoverWithPolicy} and every wrapper that builds it for a user (the
 * SDK integrations).
 */
export interface RecoverySubAgentOptions {
  /** Recovery steps per attempt. @default 10 */
  recoveryBudget?: number;
  /** @deprecated The old name of `recoveryBudget`; accepted with a warning until the next release. */
  budget?: number;
  /** What the sub-agent is shown besides the target observation. @default "0-E" */
  recoveryContext?: (typeof RECOVERY_CONTEXTS)[number];
  /** Needed for `recoveryContext: "contextualized"`. */
  summarizer?: Summarizer;
  /**
   * When given, checks each restored claim; only a match (or, with `onAbstain: "ssim"`, SSIM >= 0.99 after an
   * abstention) confirms it (packages/core/src/runtime/confirm.ts).
   */
  verifier?: StateVerifier;
  /** What a verifier's abstention means: "reject" (not confirmed) or "ssim". @default "reject" */
  onAbstain?: "reject" | "ssim";
  /**
   * "stop": an attempt whose sub-agent proposes, on a screen it already stood on, the actions it took there before ends
   * at once, unconfirmed, without executing them; "continue" runs it until its budget is spent (the paper's).
   * @default "continue"
   */
  onRecoveryRepeat?: OnRecoveryRepeat;
}

/** Options of {@link recoverWithPolicy}. */
export interface RecoverWithPolicyOptions extends RecoverySubAgentOptions {
  /** The recovery sub-agent (same backbone as the forward agent in the paper). */
  recoverer: RecoveryPolicy;
  /** The environment the agent's tools act on. */
  env: Pick<Environment, "step" | "observe">;
  blobs: BlobReader;
  /** Wait after each executed recovery step before observing, in ms (packages/core/src/settle.ts; OSWorld 10000). @default 0 */
  settleMs?: number;
}

/** Build the restore routine. */
export function recoverWithPolicy(
  given: RecoverWithPolicyOptions,
): (request: RestoreRequest) => Promise<RestoreResult> {
  const options = renameDeprecatedKeys("recoverWithPolicy", given, { budget: "recoveryBudget" });
  const {
    recoveryBudget: budget,
    recoveryContext,
    onAbstain,
    onRecoveryRepeat,
  } = resolveRecoveryOptions(
    {
      recoveryBudget: options.recoveryBudget,
      recoveryContext: options.recoveryContext,
      onAbstain: options.onAbstain,
      onRecoveryRepeat: options.onRecoveryRepeat,
    },
    { where: "recoverWithPolicy", knobs: ["recoveryBudget", "recoveryContext", "onAbstain", "onRecoveryRepeat"] },
  );
  if (recoveryContext === "contextualized" && !options.summarizer) {
    throw new ConfigError('recoverWithPolicy: option "summarizer" is required for recoveryContext "contextualized"', {
      field: "summarizer",
    });
  }
  const { recoverer, env, blobs, summarizer, verifier } = options;

  return async (req: RestoreRequest): Promise<RestoreResult> => {
    const usage: ModelUsage[] = [];
    const prompts = new Set<string>();
    const context: RecoveryContext = {
      kind: recoveryContext,
      history: recoveryContextHistory(recoveryContext, req.history, req.errorStep, req.step),
    };
    if (recoveryContext === "contextualized") {
      const s = await summarizer!.summarize({
        task: req.task,
        history: req.history.slice(0, req.step),
        target: req.target,
        blobs,
        signal: req.signal,
      });
      context.summary = s.summary;
      usage.push(...(s.usage ?? []));
      if (s.prompt) prompts.add(s.prompt);
    }
    let tick = 0;
    const out = await runRecoveryAgent(
      {
        propose: ({ used, recoveryHistory, observation }) =>
          untilAborted(
            recoverer.propose({
              task: req.task,
              target: req.target,
              errorStep: req.errorStep,
              context,
              recoveryHistory,
              observation,
              budget: { used, max: budget },
              tick: tick++,
              blobs,
              signal: req.signal,
            }),
            req.signal,
            "the recovery sub-agent",
          ),
        execute: (actions, before) => execute(actions, before, req.signal),
        confirm: async (current) => {
          const c = await confirmRestoration({
            target: req.target.observation,
            current,
            blobs,
            ...(verifier ? { verifier } : {}),
            onAbstain,
            unchecked: "claim",
            ...(req.signal ? { signal: req.signal } : {}),
          });
          if (c.prompt) prompts.add(c.prompt);
          return c;
        },
        ...(verifier ? { verifierName: verifier.name } : {}),
        stop: () => (req.signal?.aborted ? "the run was aborted" : null),
        onRepeat: onRecoveryRepeat,
      },
      budget,
      await env.observe(),
    );
    if (req.signal?.aborted) throw req.signal.reason ?? new Error("aborted");
    usage.push(...out.usage);
    for (const u of out.usage) if (u.prompt) prompts.add(u.prompt);
    const failures = out.policyFailures ? ` (${out.policyFailures} unusable)` : "";
    return {
      restored: isRestored(out.confirmation),
      confirmation: out.confirmation,
      steps: out.steps,
      observation: out.observation,
      detail: `${out.reason}${failures}`,
      usage,
      prompts: [...prompts],
    };
  };

  /** Send a step's non-terminal actions, settle; an environment failure is data. */
  async function execute(
    actions: readonly Action[],
    before: Observation,
    signal?: AbortSignal,
  ): Promise<ExecutedRecoveryStep> {
    // Like the graph's step (packages/graphs/src/env-step.ts): actions in order up to the first terminal one.
    const end = actions.findIndex((a) => isTerminal(a));
    const sent = end < 0 ? actions : actions.slice(0, end);
    let observation = before;
    try {
      for (const action of sent) observation = (await env.step(action)).observation;
    } catch (err) {
      if (signal?.aborted) throw err;
      return {
        observation: await env.observe().catch(() => observation),
        terminal: terminalOf(actions),
        envError: describeError(err),
      };
    }
    observation = await settleAfterStep(env, sent.length, options.settleMs, observation, signal);
    return { observation, terminal: terminalOf(actions) };
  }
}
