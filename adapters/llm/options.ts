/** Option validation shared by the LLM-backed components. */
import type { z } from "zod";
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
