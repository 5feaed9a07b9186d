/**
 * The `probe` kind: the probe verifier (src/probes), which compares attested state probes of the target and current
 * screens.
 */
import type { z } from "zod";
import { ProbeVerifierSpecSchema, probeVerifierFromSpec } from "@retrace-cua/evaluation/probes/verifier";
import type { AgentKind } from "./kind.ts";
import type { AgentOf, AgentRole } from "./roles.ts";

type ProbeSpec = z.output<typeof ProbeVerifierSpecSchema>;

/** The registry entry of `kind: probe` (verifier only; not simulated: it reads the environment's probes). */
export const PROBE_KIND: AgentKind<ProbeSpec> = {
  kind: "probe",
  roles: ["verifier"],
  simulated: false,
  schema: () => ProbeVerifierSpecSchema,
  create<R extends AgentRole>(_role: R, spec: ProbeSpec): AgentOf[R] {
    return probeVerifierFromSpec(spec) as unknown as AgentOf[R];
  },
};
