/** Option validation shared by the LLM-backed components. */
import { z } from "zod";
import { ConfigError } from "../../src/errors.ts";
import type { ChatModel } from "../../src/model.ts";

/** Validate options with zod; the ConfigError names the first bad field. */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue.path.join(".");
  throw new ConfigError(`${what}: option "${field}" ${issue.message}`, { field });
}

/** Throw a ConfigError unless `model` looks like a ChatModel. */
export function requireModel(model: unknown, what: string): asserts model is ChatModel {
  if (!model || typeof (model as ChatModel).complete !== "function") {
    throw new ConfigError(`${what}: option "model" must be a ChatModel (an object with complete(request))`, { field: "model" });
  }
}

/** Re-asks after an invalid reply before failing safe (detector, selector, verifier). */
export const maxReasksField = () => z.number().int().min(0).max(5).default(1);

/** How many past screenshots to attach. */
export const imagesField = (byDefault: number) => z.number().int().min(0).default(byDefault);

/**
 * The call fields every LLM component takes, with that component's defaults: image detail,
 * temperature, max output tokens, per-call timeout and the name used in records.
 */
export function callFields(defaults: { name: string; temperature: number; maxTokens?: number; detail?: "low" | "high" | "auto" }) {
  return {
    detail: z.enum(["low", "high", "auto"]).default(defaults.detail ?? "auto"),
    temperature: z.number().min(0).max(2).default(defaults.temperature),
    maxTokens: z.number().int().min(1).default(defaults.maxTokens ?? 1024),
    timeoutMs: z.number().int().min(1).optional(),
    name: z.string().min(1).default(defaults.name),
  };
}
