/**
 * Recording probes with every observation: `withProbes(env, { blobs })` returns the same
 * environment (a Proxy: its own methods, fields and `instanceof` still work) whose `reset`,
 * `step`, `observe` and `restore` also run `env.probe()`, store the report in the blob store and
 * put the reference on the observation (`Observation.probe`). The report never enters
 * checkpointed graph state, only its 64-character reference does.
 */
import type { Environment, StepOutcome } from "@retrace-cua/core/environment";
import { ConfigError } from "@retrace-cua/core/errors";
import { logger } from "@retrace-cua/core/logger";
import type { Observation } from "@retrace-cua/core/observation";
import { storeProbeReport, type BlobWriter } from "@retrace-cua/core/probes/report";

/** Options of {@link withProbes}. */
export interface WithProbesOptions {
  /** Where probe reports go (the run's BlobStore). */
  blobs: BlobWriter;
}

/** True when the environment declares and implements probes. */
export function canProbe(env: Environment): env is Environment & { probe: NonNullable<Environment["probe"]> } {
  return !!env.capabilities.probes && typeof env.probe === "function";
}

/** Probe the environment now, store the report and return the observation with its reference. */
export async function attachProbe(env: Environment, blobs: BlobWriter, obs: Observation): Promise<Observation> {
  if (!canProbe(env)) return obs;
  const report = await env.probe();
  if (report.errors) logger.debug({ env: env.kind, errors: report.errors }, "some probes could not be read");
  return { ...obs, probe: await storeProbeReport(blobs, report) };
}

/** The environment, recording a probe report with each observation it returns. */
export function withProbes<E extends Environment>(env: E, options: WithProbesOptions): E {
  if (!canProbe(env))
    throw new ConfigError(
      `env "${env.kind}" has no state probes (capabilities.probes is not set); turn probes off for it`,
      { field: "env.probes" },
    );
  const { blobs } = options;
  const overrides: Partial<Environment> = {
    reset: async (task) => attachProbe(env, blobs, await env.reset(task)),
    observe: async () => attachProbe(env, blobs, await env.observe()),
    step: async (action): Promise<StepOutcome> => {
      const out = await env.step(action);
      return { ...out, observation: await attachProbe(env, blobs, out.observation) };
    },
  };
  if (env.restore) overrides.restore = async (snapshot) => attachProbe(env, blobs, await env.restore!(snapshot));
  return new Proxy(env, {
    get(target, prop) {
      if (typeof prop === "string" && prop in overrides) return overrides[prop as keyof Environment];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
