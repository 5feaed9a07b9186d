/**
 * What a recovery-eval command spent on models: `model-usage.json` (calls, errors and cost per role), the label of a
 * run answered by a self-declared stand-in server, and the --max-cost-usd stop.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { EvalAgents, RoleUsage } from "./agents.ts";
import type { ConfiguredRunOptions } from "./configured-run-options.ts";

/**
 * `model-usage.json`: model calls per role (the runner's role names: policy, perturber, recoverer, summarizer,
 * verifier).
 */
export interface ModelUsageFile {
  simulated: boolean;
  /** Why the command stopped early (--max-cost-usd), when it did. */
  stopped?: string;
  roles: Partial<Record<string, RoleUsage>>;
  /** Totals over roles: calls (answered, failed or served from the cache), failed calls, list-price cost. */
  calls: number;
  errors: number;
  costUsd: number;
}

/** `model-usage.json` from usage per role. */
export function usageFile(
  roles: Partial<Record<string, RoleUsage>>,
  simulated: boolean,
  stopped?: string,
): ModelUsageFile {
  const sum = (k: "calls" | "errors" | "costUsd") =>
    Math.round(Object.values(roles).reduce((s, r) => s + (r?.[k] ?? 0), 0) * 1e9) / 1e9;
  return {
    simulated,
    ...(stopped && { stopped }),
    roles,
    calls: sum("calls"),
    errors: sum("errors"),
    costUsd: sum("costUsd"),
  };
}

/** The `stop` hook of --max-cost-usd, remembering whether it fired. */
export function costStop(
  options: ConfiguredRunOptions,
  agents: EvalAgents,
): { stop?: () => string | undefined; reason(): string | undefined } {
  const max = options.maxCostUsd;
  if (max === undefined) return { reason: () => undefined };
  if (!(max > 0))
    throw new ConfigError(`--max-cost-usd: expected a positive amount of US dollars, got ${max}`, {
      field: "maxCostUsd",
    });
  let reason: string | undefined;
  return {
    stop: () =>
      (reason ??=
        agents.spentUsd() >= max
          ? `recorded cost $${agents.spentUsd().toFixed(2)} reached --max-cost-usd ${max}`
          : undefined),
    reason: () => reason,
  };
}

/** How a run answered by a self-declared stand-in server is labelled. */
export const STAND_IN_LABEL = "simulated: a stand-in model server (system_fingerprint declares it simulated)";

/** True when some role's calls were answered by a server that declared itself a simulated stand-in. */
export function servedBySimulatedModel(roles: Partial<Record<string, RoleUsage>>): boolean {
  return Object.values(roles).some((u) => u?.simulated === true);
}
