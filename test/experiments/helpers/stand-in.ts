/**
 * A small stand-in runtime for runner tests: a counter "desktop" (state = integer, goal = reach
 * the task's target), a seeded policy that sometimes steps the wrong way, and a plain episode
 * loop in the shape of runEpisode. Environment failures can be injected per episode and try.
 */
import { BlobStore } from "../../../packages/core/src/blob-store.ts";
import type { EpisodeResult } from "../../../packages/core/src/episode.ts";
import type { Environment } from "../../../packages/core/src/environment.ts";
import { EnvironmentError } from "../../../packages/core/src/errors.ts";
import type { Observation } from "../../../packages/core/src/observation.ts";
import type { ForwardPolicy } from "../../../packages/core/src/policy.ts";
import { createRng } from "../../../packages/core/src/rng.ts";
import type { Task } from "../../../packages/core/src/task.ts";
import type { StepRecord } from "../../../packages/core/src/trajectory.ts";
import type { ExperimentRuntime } from "../../../experiments/runner/runtime.ts";
import type { Action } from "../../../packages/core/src/action.ts";

export interface StandInOptions {
  tasks?: number;
  /** Delay per step, to make runs slow enough to kill. */
  stepDelayMs?: number;
  /** Throw an EnvironmentError for this (task, seed) on these tries (1-based; "always" = every try). */
  failures?: Record<string, number[] | "always">;
}

class CounterEnv implements Environment {
  readonly kind = "counter";
  readonly capabilities = { reset: true, snapshot: false, groundTruth: true, accessibility: false };
  state = 0;
  task?: Task;
  constructor(
    private blobs: BlobStore,
    private delay: number,
    private fail: () => boolean,
  ) {}
  private obs(): Observation {
    const ref = this.blobs.putSync(Buffer.from(`counter:${this.state}`));
    return { screenshot: ref, width: 1, height: 1, stateId: `s${this.state}` };
  }
  async reset(task: Task) {
    if (this.fail()) throw new EnvironmentError("injected crash at reset");
    this.task = task;
    this.state = 0;
    return this.obs();
  }
  async step(action: Action) {
    if (this.delay) await new Promise((r) => setTimeout(r, this.delay));
    if (action.type === "PRESS") this.state += action.key === "right" ? 1 : -1;
    return { observation: this.obs(), info: {} };
  }
  async observe() {
    return this.obs();
  }
  async evaluate() {
    const target = (this.task!.evaluator as { target: number }).target;
    return { score: this.state === target ? 1 : 0 };
  }
  async close() {}
}

function policyFor(task: Task, seed: number | string): ForwardPolicy {
  const target = (task.evaluator as { target: number }).target;
  return {
    name: "stand-in-forward",
    simulated: true,
    async propose(input) {
      const rng = createRng(seed, task.id, input.tick);
      const pos = Number((input.observation.stateId ?? "s0").slice(1));
      if (pos === target && rng.chance(0.8)) return { actions: [{ type: "DONE" }] };
      const dir = rng.chance(0.75) ? (pos < target ? "right" : "left") : pos < target ? "left" : "right";
      return { actions: [{ type: "PRESS", key: dir }], response: `go ${dir}`, memo: { pos } };
    },
  };
}

/** The stand-in runtime. `tries` counts reset calls per (task, seed) to inject failures. */
export function standInRuntime(
  blobsDir: string,
  o: StandInOptions = {},
): ExperimentRuntime & { tries: Map<string, number> } {
  const tasks: Task[] = Array.from({ length: o.tasks ?? 3 }, (_, i) => ({
    id: `t${i + 1}`,
    instruction: `reach ${i + 2}`,
    env: "counter",
    setup: null,
    evaluator: { target: i + 2 },
  }));
  const tries = new Map<string, number>();
  let current = "";
  const blobs = new BlobStore({ dir: blobsDir });
  const runtime: ExperimentRuntime & { tries: Map<string, number> } = {
    tries,
    tasks: () => tasks,
    createEnv: async () =>
      new CounterEnv(blobs, o.stepDelayMs ?? 0, () => {
        const n = (tries.get(current) ?? 0) + 1;
        tries.set(current, n);
        const f = o.failures?.[current];
        return f === "always" || (Array.isArray(f) && f.includes(n));
      }),
    forwardPolicy: (_spec, ctx) => policyFor(ctx.task, ctx.stream ? `${ctx.seed}/${ctx.stream}` : ctx.seed),
    recoveryPolicy: () => ({
      name: "stand-in-recoverer",
      simulated: true,
      propose: async () => ({ actions: [], restored: true }),
    }),
    detector: () => ({
      name: "stand-in-detector",
      simulated: true,
      detect: async (i) =>
        i.history.length >= 2
          ? { isError: true, errorStep: Math.floor(i.history.length / 2), reason: "half-way", confidence: 1 }
          : { isError: false, errorStep: null, reason: "none", confidence: 0 },
    }),
    selector: () => ({
      name: "stand-in-selector",
      simulated: true,
      select: async (i) => ({ step: Math.max(0, i.errorStep - 1), reason: "E-1" }),
    }),
    async runEpisode({ task, options, components }): Promise<EpisodeResult> {
      current = `${task.id}/${options.seed}`;
      const env = components.env;
      let obs = await env.reset(task);
      const steps: StepRecord[] = [];
      const history = [];
      let stop: EpisodeResult["stopReason"] = "max-steps";
      for (let t = 0; t < (options.maxForwardSteps ?? 12); t++) {
        const d = await components.policy.propose({
          task,
          history,
          observation: obs,
          step: t,
          tick: t,
          blobs: components.blobs,
        });
        const before = obs;
        for (const a of d.actions) if (a.type !== "DONE") obs = (await env.step(a)).observation;
        steps.push({
          seq: t,
          role: "forward",
          step: t,
          actions: d.actions,
          before: before.screenshot,
          after: obs.screenshot,
        });
        history.push({ step: t, observation: before, actions: d.actions });
        if (d.actions.some((a) => a.type === "DONE")) {
          stop = "done";
          break;
        }
      }
      const evaluation = await env.evaluate();
      const recovery = components.detector ? (options.maxRecoveryIterations ?? 0) : 0;
      return {
        taskId: task.id,
        seed: options.seed ?? 0,
        success: evaluation.score === 1,
        evaluation,
        stopReason: stop,
        simulated: true,
        trajectory: { taskId: task.id, steps, events: [], result: evaluation },
        accounting: {
          forwardSteps: steps.length,
          recoverySteps: recovery,
          replaySteps: 0,
          recoveryAttempts: recovery > 0 ? 1 : 0,
          detectorCalls: 0,
          detectorFailures: 0,
          frozenSkipped: 0,
          policyFailures: 0,
          models: {},
          envMs: 3,
          wallMs: 5,
        },
        prompts: [],
      };
    },
  };
  // Reset counting needs the current episode before reset: set it from the job via runEpisode, and
  // for the ideal experiment's own loop from the policy factory.
  const fp = runtime.forwardPolicy;
  runtime.forwardPolicy = (spec, ctx) => {
    current = `${ctx.task.id}/${ctx.seed}`;
    return fp(spec, ctx);
  };
  return runtime;
}
