/**
 * `retrace run CONFIG --base-url URL --model NAME [--api-key-env VAR]`: fill every model agent
 * that leaves these out, so one shared config runs against any endpoint.
 */
import type { AgentSpec } from "./spec.ts";

/** Values from the CLI for model agents that leave them out. */
export interface ModelDefaults {
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
}

/**
 * The spec with `baseUrl`, `model`, `apiKeyEnv` filled from `defaults` when it is a model agent without them (also
 * inside a cascade detector and a preset's judge).
 */
export function fillModelDefaults<S extends AgentSpec | undefined>(spec: S, defaults: ModelDefaults): S {
  if (spec?.kind === "cascade") {
    const inner = (spec as { detector?: unknown }).detector;
    return inner && typeof inner === "object" && !Array.isArray(inner)
      ? ({ ...spec, detector: fillModelDefaults(inner as AgentSpec, defaults) } as S)
      : spec;
  }
  if (spec?.kind === "preset" || (spec && spec.kind === undefined && "preset" in spec)) {
    const judge = (spec as { model?: unknown }).model;
    return judge && typeof judge === "object" && !Array.isArray(judge)
      ? ({ ...spec, model: fillModelDefaults({ kind: "model", ...(judge as object) } as AgentSpec, defaults) } as S)
      : spec;
  }
  if (!spec || spec.kind !== "model") return spec;
  const out: Record<string, unknown> = { ...spec };
  for (const key of ["baseUrl", "model", "apiKeyEnv"] as const)
    if (out[key] === undefined && defaults[key] !== undefined) out[key] = defaults[key];
  return out as S;
}
