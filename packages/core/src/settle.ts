/**
 * The post-action settle window (paper App. B.2: "a 10-second post-action settle window to ensure
 * that pending UI updates are fully rendered before capturing the next observation"): after a
 * step's actions ran, wait `settleMs`, then take the observation the next decision (or check) sees.
 *
 * Every path that executes actions uses this one helper, once per executed step: the runtime graph
 * (forward, recovery, replay restoration), the ideal-recovery roll-forward and prefix replay,
 * dataset rollouts and perturbation, N-replay filtering, the recovery evaluation's reconstruction,
 * implicit/explicit recovery and R_TC. A step whose actions were all terminal (DONE/FAIL) or empty
 * executed nothing and does not wait.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Environment } from "./environment.ts";
import type { Observation } from "./observation.ts";

/**
 * Wait `settleMs` after a step that executed `executed` actions, then observe again; returns
 * `current` unchanged when `settleMs` is 0 or nothing was executed. Aborts with `signal`.
 */
export async function settleAfterStep(
  env: Pick<Environment, "observe">,
  executed: number,
  settleMs: number | undefined,
  current: Observation,
  signal?: AbortSignal,
): Promise<Observation> {
  if (!settleMs || settleMs <= 0 || executed === 0) return current;
  await sleep(settleMs, undefined, signal ? { signal } : undefined);
  return env.observe();
}
