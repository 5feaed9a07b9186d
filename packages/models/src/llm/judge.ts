/**
 * The LLM recovery judge: the model baseline of the paper's oracle study (Table 1, prompt in
 * Figure 38). Given the task, the actions up to the error, the recovery actions and the TARGET,
 * ERROR and RECOVERED screenshots, a chat model answers whether the target state was restored,
 * with a reason. The reply is JSON validated with zod and re-asked once when invalid
 * (./json-reply.ts); a judge that still gives no usable answer abstains (`restored: null`) with
 * the failure, so callers can count it apart instead of reading it as "no".
 */
import { z } from "zod";
import type { Observation } from "@retrace-cua/core/observation";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import type { ModelUsage } from "@retrace-cua/core/usage";
import recoveryJudge from "@retrace-cua/core/prompts/recovery-judge";
import { askForJson } from "./json-reply.ts";
import { screenshotPart } from "./history.ts";
import { callFields, maxReasksField, parseOptions, requireModel, roleCall, type JsonRoleOptions } from "./options.ts";

/** The reply contract of the judge prompt. */
export const JudgeReplySchema = z.object({
  restored: z.boolean(),
  reason: z.string().min(1),
});

/**
 * Options of {@link createLlmRecoveryJudge}. Backbone in the paper: GPT-5.4. Defaults: temperature 0, detail "high",
 * maxTokens 1024, name "llm-judge"; a failure abstains.
 */
export interface LlmRecoveryJudgeOptions extends JsonRoleOptions {}

const OptionsSchema = z
  .object({
    maxReasks: maxReasksField(),
    ...callFields({ name: "llm-judge", temperature: 0, detail: "high" }),
  })
  .strict();

/** What the judge is shown about one recovery run. */
export interface RecoveryJudgeInput {
  /** The task's instruction. */
  instruction: string;
  /** The actions from the start to the error state, one line per step (already numbered and marked). */
  history: readonly string[];
  /** The recovery agent's steps, one line each (actions, and its rationale when it gave one). */
  recovery: readonly string[];
  target: Observation;
  error: Observation;
  recovered: Observation;
  signal?: AbortSignal;
}

/** The judge's answer. */
export interface RecoveryJudgement {
  /** null when the judge itself failed (see `failure`). */
  restored: boolean | null;
  reason: string;
  /** `id@version` of the prompt. */
  prompt: string;
  usage: ModelUsage[];
  failure?: string;
}

/** An LLM judge of recovery runs. */
export interface LlmRecoveryJudge {
  readonly name: string;
  judge(input: RecoveryJudgeInput): Promise<RecoveryJudgement>;
}

/** Create the LLM recovery judge. */
export function createLlmRecoveryJudge(options: LlmRecoveryJudgeOptions): LlmRecoveryJudge {
  const { model, ...rest } = options;
  requireModel(model, "createLlmRecoveryJudge");
  const o = parseOptions(OptionsSchema, rest, "createLlmRecoveryJudge");
  const prompt = promptRef(recoveryJudge);
  return {
    name: o.name,
    async judge(input) {
      const text = renderPrompt(recoveryJudge, {
        instruction: input.instruction,
        history: input.history.length ? input.history.join("\n") : "(no actions: the task had just started)",
        recovery: input.recovery.length ? input.recovery.join("\n") : "(no actions)",
      });
      const reply = await askForJson({
        model,
        role: "judge",
        prompt,
        schema: JudgeReplySchema,
        ...roleCall(o),
        signal: input.signal,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text },
              { type: "text", text: "TARGET:" },
              screenshotPart(input.target, o.detail),
              { type: "text", text: "ERROR:" },
              screenshotPart(input.error, o.detail),
              { type: "text", text: "RECOVERED:" },
              screenshotPart(input.recovered, o.detail),
            ],
          },
        ],
      });
      if (!reply.value)
        return {
          restored: null,
          reason: "the judge gave no usable answer",
          prompt,
          usage: reply.usage,
          failure: reply.failure,
        };
      return { restored: reply.value.restored, reason: reply.value.reason.trim(), prompt, usage: reply.usage };
    },
  };
}
