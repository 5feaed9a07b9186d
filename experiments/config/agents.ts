/**
 * Every agent of a config, with its defaults resolved and its config field path: the recovery
 * sub-agent defaults to the forward agent's backbone and format (paper B.2); the detector,
 * selector and summarizer of a model forward agent default to the same endpoint and model; of a
 * sim forward agent, to the "default" sim profiles. {@link checkConfigAgents} validates them all
 * before any episode runs (and before anything is written).
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { RecoveryOptionsInput } from "@retrace-cua/core/episode";
import { backendOf, type ModelAgentSpec } from "../agents/model-spec.ts";
import { fillModelDefaults, type ModelDefaults } from "../agents/fill.ts";
import { isSimulatedSpec, validateAgentSpec, type ValidAgentSpec } from "../agents/registry.ts";
import type { AgentRole } from "../agents/roles.ts";
import type { AgentSpec, ExperimentConfig, PairSpec } from "./schema.ts";

/** One agent of a config: its role, resolved spec and where it comes from. */
export interface ConfigAgent {
  role: AgentRole;
  spec: AgentSpec;
  /** Config field path, e.g. `config.pairs.0.detector` (or `... (default from forward)`). */
  path: string;
}

/** The agents a pair runs with, defaults resolved (specs not yet validated). */
export interface ResolvedPair {
  forward: AgentSpec;
  recovery: AgentSpec;
  detector: AgentSpec;
  selector: AgentSpec;
  summarizer?: AgentSpec;
  verifier?: AgentSpec;
}

/** The backbone of a model spec for a role that is not action-producing. */
function backbone(forward: AgentSpec): AgentSpec {
  const { format: _f, backend: b, ...rest } = forward as Record<string, unknown>;
  return { ...rest, kind: "model", ...(b === "langchain" && { backend: b }) };
}

/** Default spec for a role from the forward agent's spec. */
export function defaultSpec(role: Exclude<AgentRole, "forward">, forward: AgentSpec): AgentSpec | undefined {
  if (forward.kind === "model") {
    if (role === "recovery" || role === "perturber") return { ...forward };
    const b = backendOf(forward as unknown as ModelAgentSpec);
    if (b !== "openai" && b !== "langchain") return undefined; // computer-use APIs cannot answer the JSON roles
    return backbone(forward);
  }
  if (role === "summarizer" || role === "verifier" || role === "perturber") return undefined;
  return { kind: "sim", profile: "default" };
}

/** A pair's agents with defaults. */
export function resolvePair(
  pair: Pick<PairSpec, "forward" | "recovery" | "detector" | "selector" | "summarizer" | "verifier">,
): ResolvedPair {
  const f = pair.forward;
  const pick = (role: Exclude<AgentRole, "forward">, given: AgentSpec | undefined) => given ?? defaultSpec(role, f);
  const recovery = pick("recovery", pair.recovery);
  const summarizer = pair.summarizer ?? (recovery?.kind === "model" ? defaultSpec("summarizer", recovery) : undefined);
  return {
    forward: f,
    recovery: recovery ?? { kind: "sim", profile: "default" },
    detector: pick("detector", pair.detector) ?? { kind: "sim", profile: "default" },
    selector: pick("selector", pair.selector) ?? { kind: "sim", profile: "default" },
    ...(summarizer ? { summarizer } : {}),
    ...(pair.verifier ? { verifier: pair.verifier } : {}),
  };
}

/** The config with `--base-url/--model/--api-key-env` filled into every model agent that leaves them out. */
export function fillConfigModels(config: ExperimentConfig, defaults: ModelDefaults): ExperimentConfig {
  if (!defaults.baseUrl && !defaults.model && !defaults.apiKeyEnv) return config;
  const fill = <S extends AgentSpec | undefined>(s: S) => fillModelDefaults(s, defaults);
  const fillPair = (p: PairSpec): PairSpec => ({
    ...p,
    forward: fill(p.forward),
    recovery: fill(p.recovery),
    detector: fill(p.detector),
    selector: fill(p.selector),
    summarizer: fill(p.summarizer),
    verifier: fill(p.verifier),
  });
  if (config.kind === "ideal-recovery")
    return {
      ...config,
      forward: fill(config.forward),
      detector: fill(config.detector),
      selector: fill(config.selector),
      summarizer: fill(config.summarizer),
    };
  if (config.kind === "end-to-end") return { ...config, pairs: config.pairs.map(fillPair) };
  return { ...config, pair: fillPair(config.pair) };
}

