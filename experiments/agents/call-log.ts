/**
 * The per-episode log of model calls: every call an episode's model agents made, with the step it
 * belongs to (src/runtime/call-site.ts: set by the runtime when the call is made), its draw
 * identity (episode seed, task, continuation, role, ordinal), the messages sent (screenshots as
 * blob references), the reply, tokens, latency and list-price cost. It is written into the
 * episode's record (`trajectory.json`, field `calls`), which is what the report's viewer shows per
 * step. A call answered from the record/replay cache is logged the same way (marked `cached`), so a
 * replayed run shows the same calls on the same steps.
 */
import type { ChatMessage, DrawIdentity } from "../../src/model.ts";
import type { CallPhase, CallSite } from "../../src/runtime/call-site.ts";

/** Longest text part kept per message (the log is for reading, not for replaying). */
export const CALL_TEXT_LIMIT = 20_000;

/** One model call of an episode. */
export interface CallRecord {
  /** Trajectory position of the step the call belongs to; null when the runtime set no call site. */
  seq: number | null;
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
  const cut = (t: string) => (t.length > CALL_TEXT_LIMIT ? `${t.slice(0, CALL_TEXT_LIMIT)} [... ${t.length - CALL_TEXT_LIMIT} more characters]` : t);
  return messages.map((m) => ({
    role: m.role,
    content: typeof m.content === "string" ? cut(m.content) : m.content.map((p) => (p.type === "text" ? { type: "text" as const, text: cut(p.text) } : p)),
  }));
}

/** The call-site fields of a record (read when the log is written: the runtime may mark a site discarded after the call). */
export function siteFields(site: CallSite | undefined): Pick<CallRecord, "seq" | "phase" | "attempt" | "discarded"> {
  if (!site) return { seq: null };
  return { seq: site.seq, phase: site.phase, ...(site.attempt !== undefined ? { attempt: site.attempt } : {}), ...(site.discarded ? { discarded: true } : {}) };
}

const PHASE_ORDER: Record<string, number> = { policy: 0, detector: 1, selector: 2, summarizer: 3, recoverer: 4, verifier: 5 };

/** The log in a stable order (by step, then phase, then the order calls were made), so concurrent calls do not reorder the file. */
export function orderedCalls(calls: ReadonlyArray<CallRecord & { order: number; site?: CallSite }>): CallRecord[] {
  return calls
    .map(({ site, ...c }) => ({ ...c, ...(site ? siteFields(site) : {}) }))
    .sort((a, b) => (a.seq ?? -1) - (b.seq ?? -1) || (PHASE_ORDER[a.phase ?? ""] ?? 9) - (PHASE_ORDER[b.phase ?? ""] ?? 9) || a.order - b.order)
    .map(({ order: _o, ...c }) => c as CallRecord);
}
