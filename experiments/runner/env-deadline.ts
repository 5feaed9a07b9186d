/**
 * A deadline on every environment call. A desktop that stops answering (a hung X server, a
 * container that froze, a control server that never replies) would otherwise hold its worker
 * forever; with this wrapper the call fails with a StepTimeoutError after `timeoutMs`, the runtime
 * records the episode as an environment error, and the pool retries it on a fresh environment.
 * The abandoned call keeps running in the background; its environment is closed and dropped.
 */
import type { Environment } from "@retrace-cua/core/environment";
import { StepTimeoutError } from "@retrace-cua/core/errors";

/**
 * Default per-call deadline of environment methods: generous for real desktops (a container reset takes tens of
 * seconds).
 */
export const DEFAULT_ENV_TIMEOUT_MS = 180_000;

/** Methods that are never wrapped (synchronous ground-truth helpers). */
const PASS_THROUGH = new Set<PropertyKey>(["stateHash", "visibleHash", "constructor"]);

/** Counts of calls that hit the deadline, per wrapped environment. */
export interface DeadlineStats {
  timeouts: number;
}

/** Wrap `env` so that every asynchronous method rejects with StepTimeoutError after `timeoutMs`. */
export function withEnvDeadline(env: Environment, timeoutMs: number, stats?: DeadlineStats): Environment {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return env;
  return new Proxy(env, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function" || PASS_THROUGH.has(prop))
        return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const out = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (!out || typeof (out as Promise<unknown>).then !== "function") return out;
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            if (stats) stats.timeouts++;
            reject(
              new StepTimeoutError(`environment ${target.kind}.${String(prop)} did not answer within ${timeoutMs} ms`, {
                timeoutMs,
              }),
            );
          }, timeoutMs);
          timer.unref?.();
        });
        return Promise.race([out as Promise<unknown>, deadline]).finally(() => clearTimeout(timer));
      };
    },
  });
}
