/**
 * Independent, reproducible draws of model calls. Every call an experiment makes carries a
 * {@link DrawIdentity}: the episode (seed, task), the continuation index k, the condition (only
 * with `draws: independent`), the calling role and an ordinal. The identity is part of the
 * record/replay cache key (packages/models/src/models/cache.ts) and an integer derived from it is sent as
 * the request's `seed` (OpenAI and vLLM honour it), so different seeds and different
 * continuations never share an answer, while a re-run with the same seed asks the same questions
 * under the same identities and is served from the cache.
 *
 * The ordinal counts, per episode and role, the earlier calls that sent the *same* request: the
 * second identical request of an episode (e.g. the policy at the same screen after a recovery
 * truncated its history) is a fresh draw, not a replay of the first. Counting per role keeps
 * ordinals deterministic when the detector and the policy call concurrently (overlapped
 * detection); counting per request content keeps them stable across a checkpoint resume
 * (a resumed episode's later requests differ from its earlier ones).
 */
import { hashValue } from "@retrace-cua/core/hash";
import type { ChatModel, ChatRequest, ChatResponse, DrawIdentity } from "@retrace-cua/core/model";

/**
 * How conditions of one run draw: `paired` shares draws until their requests diverge (common random numbers),
 * `independent` never shares.
 */
export const DRAWS_MODES = ["paired", "independent"] as const;
/** One of {@link DRAWS_MODES}. */
export type DrawsMode = (typeof DRAWS_MODES)[number];

/** The episode part of a draw identity. */
export interface DrawEpisode {
  /** Episode seed (config seed plus `--seed`). */
  seed: number;
  task: string;
  /** Continuation index (ideal recovery), absent for a first rollout. */
  k?: number;
  /** Condition id; kept only under `draws: independent`. */
  condition?: string;
}

/** The integer sent as `seed` for an identity and a request content hash (31 bits: every server takes it). */
export function requestSeedOf(identity: Omit<DrawIdentity, "requestSeed">, content: string): number {
  return Number.parseInt(hashValue({ identity, content }).slice(0, 8), 16) & 0x7fffffff;
}

/** The content hash of a chat request (what the server sees besides its draw): messages and sampling settings. */
export function chatContentKey(request: ChatRequest): string {
  return hashValue({
    messages: request.messages,
    temperature: request.temperature ?? null,
    maxTokens: request.maxTokens ?? null,
    json: request.json ?? false,
  });
}

/** The draws of one episode: hands out identities with per-(role, request) ordinals. Create one per episode. */
export class DrawScope {
  private readonly counts = new Map<string, number>();
  /** The episode fields every identity of this scope carries. */
  readonly episode: DrawEpisode;
  /**
   * This episode's conversation name for prompt-cache routing (sent as `prompt_cache_key`, one per
   * role): derived from the episode's identity (seed, task, k, condition, whatever the draws
   * mode), so the same config and seed send the same keys. Never part of a record/replay cache
   * key or a request seed.
   */
  readonly conversation: string;
  constructor(episode: DrawEpisode, conversationOf: DrawEpisode = episode) {
    this.conversation = `retrace-${hashValue({ conversation: { seed: conversationOf.seed, task: conversationOf.task, k: conversationOf.k ?? null, condition: conversationOf.condition ?? null } }).slice(0, 16)}`;
    this.episode = {
      seed: episode.seed,
      task: episode.task,
      ...(episode.k !== undefined && { k: episode.k }),
      ...(episode.condition !== undefined && { condition: episode.condition }),
    };
  }

  /** The identity of the next call of `role` whose request content hashes to `content`. */
  next(role: string, content: string): DrawIdentity {
    const key = `${role}\u0000${content}`;
    const ordinal = this.counts.get(key) ?? 0;
    this.counts.set(key, ordinal + 1);
    const identity = { ...this.episode, role, ordinal };
    return { ...identity, requestSeed: requestSeedOf(identity, content) };
  }
}

/** A scope for an episode under a draws mode: the condition is part of identities only when `independent`. */
export function drawScopeFor(mode: DrawsMode | undefined, episode: DrawEpisode): DrawScope {
  const { condition, ...rest } = episode;
  // The conversation (prompt-cache routing) always keeps the condition: paired conditions share draws, not
  // conversations.
  return new DrawScope(
    (mode ?? "paired") === "independent" && condition !== undefined ? { ...rest, condition } : rest,
    episode,
  );
}

/** Stamp every request of `model` with the next identity of `scope` (a request that has one keeps it). */
export function withDraws(model: ChatModel, scope: DrawScope): ChatModel {
  const params = (model as { requestParams?: Record<string, unknown> }).requestParams;
  return {
    model: model.model,
    ...(params && { requestParams: params }),
    complete(request: ChatRequest): Promise<ChatResponse> {
      const cacheKey = request.cacheKey ?? `${scope.conversation}/${request.role}`;
      return model.complete(
        request.draw
          ? { ...request, cacheKey }
          : { ...request, cacheKey, draw: scope.next(request.role, chatContentKey(request)) },
      );
    },
  } as ChatModel;
}
