/** Option validation shared by the LLM-backed components. */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import type { ChatModel } from "@retrace-cua/core/model";

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
    throw new ConfigError(`${what}: option "model" must be a ChatModel (an object with complete(request))`, {
      field: "model",
    });
  }
}

/**
 * The call settings every LLM component takes. Each component's options type names its own
 * defaults (name, temperature, detail, max tokens) in its JSDoc.
 */
export interface LlmCallSettings {
  /** Image detail hint. */
  detail?: "low" | "high" | "auto";
  /** Sampling temperature. */
  temperature?: number;
  /** Max output tokens. */
  maxTokens?: number;
  /** Per-call time limit in ms; a timeout counts as a failed call. @default undefined (the backend's timeout) */
  timeoutMs?: number;
  /** Name in records. */
  name?: string;
}

/** Options of a JSON-role component (detector, selector, verifiers, judge): its model, call settings and re-asks. */
export interface JsonRoleOptions extends LlmCallSettings {
  /** The backbone chat model. */
  model: ChatModel;
  /** Re-asks after an invalid reply before failing safe. @default 1 */
  maxReasks?: number;
}

/** What one model call of a component takes from its parsed options (spread into askForJson/askForText). */
export function roleCall(o: { maxReasks?: number; temperature?: number; maxTokens?: number; timeoutMs?: number }) {
  return { maxReasks: o.maxReasks ?? 0, temperature: o.temperature, maxTokens: o.maxTokens, timeoutMs: o.timeoutMs };
}

/** Re-asks after an invalid reply before failing safe (detector, selector, verifier). */
export const maxReasksField = () => z.number().int().min(0).max(5).default(1);

/** How many past screenshots to attach. */
export const imagesField = (byDefault: number) => z.number().int().min(0).default(byDefault);

/**
 * The call fields every LLM component takes, with that component's defaults: image detail,
 * temperature, max output tokens, per-call timeout and the name used in records.
 */
export function callFields(defaults: {
  name: string;
  temperature: number;
  maxTokens?: number;
  detail?: "low" | "high" | "auto";
}) {
  return {
    detail: z.enum(["low", "high", "auto"]).default(defaults.detail ?? "auto"),
    temperature: z.number().min(0).max(2).default(defaults.temperature),
    maxTokens: z
      .number()
      .int()
      .min(1)
      .default(defaults.maxTokens ?? 1024),
    timeoutMs: z.number().int().min(1).optional(),
    name: z.string().min(1).default(defaults.name),
  };
}

/** The call fields of an agent-backed component (recoverer, perturber): unset ones fall back to the agent's own. */
export function agentCallFields(name: string) {
  return {
    detail: z.enum(["low", "high", "auto"]).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxTokens: z.number().int().min(1).optional(),
    timeoutMs: z.number().int().min(1).optional(),
    name: z.string().min(1).default(name),
  };
}