/** Every agent of a config, in order, with its path. Roles a condition will not use are left out. */
export function configAgents(config: ExperimentConfig): ConfigAgent[] {
  const out: ConfigAgent[] = [];
  const add = (role: AgentRole, spec: AgentSpec | undefined, path: string, given: boolean): void => {
    if (!spec) return;
    out.push({ role, spec, path: given ? path : `${path} (default from forward)` });
    // A cascade's inner detector is an agent of the config too (model checks, endpoints, simulated label).
    const inner = spec.kind === "cascade" ? (spec as { detector?: unknown }).detector : undefined;
    if (inner && typeof inner === "object" && !Array.isArray(inner))
      add(role, inner as AgentSpec, `${path}.detector`, given);
    // So is a preset's judge (a model agent).
    const judge = spec.kind === "preset" ? (spec as { model?: unknown }).model : undefined;
    if (judge && typeof judge === "object" && !Array.isArray(judge))
      add(role, { kind: "model", ...(judge as object) } as AgentSpec, `${path}.model`, given);
  };
  if (config.kind === "ideal-recovery") {
    add("forward", config.forward, "config.forward", true);
    add("detector", config.detector, "config.detector", true);
    if (config.strategies.includes("llm"))
      add("selector", config.selector ?? defaultSpec("selector", config.forward), "config.selector", !!config.selector);
    return out;
  }
  const pairs =
    config.kind === "end-to-end"
      ? config.pairs.map((p, i) => [p, `config.pairs.${i}`] as const)
      : [[config.pair, "config.pair"] as const];
  const o = config.options as RecoveryOptionsInput;
  for (const [p, at] of pairs) {
    const r = resolvePair(p);
    add("forward", r.forward, `${at}.forward`, true);
    add("detector", r.detector, `${at}.detector`, !!p.detector);
    if ((o.recoveryStep ?? "error-minus-1") === "llm" || p.selector)
      add("selector", r.selector, `${at}.selector`, !!p.selector);
    if ((o.restoration ?? "model") === "model" || p.recovery)
      add("recovery", r.recovery, `${at}.recovery`, !!p.recovery);
    if (r.summarizer) add("summarizer", r.summarizer, `${at}.summarizer`, !!p.summarizer);
    if (r.verifier) add("verifier", r.verifier, `${at}.verifier`, true);
  }
  return out;
}

/** Whether any agent of the config is model-backed. */
export function usesModels(config: ExperimentConfig): boolean {
  return configAgents(config).some((a) => a.spec.kind === "model");
}

/** Whether every agent of the config is simulated. */
export function allSimulated(config: ExperimentConfig): boolean {
  return configAgents(config).every((a) => isSimulatedSpec(a.spec));
}

/**
 * Validate every agent of a config (kind, role, fields, model name present), and the combinations
 * a run needs: a summarizer for contextualized recovery context, a model recovery sub-agent for
 * model restoration on real desktops. Throws one ConfigError naming the config field.
 */
export function checkConfigAgents(config: ExperimentConfig, envKind: string): ValidAgentSpec[] {
  const valid: ValidAgentSpec[] = [];
  for (const a of configAgents(config)) {
    const path = a.path.replace(/ \(default from forward\)$/, "");
    const v = validateAgentSpec(a.role, a.spec, path);
    if (v.kind === "model" && !v.model)
      throw new ConfigError(`${path}.model: missing; give the model name in the config or pass --model NAME`, {
        field: `${path}.model`,
      });
    valid.push(v);
  }
  if (config.kind !== "ideal-recovery") {
    const o = config.options as RecoveryOptionsInput;
    const pairs =
      config.kind === "end-to-end"
        ? config.pairs.map((p, i) => [p, `config.pairs.${i}`] as const)
        : [[config.pair, "config.pair"] as const];
    const restoration = o.restoration ?? "model";
    for (const [p, at] of pairs) {
      const r = resolvePair(p);
      if (restoration === "model" && r.recovery.kind === "sim" && envKind !== "simdesk")
        throw new ConfigError(
          `${at}.recovery: restoration "model" on env ${envKind} needs a model recovery sub-agent (a simulated one needs SimDesk's ground truth); give recovery: { kind: model, ... } or set options.restoration: replay`,
          { field: `${at}.recovery` },
        );
      if (o.recoveryContext === "contextualized" && restoration === "model" && !r.summarizer)
        throw new ConfigError(
          `${at}.summarizer: recoveryContext "contextualized" needs a summarizer; give summarizer: { kind: model, ... } (or use a model recovery sub-agent, whose backbone it defaults to)`,
          { field: `${at}.summarizer` },
        );
      if ((o.recoveryStep ?? "error-minus-1") === "llm" && r.selector.kind !== "model" && r.selector.kind !== "sim")
        throw new ConfigError(`${at}.selector: recoveryStep "llm" needs a selector`, { field: `${at}.selector` });
    }
  }
  return valid;
}
