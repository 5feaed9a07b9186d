/**
 * A wrapper that makes any environment flaky: each state-changing action is lost with a seeded
 * probability (the input never arrives; the observation is taken as if nothing happened). The
 * draw depends on (seed, reset count, step index), so consecutive replays of the same actions
 * differ, the way real desktops drop clicks and keystrokes. Used to show transition-consistent
 * filtering at work on SimDesk, which is otherwise deterministic.
 */
import type { Action } from "@retrace-cua/core/action";
import type { Environment, StepOutcome } from "@retrace-cua/core/environment";
import { createRng } from "@retrace-cua/core/rng";
import type { Task } from "@retrace-cua/core/task";

const PASSIVE = new Set<Action["type"]>(["MOVE_TO", "WAIT", "DONE", "FAIL"]);

/** Options of {@link createFlakyEnvironment}. */
export interface FlakyOptions {
  /** Probability that a state-changing action is lost. */
  dropRate: number;
  /** @default 0 */
  seed?: number;
}

/** Wrap `inner` so that actions are sometimes lost. Every other call is passed through. */
export function createFlakyEnvironment<E extends Environment>(
  inner: E,
  options: FlakyOptions,
): Environment & { dropped: number } {
  let resets = 0;
  let steps = 0;
  const env: Environment & { dropped: number } = {
    kind: `flaky-${inner.kind}`,
    capabilities: inner.capabilities,
    dropped: 0,
    async reset(task: Task) {
      resets++;
      steps = 0;
      return inner.reset(task);
    },
    async step(action: Action): Promise<StepOutcome> {
      steps++;
      if (!PASSIVE.has(action.type) && createRng(options.seed ?? 0, "flaky", resets, steps).chance(options.dropRate)) {
        env.dropped++;
        return { observation: await inner.observe(), info: { dropped: true } };
      }
      return inner.step(action);
    },
    observe: () => inner.observe(),
    evaluate: () => inner.evaluate(),
    close: () => inner.close(),
  };
  if (inner.snapshot && inner.restore) {
    env.snapshot = () => inner.snapshot!();
    env.restore = (s) => inner.restore!(s);
  }
  if (inner.stateHash) env.stateHash = () => inner.stateHash!();
  if (inner.visibleHash) env.visibleHash = () => inner.visibleHash!();
  return env;
}
