/**
 * The provider-neutral chat-model contract every LLM-backed component (policy adapters,
 * detector, selector, recoverer, summarizer, verifier) talks to. Backends live in
 * packages/models/src/models/ (openai SDK, any LangChain chat model); they resolve image blob references to
 * data URLs, retry, time out, cache and record usage.
 */
import type { BlobRef } from "./blob-store.ts";
import type { ModelRole, ModelUsage } from "./usage.ts";

export type ChatContentPart =
  | { type: "text"; text: string }
  /** A screenshot by reference; the backend loads the bytes and sends an image part. */
  | {
      type: "image";
      blob: BlobRef;
      detail?: "low" | "high" | "auto";
      /**
       * Downscale (never enlarge) so that neither side exceeds this many pixels, when sent. @default the stored size
       */
      maxSide?: number;
    };

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string | ChatContentPart[];
}

/**
 * Where a model call sits among an experiment's random draws: the episode (seed, task), the
 * continuation index k of ideal recovery, the condition (only when conditions draw
 * independently), the calling role and the call's ordinal. Experiments stamp it on requests;
 * it is part of record/replay cache keys and `seed` is sent to servers that honour one.
 */
export interface DrawIdentity {
  /** Episode seed (the config's seed plus `--seed`). */
  seed: number;
  task: string;
  /** Continuation index (ideal recovery's k = 1..K); absent for a first rollout. */
  k?: number;
  /** Condition id, present only with `draws: independent`. */
  condition?: string;
  /** Accounting role of the caller (policy, detector, recoverer, ...). */
  role: string;
  /** How many earlier calls of this role in this episode sent this same request (0 for the first). */
  ordinal: number;
  /** The integer sent as the request's `seed` (derived from the fields above and the request). */
  requestSeed: number;
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
  /**
   * The call's draw identity (experiments set it; see {@link DrawIdentity}). @default none: no seed sent, cache key =
   * request
   */
  draw?: DrawIdentity;
  /**
   * Names the conversation this call continues, so a provider's prompt (prefix) cache can route
   * its calls together (sent as OpenAI's `prompt_cache_key`). Not part of the record/replay cache
   * key. Experiments set one per episode and role. @default none
   */
  cacheKey?: string;
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
  /** Where the model is served (e.g. `http://127.0.0.1:8000/v1 model qwen`), for error messages. Absent = unknown. */
  readonly endpoint?: string;
  complete(request: ChatRequest): Promise<ChatResponse>;
}
