/**
 * The conversation as retrace lets an AI-SDK-style loop see it (the Vercel AI SDK's
 * `generateText` and Stagehand's agent, which runs `generateText` of `ai` 5). Such a loop calls
 * `prepareStep` before every model call with the whole message list (initial messages plus every
 * response message so far) and sends whatever `messages` the hook returns, without keeping them:
 * the next call again gets the full list. So the wrapper keeps its own view: it appends the
 * messages that are new since the last call, and after a recovery cuts the view before step R's
 * assistant message and appends the transition string as a user message. Cut messages are
 * never sent again. `ai` 7 instead carries the returned messages forward (the next call gets them
 * plus the new response messages); the view recognises that by the identity of the messages it
 * handed out, so one view serves both. No SDK is imported here: messages are read by their `role` and `content`.
 */

/** A message as the AI SDK's `ModelMessage` (only the fields read here). */
export interface ViewMessage {
  role: string;
  content: unknown;
}

/** A tool call part of an assistant message. */
export interface ToolCallPart {
  type: "tool-call";
  toolName: string;
  toolCallId?: string;
  input?: unknown;
}

/** The tool calls of `m` whose tool `isStepTool` counts as an agent step (none for non-assistant messages). */
export function stepCalls(m: ViewMessage, isStepTool: (toolName: string) => boolean): ToolCallPart[] {
  if (m.role !== "assistant" || !Array.isArray(m.content)) return [];
  return (m.content as { type?: string; toolName?: string }[]).filter(
    (p): p is ToolCallPart => p?.type === "tool-call" && typeof p.toolName === "string" && isStepTool(p.toolName),
  );
}

/** One call as text for the step record, e.g. `click({"coordinates":[1,2]})`. */
export function describeCalls(calls: readonly ToolCallPart[]): string {
  return calls.map((c) => `${c.toolName}(${JSON.stringify(c.input ?? {})})`).join("; ");
}

/** The wrapper's own view of the conversation (see the module comment). */
export class MessageView<M extends ViewMessage> {
  private view: M[] = [];
  private consumed = 0;
  /** The message objects last handed to the loop (ai 7 sends them back at the head of the next list). */
  private sent: readonly M[] = [];

  constructor(private readonly isStepTool: (toolName: string) => boolean) {}

  /** Start over from `all` (a new call of the run): they become the view, none of them counts as a new step. */
  restart(all: readonly M[]): void {
    this.view = structuredClone([...all]);
    this.consumed = all.length;
    this.sent = [];
  }

  /** Take in the loop's full message list; returns the tool calls of each new agent step, in order. */
  absorb(all: readonly M[]): ToolCallPart[][] {
    const carried = this.sent.length > 0 && all.length >= this.sent.length && this.sent.every((m, i) => all[i] === m);
    const fresh = all.slice(carried ? this.sent.length : this.consumed);
    this.consumed = all.length;
    this.view = this.view.concat(fresh);
    return fresh.map((m) => stepCalls(m, this.isStepTool)).filter((calls) => calls.length > 0);
  }

  /** How many messages the view holds. */
  get length(): number {
    return this.view.length;
  }

  /**
   * Drop the messages after the first `n` (a model output discarded after an off-track verdict, with its tool results).
   */
  dropAfter(n: number): void {
    this.view = this.view.slice(0, n);
  }

  /** Cut the view before agent step `step`'s assistant message and append `notice` as a user message. */
  cut(step: number, notice: string): void {
    let seen = 0;
    const at = this.view.findIndex((m) => stepCalls(m, this.isStepTool).length > 0 && seen++ === step);
    this.view = [...this.view.slice(0, at < 0 ? this.view.length : at), { role: "user", content: notice } as M];
  }

  /** Apply a recovery's outcome: cut before step `step` and append `notice`, or (`cut: false`) only append `notice`. */
  apply(t: { step: number; cut: boolean; notice: string }): void {
    if (t.cut) this.cut(t.step, t.notice);
    else this.view = [...this.view, { role: "user", content: t.notice } as M];
  }

  /** A copy of the view: what the next model call is sent (remembered as sent). */
  messages(): M[] {
    const out = structuredClone(this.view);
    this.sent = out;
    return out;
  }

  /** A copy of the view, not marked as sent. */
  snapshot(): M[] {
    return structuredClone(this.view);
  }

  /** Record that the loop was handed `messages` instead (a composed hook replaced them). */
  markSent(messages: readonly M[]): void {
    this.sent = messages;
  }
}
