/** The `stagnation` kind: the heuristic detector that fires when the last k actions changed nothing on screen. */
import { z } from "zod";
import { createStagnationDetector } from "@retrace-cua/core/detectors/index";
import type { AgentKind } from "./kind.ts";
import type { AgentOf, AgentRole } from "./roles.ts";

const StagnationSpecSchema = z
  .object({
    kind: z.literal("stagnation"),
    /** Unchanged screens for this many forward steps count as stagnation. @default 3 */
    k: z.number().int().min(1).max(100).optional(),
    /** SSIM at or above this counts as an unchanged screen. @default 0.99 */
    ssimThreshold: z.number().min(0).max(1).optional(),
  })
  .strict();
type StagnationSpec = z.output<typeof StagnationSpecSchema>;

/** The registry entry of `kind: stagnation` (detector only; not simulated: it reads real screens). */
export const STAGNATION_KIND: AgentKind<StagnationSpec> = {
  kind: "stagnation",
  roles: ["detector"],
  simulated: false,
  schema: () => StagnationSpecSchema,
  create<R extends AgentRole>(_role: R, spec: StagnationSpec): AgentOf[R] {
    const { kind: _k, ...options } = spec;
    return createStagnationDetector(options) as AgentOf[R];
  },
};
