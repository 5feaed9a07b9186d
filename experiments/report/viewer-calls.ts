/**
 * The viewer's per-step model calls and the context after a cut. Calls come from the episode's
 * own call log (experiments/agents/call-log.ts: each call recorded with the step it belongs to
 * when it was made), never matched by screenshot: a step shows exactly the calls trajectory.json
 * records at its seq (its policy call, the detector call that judged it, the selector/summarizer
 * calls of the recovery its detection started; a recovery step its recoverer and verifier calls,
 * a claim with no action included), in the order they were asked for. Every call lands on exactly
 * one step. The context view shows, for the first forward step after a restoration, what the
 * policy's history was before and after the cut (what was dropped, from where), the transition
 * string, and, when the policy called a model, a line diff of the messages it received against
 * the previous forward step's.
 */
import type { ChatContentPart, ChatMessage } from "@retrace-cua/core/model";
import type { StepRecord, TrajectoryEvent } from "@retrace-cua/core/trajectory";
import { formatAction } from "@retrace-cua/core/action";
import { promptRef, renderPrompt } from "@retrace-cua/core/prompt";
import { TRANSITION_PROMPTS } from "@retrace-cua/core/prompts/index";
import type { CallRecord } from "../agents/call-log.ts";
import { confirmationWords } from "./step-words.ts";

/** A message part as the viewer shows it: text, or a screenshot (URL relative to the report). */
export type ViewerPart = { text: string } | { img: string };

/** One model call as the viewer shows it. */
export interface ViewerCall {
  /** Trajectory position of the step the call was recorded against. */
  seq: number;
  /** The call's place in the episode's calls in the order they were asked for (CallRecord.order), when recorded. */
  order?: number;
  phase: string;
  role: string;
  model: string;
  prompt?: string;
  attempt?: number;
  /** A speculative proposal thrown away because the detector fired (shown on the judged step). */
  discarded?: boolean;
  cached?: boolean;
  error?: string;
  /** The episode identity the call was drawn under (seed, task, continuation k, ordinal). */
  draw?: { seed: number; task: string; k?: number; ordinal: number };
  messages: Array<{ role: string; parts: ViewerPart[] }>;
  reply: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs?: number;
  /** US dollars at list price; absent when the spec had no price (shown as n/a, never $0). */
  costUsd?: number;
}

/** A line of the context diff: kept, dropped (-) or added (+). */
export interface DiffLine {
  op: " " | "-" | "+";
  text: string;
}

/** The first forward step after a restoration: the history cut and what the model saw. */
export interface ContextView {
  /** Recovery attempt whose restoration this follows. */
  attempt: number;
  /** Episode step after which the history was cut. */
  cutAfter: number;
  /** Forward history length before and after the cut. */
  from: number;
  to: number;
  /** History entries the policy still sees (the models' step numbers, the viewer's, and actions). */
  kept: string[];
  /** History entries the cut dropped. */
  dropped: string[];
  /** The transition string the policy received before this step ("" when the record does not name one). */
  transition: string;
  /** Whether the restoration counted as restored before the cut (`confirmation !== "refused"`). */
  restored: boolean;
  /** How the restoration was confirmed, in the viewer's words (step-words.ts confirmationWords). */
  confirmation: string;
  /**
   * The viewer's step number of the models' step the transition string names (the screen before it is the target), when
   * the record has it.
   */
  transitionStep?: number;
  /** Line diff of this step's policy messages against the previous forward step's (model runs only). */
  diff?: DiffLine[];
}

/**
 * The step index (into `steps`) a call is shown on: the step whose seq the record names (what
 * trajectory.json says; a "restored" claim with no action and a discarded speculative proposal
 * are recorded on the step they followed), or, when no step has that seq (an episode that
 * ended before the step was made), the last step before it. -1 when the call names no step.
 */
export function callStepIndex(
  steps: readonly Pick<StepRecord, "seq" | "role">[],
  call: Pick<CallRecord, "seq" | "phase" | "discarded">,
): number {
  if (call.seq === null || call.seq === undefined) return -1;
  const at = steps.findIndex((s) => s.seq === call.seq);
  if (at >= 0) return at;
  let before = -1;
  for (let i = 0; i < steps.length; i++) if (steps[i].seq < call.seq) before = i;
  return before;
}

