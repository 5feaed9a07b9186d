/**
 * The loose shape of an agent spec inside a config file (`kind` plus the kind's own fields). The
 * config loader checks each one against its kind's strict schema with validateAgentSpec, so the
 * error names the config field.
 */
import { z } from "zod";

/** An agent spec as written in a config: `{ kind, ...fields of that kind }`. @default kind "sim" */
export const AgentSpecSchema = z
  .object({
    /** sim | model | stagnation | loop | probe | cascade (see experiments/agents/). @default "sim" */
    kind: z.string().min(1).default("sim"),
    /** Simulated profile name (kind sim). */
    profile: z.string().min(1).optional(),
  })
  .catchall(z.unknown());
/** An agent spec as written in a config. */
export type AgentSpec = z.output<typeof AgentSpecSchema>;
