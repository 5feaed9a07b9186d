/**
 * What one agent kind file (sim.ts, model.ts, stagnation.ts, ...) exports, in its own file so the
 * kind files and the registry that lists them import it without a cycle.
 */
import type { z } from "zod";
import type { AgentContext, AgentOf, AgentRole } from "./roles.ts";

/** One agent kind: which roles it fills, its spec schema per role, and its factory. */
export interface AgentKind<S = Record<string, unknown>> {
  kind: string;
  roles: readonly AgentRole[];
  /** True when its agents are simulated (results are labelled so). */
  simulated: boolean;
  /** Per-spec answer when it depends on the spec (a cascade is simulated when its inner detector is). */
  isSimulated?(spec: S): boolean;
  /** The spec schema for a role (strict: unknown fields are errors). */
  schema(role: AgentRole): z.ZodType<S>;
  /** A problem the schema cannot see (e.g. a format the role cannot speak), relative to the spec. */
  check?(role: AgentRole, spec: S): { field: string; message: string } | undefined;
  create<R extends AgentRole>(role: R, spec: S, ctx: AgentContext): AgentOf[R];
}

/** A validated agent spec (its kind's schema output). */
export type ValidAgentSpec = { kind: string } & Record<string, unknown>;
