/**
 * The perturbation policy of recovery evaluation (paper Sec. 5.2 / App. A.1): an agent on the
 * forward model's backbone, prompted to drift a correct trajectory into an erroneous state with
 * meaningful actions within a small budget. It is a ForwardPolicy so the same runner can drive it.
 * Each decision it makes is tagged `memo: { perturbation: true }`, which is how it counts the
 * budget it has used from the history it is handed back.
 */
import { z } from "zod";
import type { ChatContentPart, ChatModel } from "../../src/model.ts";
import type { ForwardPolicy, HistoryEntry, PolicyDecision, PolicyInput } from "../../src/policy.ts";
import { renderPrompt } from "../../src/prompt.ts";
import { logger } from "../../src/logger.ts";
import perturbationInstruction from "../../prompts/perturbation-instruction.ts";
import forwardSystem from "../../prompts/forward-pyautogui-system.ts";
import forwardStep from "../../prompts/forward-pyautogui-step.ts";
import { callModel } from "./call.ts";
import { historyParts, screenshotPart } from "./history.ts";
import { callFields, imagesField, parseOptions, requireModel } from "./options.ts";
import { joinPromptRefs } from "./prompt-refs.ts";
import { decideFromReply, defaultActionParser, type ActionParser } from "./reply-actions.ts";

/** Options of {@link createLlmPerturbationPolicy}. */
export interface LlmPerturbationPolicyOptions {
  /** The forward model's backbone. */
  model: ChatModel;
  /** Perturbation steps allowed (the recovery distance d; paper: 1 short, 5 long horizon). @default 1 */
  budget?: number;
  /** Past screenshots to attach. @default 1 */
  historyImages?: number;
  /** Image detail hint. @default "auto" */
  detail?: "low" | "high" | "auto";
  /** Sampling temperature. @default 0.7 */
  temperature?: number;
  /** Max output tokens. @default 3000 */
  maxTokens?: number;
  /** Per-call time limit in ms. @default undefined (the backend's timeout) */
  timeoutMs?: number;
  /** Converter from the model's reply to actions. @default the pyautogui converter */
  parseActions?: ActionParser;
  /** Name in records. @default "llm-perturber" */
  name?: string;
}

const OptionsSchema = z
  .object({
    budget: z.number().int().min(1).default(1),
    historyImages: imagesField(1),
    ...callFields({ name: "llm-perturber", temperature: 0.7, maxTokens: 3000 }),
  })
  .strict();

const NOT_A_PERTURBATION = new Set(["WAIT", "DONE", "FAIL"]);

function isPerturbation(e: HistoryEntry): boolean {
  return typeof e.memo === "object" && e.memo !== null && !Array.isArray(e.memo) && e.memo.perturbation === true;
}

/** A perturbation policy backed by a chat model. */
export function createLlmPerturbationPolicy(options: LlmPerturbationPolicyOptions): ForwardPolicy {
  const { model, parseActions, ...rest } = options;
  requireModel(model, "createLlmPerturbationPolicy");
  const o = parseOptions(OptionsSchema, rest, "createLlmPerturbationPolicy");
  const parse = parseActions ?? defaultActionParser;
  const prompt = joinPromptRefs(forwardSystem, perturbationInstruction, forwardStep);
  return {
    name: o.name,
    async propose(input: PolicyInput): Promise<PolicyDecision> {
      const memo = { perturbation: true };
      const stepsLeft = o.budget - input.history.filter(isPerturbation).length;
      if (stepsLeft <= 0) return { actions: [], memo, failure: { kind: "refused", message: `perturbation budget of ${o.budget} step(s) is spent` } };
      const parts: ChatContentPart[] = [];
      if (input.history.length > 0) {
        parts.push({ type: "text", text: "What the agent has done so far:" }, ...historyParts(input.history, { images: o.historyImages, detail: o.detail }));
      }
      parts.push(
        {
          type: "text",
          text:
            renderPrompt(perturbationInstruction, { instruction: input.task.instruction, steps_left: stepsLeft }) +
            "\n\n" +
            renderPrompt(forwardStep, { instruction: input.task.instruction }),
        },
        screenshotPart(input.observation, o.detail),
      );
      const res = await callModel(
        model,
        {
          role: "perturber",
          prompt,
          temperature: o.temperature,
          maxTokens: o.maxTokens,
          messages: [
            { role: "system", content: renderPrompt(forwardSystem, { screen_width: input.observation.width, screen_height: input.observation.height }) },
            { role: "user", content: parts },
          ],
        },
        { timeoutMs: o.timeoutMs, signal: input.signal },
      );
      if (!res.ok) {
        logger.warn({ perturber: o.name, error: res.error }, "perturbation model call failed");
        return { actions: [], memo, failure: { kind: "model-error", message: res.error } };
      }
      const decision = decideFromReply(res.response.text, { parse, screen: { width: input.observation.width, height: input.observation.height } });
      const base = { response: res.response.text, usage: [res.response.usage], memo };
      if (decision.failure) return { ...base, actions: [], failure: decision.failure };
      const meaningful = decision.actions.filter((a) => !NOT_A_PERTURBATION.has(a.type));
      if (meaningful.length === 0) {
        return { ...base, actions: [], failure: { kind: "refused", message: "the perturbation produced no state-changing action (only WAIT/DONE/FAIL)" } };
      }
      return { ...base, actions: meaningful };
    },
  };
}
