/**
 * The conversation as retrace lets an AI-SDK-style loop see it (the Vercel AI SDK's
 * `generateText` and Stagehand's agent, which runs `generateText` of `ai` 5). Such a loop calls
 * `prepareStep` before every model call with the whole message list (initial messages plus every
 * response message so far) and sends whatever `messages` the hook returns, without keeping them:
 * the next call again gets the full list. So the wrapper keeps its own view: it appends the
 * messages that are new since the last call, and after a recovery cuts the view before step R's
 * assistant message and appends the transition string as a user message. Cut messages are
 * never sent again. No SDK is imported here: messages are read by their `role` and `content`.
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
  return (m.content as { type?: string; toolName?: string }[]).filter((p): p is ToolCallPart => p?.type === "tool-call" && typeof p.toolName === "string" && isStepTool(p.toolName));
}

/** One call as text for the step record, e.g. `click({"coordinates":[1,2]})`. */
export function describeCalls(calls: readonly ToolCallPart[]): string {
  return calls.map((c) => `${c.toolName}(${JSON.stringify(c.input ?? {})})`).join("; ");
}

/** The wrapper's own view of the conversation (see the module comment). */
export class MessageView<M extends ViewMessage> {
  private view: M[] = [];
  private consumed = 0;

  constructor(private readonly isStepTool: (toolName: string) => boolean) {}

  /** Take in the loop's full message list; returns the tool calls of each new agent step, in order. */
  absorb(all: readonly M[]): ToolCallPart[][] {
    const fresh = all.slice(this.consumed);
    this.consumed = all.length;
    this.view = this.view.concat(fresh);
    return fresh.map((m) => stepCalls(m, this.isStepTool)).filter((calls) => calls.length > 0);
  }

  /** Cut the view before agent step `step`'s assistant message and append `notice` as a user message. */
  cut(step: number, notice: string): void {
    let seen = 0;
    const at = this.view.findIndex((m) => stepCalls(m, this.isStepTool).length > 0 && seen++ === step);
    this.view = [...this.view.slice(0, at < 0 ? this.view.length : at), { role: "user", content: notice } as M];
  }

  /** A copy of the view: what the next model call is sent. */
  messages(): M[] {
    return structuredClone(this.view);
  }
}
