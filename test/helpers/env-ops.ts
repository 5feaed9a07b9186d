/**
 * A recorder around a real environment: every reset/step/observe/evaluate/restore call with its
 * start and end time, to check the settle window (packages/core/src/settle.ts) from the outside: after each
 * executed step (a run of `step` calls) exactly one `observe`, at least `settleMs` later.
 * Method calls go to the real environment (a Proxy, so its own fields and methods still work).
 */
import type { Environment } from "../../packages/core/src/environment.ts";

/** One recorded call. */
export interface EnvOp {
  op: string;
  start: number;
  end: number;
}

const RECORDED = new Set(["reset", "step", "observe", "evaluate", "restore", "snapshot"]);

/** The environment, recording its calls into `ops`. */
export function recordEnvOps<E extends Environment>(env: E, ops: EnvOp[]): E {
  return new Proxy(env, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !RECORDED.has(prop)) return value.bind(target);
      return async (...args: unknown[]) => {
        const start = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          ops.push({ op: prop, start, end: performance.now() });
        }
      };
    },
  });
}

/** What the calls say about settling. */
export interface SettleTrace {
  /** Runs of consecutive `step` calls (one executed agent step each). */
  stepRuns: number;
  /** Calls to `observe`. */
  observes: number;
  /** Step runs not followed by an `observe`. */
  unsettled: number;
  /** Time from the end of each step run to the start of the `observe` after it (ms). */
  gaps: number[];
}

/** Summarise recorded calls (see {@link SettleTrace}). */
export function settleTrace(ops: readonly EnvOp[]): SettleTrace {
  const t: SettleTrace = { stepRuns: 0, observes: 0, unsettled: 0, gaps: [] };
  ops.forEach((o, i) => {
    if (o.op === "observe") t.observes++;
    if (o.op !== "step" || ops[i + 1]?.op === "step") return;
    t.stepRuns++;
    const next = ops[i + 1];
    if (next?.op === "observe") t.gaps.push(next.start - o.end);
    else t.unsettled++;
  });
  return t;
}
