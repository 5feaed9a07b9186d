/**
 * The loose shape of an agent spec inside a config file (`kind` plus the kind's own fields). The
 * config loader checks each one against its kind's strict schema with validateAgentSpec, so the
 * error names the config field.
 */
import { z } from "zod";

/** An agent spec as written in a config: `{ kind, ...fields of that kind }`. @default kind "sim" */
export const AgentSpecSchema = z.preprocess(
  // A spec with `preset` and no `kind` is a detection preset (experiments/agents/preset.ts).
  (v) =>
    v && typeof v === "object" && !Array.isArray(v) && "preset" in v && !("kind" in v) ? { kind: "preset", ...v } : v,
  z
    .object({
      /**
       * sim | model | stagnation | loop | probe | cascade | preset (see experiments/agents/). @default "sim", or
       * "preset" when the spec has `preset`
       */
      kind: z.string().min(1).default("sim"),
      /** Simulated profile name (kind sim). */
      profile: z.string().min(1).optional(),
    })
    .catchall(z.unknown()),
);
/** An agent spec as written in a config. */
export type AgentSpec = z.output<typeof AgentSpecSchema>;