/** A call's messages with screenshots as URLs. */
export function viewerMessages(
  messages: readonly ChatMessage[],
  url: (ref: unknown) => string,
): ViewerCall["messages"] {
  // A record is data read from disk: anything that is not a message list shows as nothing, never throws.
  if (!Array.isArray(messages)) return [];
  return messages
    .filter((m) => m && typeof m === "object")
    .map((m) => ({
      role: String(m.role),
      parts:
        typeof m.content === "string"
          ? [{ text: m.content }]
          : (Array.isArray(m.content) ? (m.content as ChatContentPart[]) : [])
              .filter((p) => p && typeof p === "object")
              .map((p): ViewerPart =>
                p.type === "image" ? { img: url(p.blob) } : { text: String((p as { text?: unknown }).text ?? "") },
              ),
    }));
}

/** A call record as the viewer shows it. */
export function viewerCall(c: CallRecord, url: (ref: unknown) => string): ViewerCall {
  const latency =
    typeof c.latencyMs === "number" && Number.isFinite(c.latencyMs) && c.latencyMs >= 0 ? c.latencyMs : undefined;
  return {
    seq: c.seq ?? -1,
    ...(typeof c.order === "number" ? { order: c.order } : {}),
    phase: c.phase ?? c.role,
    role: c.role,
    model: c.model,
    ...(c.prompt ? { prompt: c.prompt } : {}),
    ...(c.attempt !== undefined ? { attempt: c.attempt } : {}),
    ...(c.discarded ? { discarded: true } : {}),
    ...(c.cached ? { cached: true } : {}),
    ...(c.error ? { error: c.error } : {}),
    ...(c.draw
      ? {
          draw: {
            seed: c.draw.seed,
            task: c.draw.task,
            ...(c.draw.k !== undefined ? { k: c.draw.k } : {}),
            ordinal: c.draw.ordinal,
          },
        }
      : {}),
    messages: viewerMessages(c.messages, url),
    reply: String(c.reply ?? ""),
    inputTokens: Number(c.inputTokens) || 0,
    outputTokens: Number(c.outputTokens) || 0,
    ...(latency !== undefined ? { latencyMs: latency } : {}),
    ...(typeof c.costUsd === "number" && Number.isFinite(c.costUsd) ? { costUsd: c.costUsd } : {}),
  };
}

/**
 * The calls of an episode per step index (each call on exactly one step; calls naming no step are
 * left out), each step's in the order they were asked for (the record's `order`; calls without
 * one, from older records or ideal recovery's annotation, after them in the log's order).
 */
export function callsByStep(
  steps: readonly Pick<StepRecord, "seq" | "role">[],
  calls: readonly CallRecord[] | undefined,
  url: (ref: unknown) => string,
): Map<number, ViewerCall[]> {
  const placed = new Map<number, Array<{ key: [number, number]; call: ViewerCall }>>();
  (Array.isArray(calls) ? calls : []).forEach((c, n) => {
    if (!c || typeof c !== "object") return;
    const i = callStepIndex(steps, c);
    if (i < 0) return;
    const order = typeof c.order === "number" && Number.isFinite(c.order) ? c.order : undefined;
    placed.set(i, [
      ...(placed.get(i) ?? []),
      { key: order === undefined ? [1, n] : [0, order], call: viewerCall(c, url) },
    ]);
  });
  const out = new Map<number, ViewerCall[]>();
  for (const [i, list] of placed)
    out.set(
      i,
      list.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1]).map((x) => x.call),
    );
  return out;
}

/** The transition string a truncate event names (its prompt `id@version`), rendered for restoring to step `to`. */
export function transitionText(ref: unknown, to: number): string {
  for (const p of Object.values(TRANSITION_PROMPTS)) if (promptRef(p) === ref) return renderPrompt(p, { step: to });
  return "";
}

const actionsText = (s: StepRecord) =>
  s.actions
    .map((a) => {
      try {
        return formatAction(a);
      } catch {
        return a.type;
      }
    })
    .join("; ") || "(no action)";

/** The text of a call's messages, one line per text line, screenshots as "[screenshot <ref>]". */
function messageLines(messages: readonly ChatMessage[]): string[] {
  const lines: string[] = [];
  for (const m of Array.isArray(messages) ? messages : []) {
    if (!m || typeof m !== "object") continue;
    const parts =
      typeof m.content === "string"
        ? [m.content]
        : (Array.isArray(m.content) ? (m.content as ChatContentPart[]) : []).map((p) =>
            p.type === "image" ? `[screenshot ${String(p.blob).slice(0, 8)}]` : String(p.text ?? ""),
          );
    for (const p of parts) for (const l of p.split("\n")) lines.push(`${m.role}: ${l}`);
  }
  return lines;
}

