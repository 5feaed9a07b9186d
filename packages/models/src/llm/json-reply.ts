/**
 * The one call loop of the LLM components: call the model, parse the reply (a JSON object
 * validated with the component's zod schema, or plain non-empty text), re-ask a bounded number of
 * times with the parse error, then give up with a failure string. Never throws for model behaviour
 * or transport errors: the callers turn a failure into their fail-safe answer, with the reason.
 */
import type { z } from "zod";
import type { ChatMessage, ChatModel, ChatRequest } from "@retrace-cua/core/model";
import type { ModelRole, ModelUsage } from "@retrace-cua/core/usage";
import { describeError, ModelBehaviorError } from "@retrace-cua/core/errors";
import { callModel } from "./call.ts";
import { MAX_NESTING } from "@retrace-cua/core/bounds";

/** What {@link askForText} needs (and {@link askForJson}, plus a schema). */
export interface AskOptions {
  model: ChatModel;
  role: ModelRole;
  /** `id@version` of the prompt behind the call. */
  prompt: string;
  messages: ChatMessage[];
  /** Extra re-asks after an invalid reply (0 = no re-ask). */
  maxReasks: number;
  temperature?: number;
  maxTokens?: number;
  /** Per-call time limit in ms; a call that exceeds it counts as failed (no re-ask). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What {@link askForJson} needs. */
export interface AskForJsonOptions<T> extends AskOptions {
  /** Validates the parsed object (shape and ranges). */
  schema: z.ZodType<T>;
}

/** Outcome: `value` on success, otherwise `failure`; `usage` holds every call made. */
export interface JsonReply<T> {
  value?: T;
  failure?: string;
  usage: ModelUsage[];
  /** Raw text of the last reply, when there was one. */
  raw?: string;
  /** Model calls made (1 + re-asks). */
  attempts: number;
}

/**
 * The first balanced `{...}` object in `text` (code fences and prose around it are ignored),
 * parsed; throws a ModelBehaviorError naming what was wrong (JSON.parse's SyntaxError for bad JSON inside).
 */
export function extractJsonObject(text: string): unknown {
  const start = text.indexOf("{");
  if (start < 0) throw new ModelBehaviorError("the reply contains no JSON object");
  let depth = 0;
  let nest = 0; // objects and arrays, bounded (model output is untrusted: deep nesting overflows later walks)
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === "{" || ch === "[") nest++;
    else if (ch === "}" || ch === "]") nest--;
    if (ch === '"') inString = true;
    else if (nest > MAX_NESTING)
      throw new ModelBehaviorError(`the JSON object in the reply is nested more than ${MAX_NESTING} levels deep`);
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return JSON.parse(text.slice(start, i + 1));
  }
  throw new ModelBehaviorError("the JSON object in the reply is not closed");
}

/** Ask for a JSON object: validate it with the schema, re-ask with the error, then fail. */
export function askForJson<T>(opts: AskForJsonOptions<T>): Promise<JsonReply<T>> {
  return askLoop(opts, true, (text) => validate(text, opts.schema));
}

/** Ask for plain text (a briefing, a summary): an empty reply is re-asked, then a failure. */
export function askForText(opts: AskOptions): Promise<JsonReply<string>> {
  return askLoop(opts, false, (text) =>
    text.trim() ? { ok: true, value: text.trim() } : { ok: false, error: "the reply is empty" },
  );
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Ask, parse, re-ask with the parse error, then fail. */
async function askLoop<T>(opts: AskOptions, json: boolean, parse: (text: string) => Parsed<T>): Promise<JsonReply<T>> {
  const usage: ModelUsage[] = [];
  const messages = [...opts.messages];
  let raw: string | undefined;
  let failure = "no reply";
  for (let attempt = 0; attempt <= opts.maxReasks; attempt++) {
    const request: ChatRequest = {
      role: opts.role,
      prompt: opts.prompt,
      messages,
      ...(json ? { json: true } : {}),
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
    };
    const res = await callModel(opts.model, request, { timeoutMs: opts.timeoutMs, signal: opts.signal });
    if (!res.ok) return { failure: res.error, usage, raw, attempts: attempt + 1 };
    usage.push(res.response.usage);
    raw = res.response.text;
    const problem = parse(raw);
    if (problem.ok) return { value: problem.value, usage, raw, attempts: attempt + 1 };
    failure = `invalid reply: ${problem.error}`;
    messages.push(
      { role: "assistant", content: raw },
      {
        role: "user",
        content: `Your reply could not be used: ${problem.error}. Answer again ${json ? "with only the JSON object, in exactly the format asked for" : "in the format asked for"}.`,
      },
    );
  }
  return { failure: `${failure} (after ${opts.maxReasks + 1} attempt(s))`, usage, raw, attempts: opts.maxReasks + 1 };
}

function validate<T>(text: string, schema: z.ZodType<T>): Parsed<T> {
  let parsed: unknown;
  try {
    parsed = extractJsonObject(text);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : describeError(err) };
  }
  const result = schema.safeParse(parsed);
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "reply"}: ${i.message}`);
  return { ok: false, error: issues.join("; ") };
}
