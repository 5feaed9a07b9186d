/**
 * Wraps an environment so the runner can see every observation it returned (screenshot ref and,
 * for ground-truth environments, the true state id) without the runtime's help. Everything else,
 * ground-truth methods included, passes straight through.
 */
import type { Environment } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import type { ObservedState } from "./runtime.ts";

/** An environment plus the log of observations it produced since the last `clear()`. */
export interface RecordingEnvironment {
  env: Environment;
  observed: ObservedState[];
  clear(): void;
}

export function recordObservations(inner: Environment): RecordingEnvironment {
  const observed: ObservedState[] = [];
  const note = (o: Observation) => {
    observed.push({ screenshot: o.screenshot, ...(o.stateId ? { stateId: o.stateId } : {}) });
    return o;
  };
  const env = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      if (prop === "reset" || prop === "observe" || prop === "restore")
        return async (...args: unknown[]) =>
          note(await (value as (...a: unknown[]) => Promise<Observation>).apply(target, args));
      if (prop === "step")
        return async (...args: unknown[]) => {
          const out = await (value as (...a: unknown[]) => Promise<{ observation: Observation }>).apply(target, args);
          note(out.observation);
          return out;
        };
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { env, observed, clear: () => void (observed.length = 0) };
}

/**
 * The true state after each trajectory step: match each step's `after` screenshot to the next
 * observation with that screenshot, in order (steps execute in the order the env saw them).
 * Returns undefined when some step cannot be matched or carries no state id.
 */
export function statesAlong(
  afterRefs: readonly string[],
  observed: readonly ObservedState[],
): { initial: string; states: string[] } | undefined {
  if (observed.length === 0 || !observed[0].stateId) return undefined;
  const states: string[] = [];
  let cursor = 0;
  for (const ref of afterRefs) {
    let found = -1;
    for (let i = cursor; i < observed.length; i++)
      if (observed[i].screenshot === ref) {
        found = i;
        break;
      }
    // A step that did not touch the environment (DONE, FAIL, an unusable answer) ends where it began.
    if (found < 0 && cursor > 0 && observed[cursor - 1].screenshot === ref) found = cursor - 1;
    if (found < 0 || !observed[found].stateId) return undefined;
    states.push(observed[found].stateId as string);
    cursor = found + 1;
  }
  return { initial: observed[0].stateId, states };
}
