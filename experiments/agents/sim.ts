/**
 * The `sim` kind: SimDesk's seeded simulated agents, `{ kind: sim, profile, ...overrides }`.
 * Overrides are the simulated component's own options (e.g. `recall: 0.7`, `slipRate: 0.2`),
 * validated with that component's schema, so `recall: 7` fails with the config field path. Every
 * sim agent is labelled simulated. On real desktops (no ground truth) the sim detector is the
 * task-plan divergence detector and the sim selector picks E-1; a sim recovery sub-agent cannot
 * restore real apps, so runs that need one are refused up front (see the runtime).
 */
import { z } from "zod";
import { ConfigError } from "@retrace-cua/core/errors";
import type { RecoveryStepSelector } from "@retrace-cua/core/selector";
import type { SimDesk, SimDeskTask } from "@retrace-cua/simdesk/simdesk";
import { createPlanDivergenceDetector } from "@retrace-cua/desktops/desktop-tasks/plan-detector";
import {
  createSimDetector,
  createSimForwardPolicy,
  createSimRecoveryPolicy,
  createSimStepSelector,
  SIM_PROFILES,
} from "@retrace-cua/simdesk/agents/index";
import {
  SimDetectorOptionsSchema,
  SimForwardOptionsSchema,
  SimRecoveryOptionsSchema,
  SimSelectorOptionsSchema,
} from "@retrace-cua/simdesk/agents/options";
import type { AgentKind } from "./kind.ts";
import type { AgentContext, AgentOf, AgentRole } from "./roles.ts";

/** Profile tables by agent role. */
const TABLES = {
  forward: SIM_PROFILES.forward,
  recovery: SIM_PROFILES.recoverer,
  detector: SIM_PROFILES.detector,
  selector: SIM_PROFILES.selector,
} as const;
type SimRole = keyof typeof TABLES;
/** Profile used for "default" (or no profile). */
export const SIM_DEFAULT_PROFILE: Record<SimRole, string> = {
  forward: "default",
  recovery: "skilled",
  detector: "decent",
  selector: "accurate",
};

/** A component's option fields, all optional and without their defaults (the profile supplies those). */
function overrides(schema: z.ZodObject): Record<string, z.ZodType> {
  const out: Record<string, z.ZodType> = {};
  for (const [k, f] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    if (k === "seed") continue;
    const inner = f instanceof z.ZodDefault || f instanceof z.ZodOptional ? (f.unwrap() as z.ZodType) : f;
    out[k] = inner.optional();
  }
  return out;
}

const OVERRIDES = {
  forward: overrides(SimForwardOptionsSchema),
  recovery: overrides(SimRecoveryOptionsSchema),
  detector: overrides(SimDetectorOptionsSchema),
  selector: overrides(SimSelectorOptionsSchema),
};

const SCHEMAS = new Map<SimRole, z.ZodType>();

/** The spec schema of a role (built once: zod compiles a schema on its first parse). */
function simSchema(role: SimRole): z.ZodType {
  let schema = SCHEMAS.get(role);
  if (!schema) SCHEMAS.set(role, (schema = buildSimSchema(role)));
  return schema;
}

function buildSimSchema(role: SimRole) {
  const table = TABLES[role] as Record<string, object>;
  const names = Object.keys(table);
  return z
    .object({
      kind: z.literal("sim").default("sim"),
      /** A profile of SIM_PROFILES, or "default". @default "default" */
      profile: z
        .string()
        .superRefine((p, c) => {
          if (p !== "default" && !names.includes(p))
            c.addIssue({
              code: "custom",
              message: `unknown simulated ${role} profile "${p}" (one of: ${[...new Set(["default", ...names])].join(", ")})`,
            });
        })
        .default("default"),
      ...OVERRIDES[role],
    })
    .strict();
}

/** A validated sim spec. */
export type SimAgentSpec = { kind: "sim"; profile: string } & Record<string, unknown>;

/** The profile's options with the spec's overrides on top. */
export function simOptionsOf(role: SimRole, spec: SimAgentSpec): Record<string, unknown> {
  const table = TABLES[role] as Record<string, object>;
  const name = spec.profile === "default" ? SIM_DEFAULT_PROFILE[role] : spec.profile;
  const { kind: _k, profile: _p, ...overrides } = spec;
  return { ...table[name], ...overrides };
}

const seedOf = (ctx: AgentContext) => (ctx.stream ? `${ctx.seed}/${ctx.stream}` : ctx.seed);
const asDesk = (ctx: AgentContext) => ctx.env as unknown as SimDesk;
const onSimDesk = (ctx: AgentContext) => (ctx.envKind ?? "simdesk") === "simdesk";

/** E-1, the selector a sim spec gives on real desktops (no ground truth to draw from). */
export function errorMinusOneSelector(kind: string): RecoveryStepSelector {
  return {
    name: `error-minus-1(${kind})`,
    simulated: true,
    async select(input) {
      return { step: Math.max(0, input.errorStep - 1), reason: "the step before the detected error" };
    },
  };
}

/** Build a sim agent for `role`. */
export function createSimAgent<R extends AgentRole>(role: R, spec: SimAgentSpec, ctx: AgentContext): AgentOf[R] {
  const seed = seedOf(ctx);
  const task = ctx.task as SimDeskTask;
  switch (role) {
    case "forward":
      return createSimForwardPolicy({ task, seed, ...simOptionsOf("forward", spec) }) as unknown as AgentOf[R];
    case "detector":
      if (!onSimDesk(ctx)) return createPlanDivergenceDetector({ task: ctx.task }) as unknown as AgentOf[R];
      return createSimDetector({
        groundTruth: asDesk(ctx),
        task,
        seed,
        ...simOptionsOf("detector", spec),
      }) as unknown as AgentOf[R];
    case "selector":
      if (!onSimDesk(ctx)) return errorMinusOneSelector(ctx.envKind ?? "desktop") as unknown as AgentOf[R];
      return createSimStepSelector({
        groundTruth: asDesk(ctx),
        task,
        seed,
        ...simOptionsOf("selector", spec),
      }) as unknown as AgentOf[R];
    case "recovery":
      if (!onSimDesk(ctx))
        throw new ConfigError(
          `recovery: a simulated recovery sub-agent needs SimDesk's ground truth; on env ${ctx.envKind} use recovery: { kind: model, ... } or options.restoration: replay`,
          { field: "recovery.kind" },
        );
      return createSimRecoveryPolicy({
        groundTruth: asDesk(ctx),
        seed,
        ...(simOptionsOf("recovery", spec) as { skill: number }),
      }) as unknown as AgentOf[R];
    default:
      throw new ConfigError(`${role}.kind: sim has no ${role}; use kind: model`, { field: `${role}.kind` });
  }
}

/** The registry entry of `kind: sim`. */
export const SIM_KIND: AgentKind<SimAgentSpec> = {
  kind: "sim",
  roles: ["forward", "detector", "selector", "recovery"],
  simulated: true,
  schema: (role) => simSchema(role as SimRole) as unknown as z.ZodType<SimAgentSpec>,
  create: createSimAgent,
};
