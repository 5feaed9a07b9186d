/**
 * A hook for model calls that do not go through a {@link ChatModel}: the OpenAI and Anthropic
 * computer-use policies talk to their vendor SDKs directly, so whatever records an episode's calls
 * (the experiments' meter and its call log) cannot wrap a chat model for them. Such a policy tells
 * the observer when a call starts (what was sent, as chat messages with screenshots as blob
 * references) and how it ended (the reply text and its usage, or the error), so its calls are
 * logged like any chat model's: same step attribution (read when the call starts), draw identity,
 * tokens, latency, cost and cache flag.
 */
import type { ChatContentPart, ChatMessage, DrawIdentity } from "@retrace-cua/core/model";
import type { ModelUsage } from "@retrace-cua/core/usage";
import { BLOB_URL_PREFIX } from "./content.ts";

/** What a call sent, told when it starts. */
export interface ObservedCallStart {
  model: string;
  /** `id@version` of the prompt framing the call, when one did. */
  prompt?: string;
  /** The call's draw identity, when the experiment gave the policy draws. */
  draw?: DrawIdentity;
  /** The request as chat messages (screenshots as blob references). */
  messages: ChatMessage[];
}

/** How a call ended: exactly one of these is called once. */
export interface ObservedCall {
  done(reply: string, usage: ModelUsage): void;
  failed(err: unknown): void;
}

/** Called when a call starts (in the async context of the caller, so call sites are seen). */
export type ModelCallObserver = (start: ObservedCallStart) => ObservedCall;

/** The blob reference of a `retrace-blob:<ref>[@WxH]` placeholder, else undefined. */
export function blobRefOfUrl(url: unknown): string | undefined {
  if (typeof url !== "string" || !url.startsWith(BLOB_URL_PREFIX)) return undefined;
  return url.slice(BLOB_URL_PREFIX.length).split("@")[0];
}

/** A part that shows a screenshot placeholder as an image, anything else as text. */
function imagePart(url: unknown): ChatContentPart {
  const ref = blobRefOfUrl(url);
  return ref ? { type: "image", blob: ref } : { type: "text", text: "(image)" };
}

/** A Responses API request (OpenAI computer use) as chat messages. */
export function responsesRequestMessages(request: Record<string, any>): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (typeof request.instructions === "string") out.push({ role: "system", content: request.instructions });
  if (typeof request.previous_response_id === "string")
    out.push({
      role: "system",
      content: `(continues the server-side conversation of response ${request.previous_response_id})`,
    });
  for (const item of Array.isArray(request.input) ? request.input : []) {
    if (item?.type === "computer_call_output") {
      out.push({
        role: "user",
        content: [
          {
            type: "text",
            text: `computer_call_output ${String(item.call_id)}${item.acknowledged_safety_checks?.length ? " (safety checks acknowledged)" : ""}`,
          },
          imagePart(item.output?.image_url),
        ],
      });
      continue;
    }
    const parts: ChatContentPart[] = (
      Array.isArray(item?.content) ? item.content : [{ type: "input_text", text: String(item?.content ?? "") }]
    ).map((p: any): ChatContentPart =>
      p?.type === "input_image" ? imagePart(p.image_url) : { type: "text", text: String(p?.text ?? "") },
    );
    out.push({
      role:
        item?.role === "assistant"
          ? "assistant"
          : item?.role === "system" || item?.role === "developer"
            ? "system"
            : "user",
      content: parts,
    });
  }
  return out;
}

/** An Anthropic Messages request (computer use) as chat messages. */
export function anthropicRequestMessages(request: Record<string, any>): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (typeof request.system === "string") out.push({ role: "system", content: request.system });
  const block = (b: any): ChatContentPart[] => {
    if (b?.type === "image") return [imagePart(b.source?.data)];
    if (b?.type === "text") return [{ type: "text", text: String(b.text ?? "") }];
    if (b?.type === "tool_use") return [{ type: "text", text: `tool_use ${JSON.stringify(b.input)}` }];
    if (b?.type === "tool_result")
      return [{ type: "text", text: "tool_result" }, ...(Array.isArray(b.content) ? b.content.flatMap(block) : [])];
    return [{ type: "text", text: `(${String(b?.type ?? "block")})` }];
  };
  for (const m of Array.isArray(request.messages) ? request.messages : []) {
    out.push({
      role: m?.role === "assistant" ? "assistant" : "user",
      content: typeof m?.content === "string" ? m.content : (Array.isArray(m?.content) ? m.content : []).flatMap(block),
    });
  }
  return out;
}
