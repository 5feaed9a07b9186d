/**
 * An LLM state verifier: does the CURRENT screenshot show the same state as the TARGET one?
 * Answers match, mismatch or abstain with the visible evidence it relied on. After VeriCUA
 * (../shared/seeds/003_6a4dfceef9d35eab.txt), a verdict must rest on attested evidence: a
 * match or mismatch that lists no evidence is downgraded to abstain, and every failure of the
 * verifier itself (invalid reply, timeout, transport error) is an abstention, never a guess.
 */
import { z } from "zod";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Observation } from "@retrace-cua/core/observation";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import type { StateVerifier, VerifierVerdict } from "@retrace-cua/core/recovery";
import type { ModelUsage } from "@retrace-cua/core/usage";
import { logger } from "@retrace-cua/core/logger";
import stateVerifier from "@retrace-cua/core/prompts/state-verifier";
import { askForJson } from "./json-reply.ts";
import { screenshotPart } from "./history.ts";
import { callFields, maxReasksField, parseOptions, requireModel, roleCall, type JsonRoleOptions } from "./options.ts";

/** The reply contract of the verifier prompt. */
export const VerifierReplySchema = z.object({
  verdict: z.enum(["match", "mismatch", "abstain"]),
  evidence: z.array(z.string()).default([]),
  reason: z.string(),
});

/**
 * Options of {@link createLlmStateVerifier}. Defaults: temperature unset (the API's; paper: GPT-5-Mini defaults),
 * detail "high", maxTokens 1024, name "llm-verifier"; a failure abstains.
 */
export interface LlmStateVerifierOptions extends JsonRoleOptions {}

const OptionsSchema = z
  .object({
    maxReasks: maxReasksField(),
    ...callFields({ name: "llm-verifier", temperature: 0, detail: "high" }),
    // undefined leaves the API's default temperature (the paper used GPT-5-Mini's defaults)
    temperature: z.number().min(0).max(2).optional(),
  })
  .strict();

/** What the verifier returns (StateVerifier's result plus the prompt reference and any failure). */
export interface LlmVerification {
  verdict: VerifierVerdict;
  reason: string;
  evidence?: string[];
  usage?: ModelUsage[];
  prompt: string;
  /** Set when the verifier itself failed; the verdict is then "abstain". */
  failure?: string;
}

/** A StateVerifier whose result also carries the prompt reference and any failure. */
export interface LlmStateVerifier extends StateVerifier {
  verify(input: {
    target: Observation;
    current: Observation;
    blobs: BlobReader;
    signal?: AbortSignal;
  }): Promise<LlmVerification>;
}

/** An LLM state verifier. */
export function createLlmStateVerifier(options: LlmStateVerifierOptions): LlmStateVerifier {
  const { model, ...rest } = options;
  requireModel(model, "createLlmStateVerifier");
  const o = parseOptions(OptionsSchema, rest, "createLlmStateVerifier");
  const prompt = promptRef(stateVerifier);
  return {
    name: o.name,
    async verify(input) {
      const reply = await askForJson({
        model,
        role: "verifier",
        prompt,
        schema: VerifierReplySchema,
        ...roleCall(o),
        signal: input.signal,
        messages: [
          { role: "system", content: renderPrompt(stateVerifier, {}) },
          {
            role: "user",
            content: [
              { type: "text", text: "TARGET:" },
              screenshotPart(input.target, o.detail),
              { type: "text", text: "CURRENT:" },
              screenshotPart(input.current, o.detail),
            ],
          },
        ],
      });
      if (!reply.value) {
        logger.warn({ verifier: o.name, failure: reply.failure }, "verifier failed; abstaining");
        return {
          verdict: "abstain",
          reason: "the verifier could not give a usable answer",
          evidence: [],
          usage: reply.usage,
          prompt,
          failure: reply.failure,
        };
      }
      const { verdict, evidence, reason } = reply.value;
      const attested = evidence.map((e) => e.trim()).filter(Boolean);
      if (verdict !== "abstain" && attested.length === 0) {
        return {
          verdict: "abstain",
          reason: `the model said "${verdict}" without citing visible evidence: ${reason}`,
          evidence: [],
          usage: reply.usage,
          prompt,
        };
      }
      return { verdict, reason, evidence: attested, usage: reply.usage, prompt };
    },
  };
}