/** A line diff (LCS) of `a` against `b`; long inputs fall back to common prefix and suffix. */
export function lineDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const x = a.slice(pre, a.length - suf),
    y = b.slice(pre, b.length - suf);
  const mid: DiffLine[] = [];
  if (x.length * y.length <= 250_000) {
    const L = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
    for (let i = x.length - 1; i >= 0; i--)
      for (let j = y.length - 1; j >= 0; j--)
        L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    let i = 0,
      j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) (mid.push({ op: " ", text: x[i] }), i++, j++);
      else if (L[i + 1][j] >= L[i][j + 1]) mid.push({ op: "-", text: x[i++] });
      else mid.push({ op: "+", text: y[j++] });
    }
    while (i < x.length) mid.push({ op: "-", text: x[i++] });
    while (j < y.length) mid.push({ op: "+", text: y[j++] });
  } else mid.push(...x.map((t) => ({ op: "-" as const, text: t })), ...y.map((t) => ({ op: "+" as const, text: t })));
  return [
    ...a.slice(0, pre).map((t) => ({ op: " " as const, text: t })),
    ...mid,
    ...a.slice(a.length - suf).map((t) => ({ op: " " as const, text: t })),
  ];
}

/**
 * The context views of an episode, by step index: for the first forward step after each history
 * cut, the forward history before and after it (rebuilt from the trajectory: a forward step at
 * task index t follows the first t entries), the transition string, and the diff of the policy's
 * messages against the previous forward step's when the call log has both.
 */
export function contextViews(
  steps: readonly StepRecord[],
  events: readonly TrajectoryEvent[],
  calls: readonly CallRecord[] | undefined,
): Map<number, ContextView> {
  const out = new Map<number, ContextView>();
  const policyCall = new Map<number, CallRecord>();
  for (const c of Array.isArray(calls) ? calls : [])
    if (c && c.phase === "policy" && !c.discarded && c.seq !== null && !policyCall.has(c.seq)) policyCall.set(c.seq, c);
  const cuts = new Map<number, TrajectoryEvent[]>();
  const ends = new Map<number, Record<string, unknown>>();
  for (const e of events) if (e.kind === "truncate") cuts.set(e.afterSeq, [...(cuts.get(e.afterSeq) ?? []), e]);
  for (const e of events) if (e.kind === "recovery-end" && e.detail) ends.set(Number(e.detail.attempt), e.detail);
  let history: Array<{ index: number; step: StepRecord }> = [];
  let pending: { e: TrajectoryEvent; before: typeof history; after: typeof history } | undefined;
  let lastForward: StepRecord | undefined;
  steps.forEach((s, i) => {
    if (s.role === "forward") {
      if (pending) {
        const d = pending.e.detail;
        const to = Number(d.to);
        const prev = lastForward ? policyCall.get(lastForward.seq) : undefined;
        const now = policyCall.get(s.seq);
        // The models' number first (what the policy saw in its history), the viewer's beside it.
        const line = (h: { index: number; step: StepRecord }) =>
          `the models' step ${h.step.step} (viewer step ${h.index}): ${actionsText(h.step)}`;
        const target = pending.before.find((h) => h.step.step === to);
        out.set(i, {
          attempt: Number(d.attempt) || 0,
          cutAfter: steps.findIndex((x) => x.seq === pending!.e.afterSeq),
          from: Number(d.from),
          to,
          kept: pending.after.map(line),
          dropped: pending.before.slice(pending.after.length).map(line),
          transition: transitionText(d.notice, to),
          restored: d.restored === true,
          confirmation: confirmationWords(ends.get(Number(d.attempt)) ?? d),
          ...(target ? { transitionStep: target.index } : {}),
          ...(prev && now ? { diff: lineDiff(messageLines(prev.messages), messageLines(now.messages)) } : {}),
        });
        pending = undefined;
      }
      history = [...history.slice(0, Math.max(0, s.step)), { index: i, step: s }];
      lastForward = s;
    }
    for (const e of cuts.get(s.seq) ?? []) {
      const after = history.slice(0, Math.max(0, Number(e.detail.to)));
      pending = { e, before: history, after };
      history = after;
    }
  });
  return out;
}
