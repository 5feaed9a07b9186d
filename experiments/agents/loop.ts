/**
 * The `loop` kind: the heuristic detector that fires when the agent goes round the same cycle of screens and actions.
 */
import { z } from "zod";
import { createLoopDetector } from "@retrace-cua/core/detectors/index";
import type { AgentKind } from "./kind.ts";
import type { AgentOf, AgentRole } from "./roles.ts";

const LoopSpecSchema = z
  .object({
    kind: z.literal("loop"),
    /** Shortest cycle length looked for. @default 1 */
    minCycle: z.number().int().min(1).max(50).optional(),
    /** Longest cycle length looked for. @default 4 */
    maxCycle: z.number().int().min(1).max(50).optional(),
    /** How many times the cycle must occur in a row. @default 3 */
    repeats: z.number().int().min(2).max(50).optional(),
    /** SSIM at or above this counts as the same screen. @default 0.99 */
    ssimThreshold: z.number().min(0).max(1).optional(),
  })
  .strict()
  .refine((o) => (o.maxCycle ?? 4) >= (o.minCycle ?? 1), {
    message: "maxCycle must be >= minCycle",
    path: ["maxCycle"],
  });
type LoopSpec = z.output<typeof LoopSpecSchema>;

/** The registry entry of `kind: loop` (detector only). */
export const LOOP_KIND: AgentKind<LoopSpec> = {
  kind: "loop",
  roles: ["detector"],
  simulated: false,
  schema: () => LoopSpecSchema,
  create<R extends AgentRole>(_role: R, spec: LoopSpec): AgentOf[R] {
    const { kind: _k, ...options } = spec;
    return createLoopDetector(options) as AgentOf[R];
  },
};
