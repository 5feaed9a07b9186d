/**
 * The perturbation policy of recovery evaluation (paper Sec. 5.2 / App. A.1): the forward agent
 * (same backbone, same action format, built by the same adapter) with the perturbation
 * instruction prepended to its per-step instruction, prompted to drift a correct trajectory into
 * an erroneous state with meaningful actions within a small budget. It is a ForwardPolicy so the
 * same runner can drive it. Each decision it makes is tagged `memo: { perturbation: true }` (merged
 * into the format's own memo, e.g. a computer-use conversation id), which is how it counts the
 * budget it has used from the history it is handed back.
 */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel } from "@retrace-cua/core/model";
import type { ForwardPolicy, HistoryEntry, JsonValue, PolicyDecision, PolicyInput } from "@retrace-cua/core/policy";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import { logger } from "@retrace-cua/core/logger";
import perturbationInstruction from "@retrace-cua/core/prompts/perturbation-instruction";
import type { AgentFormatSpec } from "../policies/format.ts";
import { framedAgent, proposeGuarded } from "./framed-agent.ts";
import { agentCallFields, imagesField, parseOptions, type LlmCallSettings } from "./options.ts";

/**
 * Options of {@link createLlmPerturbationPolicy}. Call settings left unset are the agent's own (else detail "auto",
 * maxTokens 3000); name "llm-perturber"; a timed-out call is a recorded model-error step.
 */
export interface LlmPerturbationPolicyOptions extends LlmCallSettings {
  /** The forward agent's spec (backbone and action format). @default { format: "pyautogui", model } */
  agent?: AgentFormatSpec;
  /** Shorthand for `agent: { format: "pyautogui", model }`. */
  model?: ChatModel;
  /** Perturbation steps allowed (the recovery distance d; paper: 1 short, 5 long horizon). @default 1 */
  budget?: number;
  /** Past screenshots to attach. @default 1 */
  historyImages?: number;
  /** Sampling temperature. @default the agent's, else 0.7 */
  temperature?: number;
}

const OptionsSchema = z
  .object({
    budget: z.number().int().min(1).default(1),
    historyImages: imagesField(1),
    ...agentCallFields("llm-perturber"),
  })
  .strict();

const NOT_A_PERTURBATION = new Set(["WAIT", "DONE", "FAIL"]);

function isPerturbation(e: HistoryEntry): boolean {
  return typeof e.memo === "object" && e.memo !== null && !Array.isArray(e.memo) && e.memo.perturbation === true;
}

/** The format's memo with the perturbation tag added. */
function tagged(memo: JsonValue | undefined): JsonValue {
  const base = memo && typeof memo === "object" && !Array.isArray(memo) ? memo : {};
  return { ...base, perturbation: true };
}

/** A perturbation policy in the agent's action format. */
export function createLlmPerturbationPolicy(options: LlmPerturbationPolicyOptions): ForwardPolicy {
  const { agent, model, ...rest } = options ?? ({} as LlmPerturbationPolicyOptions);
  const o = parseOptions(OptionsSchema, rest, "createLlmPerturbationPolicy");
  if (!agent && !model)
    throw new ConfigError(
      'createLlmPerturbationPolicy: option "agent" (the forward agent spec) or "model" (a ChatModel) is required',
      { field: "agent" },
    );
  const spec: AgentFormatSpec = agent ?? { format: "pyautogui", model: model!, temperature: 0.7, maxTokens: 3000 };
  const policy = framedAgent(
    spec,
    { historyImages: o.historyImages, detail: o.detail, temperature: o.temperature, maxTokens: o.maxTokens },
    "createLlmPerturbationPolicy",
  );
  const prompt = promptRef(perturbationInstruction);
  return {
    name: o.name,
    async propose(input: PolicyInput): Promise<PolicyDecision> {
      const stepsLeft = o.budget - input.history.filter(isPerturbation).length;
      if (stepsLeft <= 0)
        return {
          actions: [],
          memo: { perturbation: true },
          failure: { kind: "refused", message: `perturbation budget of ${o.budget} step(s) is spent` },
        };
      const { signal, ...forwardInput } = input;
      const decision = await proposeGuarded(
        policy,
        forwardInput,
        {
          prompt,
          role: "perturber",
          instructionPrefix: renderPrompt(perturbationInstruction, {
            instruction: input.task.instruction,
            steps_left: stepsLeft,
          }),
        },
        { timeoutMs: o.timeoutMs, signal },
      );
      const memo = tagged(decision.memo);
      if (decision.failure) {
        if (decision.failure.kind === "model-error")
          logger.warn({ perturber: o.name, error: decision.failure.message }, "perturbation model call failed");
        return { ...decision, actions: [], memo };
      }
      const meaningful = decision.actions.filter((a) => !NOT_A_PERTURBATION.has(a.type));
      if (meaningful.length === 0) {
        return {
          ...decision,
          actions: [],
          memo,
          failure: {
            kind: "refused",
            message: "the perturbation produced no state-changing action (only WAIT/DONE/FAIL)",
          },
        };
      }
      return { ...decision, actions: meaningful, memo };
    },
  };
}
