/**
 * The `cascade` kind: cheap gates in front of any detector spec (sim, model, stagnation, loop, or
 * another cascade), so the expensive detector is asked only when a gate opens
 * (packages/core/src/detectors/cascade.ts). Written in configs as
 * `detector: { kind: cascade, gates: [{ kind: loop }, { kind: every-k, k: 5 }], detector: { kind: model, model: NAME } }`.
 * The inner detector is validated recursively, with its config field path in errors
 * (`config.pairs.0.detector.detector.recall`). The cascade is simulated exactly when its inner
 * detector is.
 */
import { z } from "zod";
import { CascadeGateSpecSchema, createCascadeDetector } from "@retrace-cua/core/detectors/index";
import { ConfigError } from "@retrace-cua/core/errors";
import type { AgentKind, ValidAgentSpec } from "./kind.ts";
import type { AgentContext, AgentOf, AgentRole } from "./roles.ts";

const CascadeSpecSchema = z
  .object({
    kind: z.literal("cascade"),
    /**
     * Gates, checked in order (no-effect, stagnation, loop, visual-change, action-pattern, every-k, before-done).
     * @default DEFAULT_CASCADE_GATES
     */
    gates: z.array(CascadeGateSpecSchema).min(1).optional(),
    /** The expensive detector: any detector spec, validated recursively. */
    detector: z.record(z.string(), z.unknown(), {
      error: "expected the inner detector spec, e.g. detector: { kind: sim } or { kind: model, model: NAME }",
    }),
  })
  .strict();
type CascadeSpec = z.output<typeof CascadeSpecSchema>;

/**
 * The registry functions the cascade needs for its inner spec (passed in, so this file does not import the registry).
 */
export interface NestedAgents {
  validate(role: AgentRole, spec: unknown, path: string): ValidAgentSpec;
  create<R extends AgentRole>(role: R, spec: unknown, ctx: AgentContext, path?: string): AgentOf[R];
  isSimulated(spec: { kind?: string }): boolean;
}

/** The registry entry of `kind: cascade` (detector only), over the registry's own validate/create. */
export function createCascadeKind(nested: NestedAgents): AgentKind<CascadeSpec> {
  return {
    kind: "cascade",
    roles: ["detector"],
    simulated: false,
    isSimulated: (spec) => nested.isSimulated((spec as { detector?: { kind?: string } }).detector ?? {}),
    schema: () => CascadeSpecSchema,
    check(_role, spec) {
      try {
        nested.validate("detector", spec.detector, "detector");
        return undefined;
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        const field = e.field ?? "detector";
        return { field, message: e.message.startsWith(`${field}: `) ? e.message.slice(field.length + 2) : e.message };
      }
    },
    create<R extends AgentRole>(_role: R, spec: CascadeSpec, ctx: AgentContext): AgentOf[R] {
      const detector = nested.create("detector", spec.detector, ctx, "detector");
      return createCascadeDetector({ detector, ...(spec.gates ? { gates: spec.gates } : {}) }) as AgentOf[R];
    },
  };
}
