/** Model-call accounting, recorded per role so reports can show tokens, latency and cost. */

/** Who made a model call. */
export const MODEL_ROLES = ["policy", "detector", "selector", "recoverer", "summarizer", "verifier", "perturber", "judge"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** One model call's cost. */
export interface ModelUsage {
  role: ModelRole;
  model: string;
  /** `id@version` of the prompt used, when one was. */
  prompt?: string;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  /** US dollars, when a price table is configured. */
  costUsd?: number;
  /** Served from the record/replay cache (no network call, no cost). */
  cached?: boolean;
  /**
   * The server declared itself a simulated stand-in (its `system_fingerprint`, e.g. retrace's
   * stand-in): results that used this call are labelled simulated.
   */
  simulated?: boolean;
}

/** True for a `system_fingerprint` by which a server declares itself a simulated stand-in (it names "stand-in" or "simulated"). */
export function isStandInFingerprint(fingerprint: unknown): boolean {
  return typeof fingerprint === "string" && /stand-?in|simulat/i.test(fingerprint);
}
