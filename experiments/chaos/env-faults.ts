/**
 * Seeded fault injection for environments (`retrace chaos`). Each asynchronous call of the
 * wrapped environment draws, from a hash of (seed, episode, call number), whether it fails and
 * how: it throws (a crash), never resolves (a hang: only the runner's deadline ends it), returns a
 * corrupt or truncated PNG as its screenshot, answers slowly, or the desktop "dies" (the X server
 * or container went away: this and every later call of the instance fail until the pool replaces
 * it). The episode key is set by the chaos runtime before each episode ({@link ENV_FAULT_CONTROL}),
 * so the faults do not depend on which worker ran which episode: same seed, same faults.
 */
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { Environment, StepOutcome } from "@retrace-cua/core/environment";
import { EnvironmentError } from "@retrace-cua/core/errors";
import { sha256Hex } from "@retrace-cua/core/hash";
import type { Observation } from "@retrace-cua/core/observation";

/** The environment fault kinds. */
export const ENV_FAULTS = ["crash", "hang", "corrupt-png", "truncated-png", "slow", "killed"] as const;
export type EnvFault = (typeof ENV_FAULTS)[number];

/** Options of {@link withEnvFaults}. */
export interface EnvFaultOptions {
  /** Seed of every draw. */
  seed: number | string;
  /** Probability that one environment call is faulty, 0..1. */
  rate: number;
  /** Which faults to draw from (uniformly). @default all of ENV_FAULTS */
  faults?: readonly EnvFault[];
  /** Where corrupt screenshots are stored (the run's blob store). */
  blobs: BlobStore;
  /** Extra latency of a "slow" call in ms. @default 300 */
  slowMs?: number;
  /** Counts of injected faults, shared by every instance (for the chaos report). */
  counts: Record<EnvFault, number>;
}

/** An empty counter per fault kind. */
export function emptyEnvFaultCounts(): Record<EnvFault, number> {
  return Object.fromEntries(ENV_FAULTS.map((f) => [f, 0])) as Record<EnvFault, number>;
}

/** A uniform draw in [0, 1) from the hash of `parts`. */
export function seededUnit(...parts: Array<string | number>): number {
  return parseInt(sha256Hex(Buffer.from(parts.join("\u0000"))).slice(0, 12), 16) / 2 ** 48;
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Calls that can fail; close() always succeeds so the pool can clean up. */
const FAULTY = new Set<PropertyKey>(["reset", "step", "observe", "evaluate", "snapshot", "restore"]);

/**
 * Property under which a faulty environment exposes its {@link EnvFaultControl} (it passes through the runner's
 * wrappers).
 */
export const ENV_FAULT_CONTROL = Symbol.for("retrace.chaos.env-fault-control");

/** Set the episode the next calls belong to (the seed of their draws); the call counter restarts. */
export interface EnvFaultControl {
  beginEpisode(key: string): void;
}

/** Wrap `env` with seeded faults. */
export function withEnvFaults(env: Environment, options: EnvFaultOptions): Environment {
  const faults = options.faults ?? ENV_FAULTS;
  let calls = 0;
  let episode = "";
  let dead = false;
  const control: EnvFaultControl = {
    beginEpisode(key) {
      episode = key;
      calls = 0;
    },
  };
  const corrupt = async (o: Observation, kind: "corrupt-png" | "truncated-png"): Promise<Observation> => {
    const real = await options.blobs.get(o.screenshot);
    const bytes =
      kind === "truncated-png"
        ? real.subarray(0, Math.max(PNG_MAGIC.length + 4, Math.floor(real.length / 3)))
        : Buffer.concat([PNG_MAGIC, Buffer.from(`not a png ${episode}/${calls}`)]);
    return { ...o, screenshot: await options.blobs.put(bytes) };
  };
  return new Proxy(env, {
    get(target, prop, receiver) {
      if (prop === ENV_FAULT_CONTROL) return control;
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (!FAULTY.has(prop)) return (value as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        const n = calls++;
        if (dead) throw new EnvironmentError("chaos: the desktop is gone (killed earlier)");
        const u = seededUnit(options.seed, "env", episode, n);
        if (u >= options.rate) return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        const fault = faults[Math.floor(seededUnit(options.seed, "env-kind", episode, n) * faults.length)];
        options.counts[fault]++;
        switch (fault) {
          case "crash":
            throw new Error(`chaos: ${String(prop)} crashed`);
          case "killed":
            dead = true;
            throw new EnvironmentError(`chaos: the X server was killed during ${String(prop)}`);
          case "hang":
            return new Promise(() => {});
          case "slow":
            await new Promise((r) => setTimeout(r, options.slowMs ?? 300));
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          default: {
            const out = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            if (prop === "step")
              return { ...(out as StepOutcome), observation: await corrupt((out as StepOutcome).observation, fault) };
            if (out && typeof out === "object" && "screenshot" in (out as object))
              return corrupt(out as Observation, fault);
            return out;
          }
        }
      };
    },
  });
}
