/**
 * The provider-neutral chat-model contract every LLM-backed component (policy adapters,
 * detector, selector, recoverer, summarizer, verifier) talks to. Backends live in
 * adapters/models/ (openai SDK, any LangChain chat model); they resolve image blob references to
 * data URLs, retry, time out, cache and record usage.
 */
import type { BlobRef } from "./blob-store.ts";
import type { ModelRole, ModelUsage } from "./usage.ts";

export type ChatContentPart =
  | { type: "text"; text: string }
  /** A screenshot by reference; the backend loads the bytes and sends an image part. */
  | { type: "image"; blob: BlobRef; detail?: "low" | "high" | "auto" };

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string | ChatContentPart[];
}

export interface ChatRequest {
  /** Who is calling, for accounting. */
  role: ModelRole;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  /** Ask for a JSON object (response_format json_object where the server supports it). */
  json?: boolean;
  /** `id@version` of the prompt behind this call. */
  prompt?: string;
  signal?: AbortSignal;
}

export interface ChatResponse {
  text: string;
  usage: ModelUsage;
}

/** A chat model reachable over some API. */
export interface ChatModel {
  /** Model name as sent to the API. */
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
}
