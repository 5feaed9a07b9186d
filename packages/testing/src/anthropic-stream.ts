/**
 * The Anthropic Messages API's server-sent events for a scripted answer (`POST /v1/messages` with
 * `stream: true`): `message_start`, a start/delta/stop triple per content block, `message_delta`
 * with the stop reason, then `message_stop`, as Anthropic sends them.
 */
import type { ServerResponse } from "node:http";

/** The parts of an Anthropic message body the stream needs. */
export interface AnthropicMessage {
  content: { type: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
}

/** An Anthropic message as the event stream the Messages API sends for `stream: true`. */
export function sendAnthropicStream(res: ServerResponse, message: AnthropicMessage): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const { content, stop_reason, usage, ...head } = message;
  event("message_start", {
    message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } },
  });
  content.forEach((block, index) => {
    if (block.type === "text") {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index, delta: { type: "text_delta", text: block.text ?? "" } });
    } else if (block.type === "tool_use") {
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
      });
    } else {
      event("content_block_start", { index, content_block: block });
    }
    event("content_block_stop", { index });
  });
  event("message_delta", {
    delta: { stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  event("message_stop", {});
  res.end();
}
