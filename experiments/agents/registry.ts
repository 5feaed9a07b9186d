/**
 * The agent registry: spec `kind` -> factory, one file per kind in this folder. Every spec in a
 * config is validated here (per kind and per role) before any episode runs, with the config field
 * path in the error (`config.pairs.0.detector.recall: Too big: expected number to be <=1`).
 * `cascade` (cascade.ts) puts cheap gates in front of any other detector spec; `preset` (preset.ts,
 * implied by a `preset` field) is a detection preset with the judge's own model spec. New kinds register
 * with {@link registerAgentKind}.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import { createCascadeKind } from "./cascade.ts";
import { createPresetKind } from "./preset.ts";
import { LOOP_KIND } from "./loop.ts";
import { PROBE_KIND } from "./probe.ts";
import { MODEL_KIND } from "./model.ts";
import { AI_SDK_KIND, OPENAI_AGENTS_KIND, STAGEHAND_KIND } from "./sdk-agents.ts";
import type { AgentKind, ValidAgentSpec } from "./kind.ts";
import { AGENT_ROLES, type AgentContext, type AgentOf, type AgentRole } from "./roles.ts";
import { SIM_KIND } from "./sim.ts";
import { STAGNATION_KIND } from "./stagnation.ts";

export type { AgentKind, ValidAgentSpec } from "./kind.ts";

const KINDS = new Map<string, AgentKind<any>>();
for (const k of [
  SIM_KIND,
  MODEL_KIND,
  STAGNATION_KIND,
  LOOP_KIND,
  PROBE_KIND,
  OPENAI_AGENTS_KIND,
  AI_SDK_KIND,
  STAGEHAND_KIND,
])
  KINDS.set(k.kind, k);
KINDS.set(
  "cascade",
  createCascadeKind({ validate: validateAgentSpec, create: createAgent, isSimulated: isSimulatedSpec }),
);
KINDS.set("preset", createPresetKind({ validate: validateAgentSpec }));

/** Add (or replace) an agent kind. */
export function registerAgentKind(kind: AgentKind<any>): void {
  KINDS.set(kind.kind, kind);
}

/** The registered kind names. */
export function agentKinds(): string[] {
  return [...KINDS.keys()];
}

/** The kind entry of a spec, or a ConfigError naming `path.kind`. */
export function agentKindOf(role: AgentRole, spec: unknown, path: string): AgentKind<any> {
  if (!AGENT_ROLES.includes(role))
    throw new ConfigError(`${path}: "${role}" is not an agent role (one of: ${AGENT_ROLES.join(", ")})`, {
      field: path,
    });
  if (!spec || typeof spec !== "object" || Array.isArray(spec))
    throw new ConfigError(
      `${path}: expected an agent spec object such as { kind: sim, profile: default } or { kind: model, model: NAME }`,
      { field: path },
    );
  const name = (spec as { kind?: unknown }).kind ?? ("preset" in spec ? "preset" : "sim");
  const kind = typeof name === "string" ? KINDS.get(name) : undefined;
  const fits = [...KINDS.values()].filter((k) => k.roles.includes(role)).map((k) => k.kind);
  if (!kind)
    throw new ConfigError(
      `${path}.kind: unknown agent kind ${JSON.stringify(name)} (for ${role}: ${fits.join(", ")})`,
      { field: `${path}.kind` },
    );
  if (!kind.roles.includes(role))
    throw new ConfigError(`${path}.kind: ${kind.kind} cannot be a ${role} (for ${role}: ${fits.join(", ")})`, {
      field: `${path}.kind`,
    });
  return kind;
}

/** Validate a spec for a role; returns it with defaults resolved, or throws one ConfigError line naming the field. */
export function validateAgentSpec(role: AgentRole, spec: unknown, path: string): ValidAgentSpec {
  const kind = agentKindOf(role, spec, path);
  const parsed = kind.schema(role).safeParse({ kind: kind.kind, ...(spec as object) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = [path, ...issue.path.map(String)].join(".");
    const message =
      issue.code === "unrecognized_keys"
        ? `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")} for a ${kind.kind} ${role}`
        : issue.message;
    throw new ConfigError(`${field}: ${message}`, { field });
  }
  const valid = parsed.data as ValidAgentSpec;
  const problem = kind.check?.(role, valid);
  if (problem)
    throw new ConfigError(`${path}.${problem.field}: ${problem.message}`, { field: `${path}.${problem.field}` });
  return valid;
}

/** Whether a spec's kind is simulated. */
export function isSimulatedSpec(spec: { kind?: string }): boolean {
  const kind = KINDS.get(spec.kind ?? "sim");
  if (!kind) return true;
  return kind.isSimulated ? kind.isSimulated(spec) : kind.simulated;
}

/** Build the agent of a role from a spec (validated again, so callers may pass raw specs). */
export function createAgent<R extends AgentRole>(
  role: R,
  spec: unknown,
  ctx: AgentContext,
  path: string = role,
): AgentOf[R] {
  const valid = validateAgentSpec(role, spec, path);
  return agentKindOf(role, valid, path).create(role, valid, ctx);
}
