/**
 * How an agent built with `createAgent` maps onto retrace's step indexing: step t is the t-th AI
 * message that calls tools (with its tool results); "restore to R" keeps every message before the
 * R-th such AI message.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import { ActionSchema, type Action } from "@retrace-cua/core/action";

/** True for an AI message that calls at least one tool (one agent step). */
export function isStepMessage(m: BaseMessage): m is AIMessage {
  return AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) > 0;
}

/** Indices (into `messages`) of the AI messages that start each step, in order. */
export function stepStarts(messages: readonly BaseMessage[]): number[] {
  const out: number[] = [];
  messages.forEach((m, i) => {
    if (isStepMessage(m)) out.push(i);
  });
  return out;
}

/** The messages to keep when restoring to step R (everything before step R's AI message). */
export function messagesBeforeStep(messages: readonly BaseMessage[], step: number): BaseMessage[] {
  const starts = stepStarts(messages);
  return step >= starts.length ? [...messages] : messages.slice(0, starts[step]);
}

/**
 * Default tool-call mapping: a tool whose args carry an Action (`{ action: { type: "CLICK", ... } }`
 * or a list of them in `actions`) maps to those; otherwise `{ type: NAME_UPPER, ...args }` when that
 * is a valid Action (a `click` tool with `{ x, y }`); otherwise nothing.
 */
export function defaultToActions(call: ToolCall): Action[] {
  const args = (call.args ?? {}) as Record<string, unknown>;
  const nested = Array.isArray(args.actions) ? args.actions : args.action !== undefined ? [args.action] : null;
  if (nested) {
    const parsed = nested.map((a) => ActionSchema.safeParse(a));
    return parsed.every((p) => p.success) ? parsed.map((p) => p.data!) : [];
  }
  const parsed = ActionSchema.safeParse({ ...args, type: call.name.toUpperCase() });
  return parsed.success ? [parsed.data] : [];
}

/** Tool calls as text, e.g. `click({"x":1,"y":2})`, kept as the step's response. */
export function describeToolCalls(m: AIMessage): string {
  return (m.tool_calls ?? []).map((c) => `${c.name}(${JSON.stringify(c.args ?? {})})`).join("; ");
}

/** The text of a message's content (string content or the text parts). */
export function messageText(m: BaseMessage): string {
  if (typeof m.content === "string") return m.content;
  return m.content
    .map((p) =>
      typeof p === "string"
        ? p
        : p.type === "text" && typeof (p as { text?: unknown }).text === "string"
          ? (p as { text: string }).text
          : "",
    )
    .join("");
}
