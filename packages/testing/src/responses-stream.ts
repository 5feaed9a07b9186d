/**
 * The Responses API's server-sent events for a scripted answer (`POST /v1/responses` with
 * `stream: true`, what the OpenAI Agents SDK sends for a streamed run): `response.created`, one
 * `response.output_text.delta` per word of each message, then `response.completed` carrying the
 * whole response, as OpenAI sends them.
 */
import type { ServerResponse } from "node:http";

/** Write `response` (a Responses API body) as an event stream and end the answer. */
export function sendResponsesStream(
  res: ServerResponse,
  response: { output?: unknown[] } & Record<string, unknown>,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let seq = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  send("response.created", { response: { ...response, status: "in_progress", output: [] } });
  (response.output ?? []).forEach((item, outputIndex) => {
    const message = item as { type?: string; id?: string; content?: Array<{ type?: string; text?: string }> };
    send("response.output_item.added", { output_index: outputIndex, item });
    if (message.type === "message")
      for (const part of message.content ?? [])
        for (const delta of (part.type === "output_text" ? (part.text ?? "") : "").split(/(?<= )/).filter(Boolean))
          send("response.output_text.delta", {
            item_id: message.id,
            output_index: outputIndex,
            content_index: 0,
            delta,
            logprobs: [],
          });
    send("response.output_item.done", { output_index: outputIndex, item });
  });
  send("response.completed", { response });
  res.end();
}
