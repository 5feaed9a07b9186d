/**
 * Episode accounting: counters and per-role model usage. Pure functions over plain objects, so
 * the accounting lives in checkpointed state and survives a resume.
 */
import type { EpisodeAccounting, RoleUsage } from "../episode.ts";
import { billedOf, tokenSplit, type ModelRole, type ModelUsage, type TokenSplit } from "../usage.ts";

/** Zeroed accounting for a new episode. */
export function emptyAccounting(): EpisodeAccounting {
  return {
    forwardSteps: 0,
    recoverySteps: 0,
    replaySteps: 0,
    recoveryAttempts: 0,
    detectorCalls: 0,
    detectorFailures: 0,
    frozenSkipped: 0,
    policyFailures: 0,
    discardedProposals: 0,
    models: {},
    envMs: 0,
    wallMs: 0,
  };
}

/** Counter fields that `bump` may increase. */
export type AccountingCounter = Exclude<keyof EpisodeAccounting, "models" | "detectorGates">;

/** A copy with the given counters increased. */
export function bump(acc: EpisodeAccounting, deltas: Partial<Record<AccountingCounter, number>>): EpisodeAccounting {
  const next = { ...acc };
  for (const [k, v] of Object.entries(deltas) as Array<[AccountingCounter, number]>) next[k] = (next[k] ?? 0) + v;
  return next;
}

/**
 * A copy with model calls added per role. `fallbackRole` is used for usage records that lack a
 * valid role (untrusted adapters). Cached calls count as calls but cost nothing.
 */
export function addUsage(
  acc: EpisodeAccounting,
  usage: readonly ModelUsage[] | undefined,
  fallbackRole: ModelRole,
): EpisodeAccounting {
  if (!usage || !Array.isArray(usage) || usage.length === 0) return acc;
  const models: Partial<Record<ModelRole, RoleUsage>> = { ...acc.models };
  for (const u of usage) {
    if (!u || typeof u !== "object") continue;
    const role = (typeof u.role === "string" ? u.role : fallbackRole) as ModelRole;
    const prev = models[role] ?? { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0, costUsd: 0 };
    models[role] = {
      calls: prev.calls + 1,
      inputTokens: prev.inputTokens + num(u.inputTokens),
      outputTokens: prev.outputTokens + num(u.outputTokens),
      ...cacheFields(prev, u),
      latencyMs: prev.latencyMs + num(u.latencyMs),
      costUsd: prev.costUsd + (u.cached ? 0 : num(u.costUsd)),
      ...((prev.simulated || u.simulated === true) && { simulated: true }),
    };
  }
  return { ...acc, models };
}

/** True when a model call of the episode was answered by a server that declared itself a simulated stand-in. */
export function servedBySimulation(acc: Pick<EpisodeAccounting, "models">): boolean {
  return Object.values(acc.models ?? {}).some((u) => u?.simulated === true);
}

/** Accounting without the timing fields (the only non-deterministic ones), for comparisons. */
export function withoutTiming(acc: EpisodeAccounting): Omit<EpisodeAccounting, "envMs" | "wallMs"> {
  const { envMs: _e, wallMs: _w, ...rest } = acc;
  const models: Partial<Record<ModelRole, RoleUsage>> = {};
  for (const [role, u] of Object.entries(rest.models) as Array<[ModelRole, RoleUsage]>)
    models[role] = { ...u, latencyMs: 0 };
  return { ...rest, models };
}

/**
 * The prompt-cache fields of a role after one more call: present once any call reported a cache (so results of uncached
 * runs keep their shape).
 */
export function cacheFields(
  prev: {
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens?: number;
    cacheWriteInputTokens?: number;
    billedTokens?: number;
  },
  u: Pick<ModelUsage, "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteInputTokens" | "billedTokens">,
): { cachedInputTokens?: number; cacheWriteInputTokens?: number; billedTokens?: number } {
  const reported = num(u.cachedInputTokens) > 0 || num(u.cacheWriteInputTokens) > 0 || prev.billedTokens !== undefined;
  if (!reported) return {};
  return {
    cachedInputTokens: num(prev.cachedInputTokens) + num(u.cachedInputTokens),
    cacheWriteInputTokens: num(prev.cacheWriteInputTokens) + num(u.cacheWriteInputTokens),
    billedTokens: (prev.billedTokens ?? num(prev.inputTokens) + num(prev.outputTokens)) + billedOf(u),
  };
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** A copy with detector-cascade gate counters increased (see EpisodeAccounting.detectorGates). */
export function bumpGates(
  acc: EpisodeAccounting,
  counts: Readonly<Record<string, number>> | undefined,
): EpisodeAccounting {
  if (!counts || Object.keys(counts).length === 0) return acc;
  const gates = { ...(acc.detectorGates ?? {}) };
  for (const [k, v] of Object.entries(counts)) gates[k] = (gates[k] ?? 0) + v;
  return { ...acc, detectorGates: gates };
}

/** Tokens per role split the way providers bill them, and all roles together (see {@link tokenSplits}). */
export interface TokensByRole {
  /**
   * Some call reported a prompt cache; false: cached 0 and billed = input + output everywhere, as reported (nothing
   * assumed).
   */
  promptCache: boolean;
  roles: Partial<Record<ModelRole, TokenSplit>>;
  total: TokenSplit;
}

/**
 * Uncached, cached, cache-write and billed-equivalent tokens per role of an episode's accounting (packages/core/src/usage.ts
 * tokenSplit).
 */
export function tokenSplits(acc: Pick<EpisodeAccounting, "models">): TokensByRole {
  const roles: Partial<Record<ModelRole, TokenSplit>> = {};
  const total: TokenSplit = {
    inputTokens: 0,
    uncachedInputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: 0,
    billedTokens: 0,
  };
  let promptCache = false;
  for (const role of Object.keys(acc.models).sort() as ModelRole[]) {
    const u = acc.models[role];
    if (!u) continue;
    if (u.billedTokens !== undefined) promptCache = true;
    const t = tokenSplit(u);
    roles[role] = t;
    for (const k of Object.keys(total) as Array<keyof TokenSplit>) total[k] += t[k];
  }
  return { promptCache, roles, total };
}
