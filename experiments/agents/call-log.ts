/**
 * The per-episode log of model calls: every call an episode's model agents made, with the step it
 * belongs to (packages/core/src/runtime/call-site.ts: set by the runtime when the call is made), its draw
 * identity (episode seed, task, continuation, role, ordinal), the messages sent (screenshots as
 * blob references), the reply, tokens, latency and list-price cost. It is written into the
 * episode's record (`trajectory.json`, field `calls`), which is what the report's viewer shows per
 * step. A call answered from the record/replay cache is logged the same way (marked `cached`), so a
 * replayed run shows the same calls on the same steps.
 */
import type { ChatMessage, DrawIdentity } from "@retrace-cua/core/model";
import type { CallPhase, CallSite } from "@retrace-cua/core/runtime/call-site";

/** Longest text part kept per message (the log is for reading, not for replaying). */
export const CALL_TEXT_LIMIT = 20_000;

/** One model call of an episode. */
export interface CallRecord {
  /** Trajectory position of the step the call belongs to; null when the runtime set no call site. */
  seq: number | null;
  /**
   * The call's place in the episode's calls in the order they were asked for (from 0): by when the
   * runtime entered its call site (packages/core/src/runtime/call-site.ts, program order, so the same under a
   * seed even where the detector and the speculative proposal call concurrently), then by start.
   * The viewer lists a step's calls by it. Absent in records written before it existed.
   */
  order?: number;
  /** What the call was for (policy, detector, selector, summarizer, recoverer, verifier). */
  phase?: CallPhase;
  /** Recovery attempt, for the calls of a recovery attempt. */
  attempt?: number;
  /** A speculative proposal the runtime threw away (the detector fired): it made no step. */
  discarded?: boolean;
  /** Accounting role of the agent that called. */
  role: string;
  model: string;
  /** `id@version` of the prompt. */
  prompt?: string;
  /** The draw identity the request carried (episode seed, task, k, role, ordinal). */
  draw?: Omit<DrawIdentity, "requestSeed">;
  messages: ChatMessage[];
  reply: string;
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens the provider served from its prompt cache (part of inputTokens). */
  cachedInputTokens?: number;
  /** Prompt tokens the provider wrote to its prompt cache (part of inputTokens; Anthropic). */
  cacheWriteInputTokens?: number;
  latencyMs: number;
  /** List price in USD (absent when the spec has no price). */
  costUsd?: number;
  /** Served from the record/replay cache. */
  cached?: boolean;
  /** The call failed (after the backend's retries): its message. */
  error?: string;
}

/** Messages as logged: long text parts cut at {@link CALL_TEXT_LIMIT}, screenshots kept as references. */
export function loggedMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const cut = (t: string) =>
    t.length > CALL_TEXT_LIMIT
      ? `${t.slice(0, CALL_TEXT_LIMIT)} [... ${t.length - CALL_TEXT_LIMIT} more characters]`
      : t;
  return messages.map((m) => ({
    role: m.role,
    content:
      typeof m.content === "string"
        ? cut(m.content)
        : m.content.map((p) => (p.type === "text" ? { type: "text" as const, text: cut(p.text) } : p)),
  }));
}

/**
 * The call-site fields of a record (read when the log is written: the runtime may mark a site discarded after the
 * call).
 */
export function siteFields(site: CallSite | undefined): Pick<CallRecord, "seq" | "phase" | "attempt" | "discarded"> {
  if (!site) return { seq: null };
  return {
    seq: site.seq,
    phase: site.phase,
    ...(site.attempt !== undefined ? { attempt: site.attempt } : {}),
    ...(site.discarded ? { discarded: true } : {}),
  };
}

/**
 * The log in a stable order: by step (`seq`), then in the order the calls were asked for (`order`,
 * numbered here from the call sites' entry order), so concurrent calls do not reorder the file and
 * a step's calls read in time order (a recoverer's claim before the verifier call that judged it).
 */
export function orderedCalls(
  calls: ReadonlyArray<Omit<CallRecord, "order"> & { order: [number, number]; site?: CallSite }>,
): CallRecord[] {
  return [...calls]
    .sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1])
    .map(({ site, order: _o, ...c }, i): CallRecord => ({ ...c, ...(site ? siteFields(site) : {}), order: i }))
    .sort((a, b) => (a.seq ?? -1) - (b.seq ?? -1) || a.order! - b.order!);
}
