/**
 * The built-in experiment runtime: SimDesk environments, agents from the registry
 * (experiments/agents: sim, model, stagnation, loop, probe), the recovery runtime's runEpisode, ground-truth
 * stability labels and the OSWorld-style episode folders.
 */
import { ConfigError } from "@retrace-cua/core/errors";
import type { Environment } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import type { Task } from "@retrace-cua/core/task";
import { groundTruthStability } from "@retrace-cua/evaluation/metrics/trajectory-labels";
import { createSimDesk, type SimDesk, type SimDeskTask } from "@retrace-cua/simdesk/simdesk";
import { SIMDESK_TASKS } from "@retrace-cua/simdesk/tasks/index";
import { runEpisode } from "@retrace-cua/graphs/run-episode";
import type { EnvSpec, ExperimentConfig } from "../config/schema.ts";
import { checkConfigAgents } from "../config/agents.ts";
import { createAgent, type AgentContext } from "../agents/index.ts";
import { statesAlong } from "../runner/recording-env.ts";
import type { ComponentContext, ExperimentRuntime, OffTrackMark } from "../runner/runtime.ts";
import type { StepRecord } from "@retrace-cua/core/trajectory";
import { trajectoryTruth } from "@retrace-cua/simdesk/agents/truth";
import { writeOsworldFolder } from "./osworld-output.ts";

const asDesk = (env: Environment) => env as unknown as SimDesk;

/** The registry's context for an agent of this runtime (model agents check that `blobs` is there). */
export function agentContext(ctx: ComponentContext, envKind: string): AgentContext {
  return { ...ctx, blobs: ctx.blobs as AgentContext["blobs"], envKind };
}

/** Check every agent spec of a config up front, so a typo fails before any episode runs. */
export function checkSimConfig(config: ExperimentConfig): void {
  checkConfigAgents(config, "simdesk");
}

/** Agent factories from the registry (experiments/agents) for a runtime on `envKind`. */
export function registryAgents(
  envKind: string,
): Pick<
  ExperimentRuntime,
  "forwardPolicy" | "recoveryPolicy" | "detector" | "selector" | "summarizer" | "verifier" | "envKind"
> {
  const at = (ctx: ComponentContext) => agentContext(ctx, envKind);
  return {
    envKind,
    forwardPolicy: (spec, ctx) => createAgent("forward", spec, at(ctx)),
    recoveryPolicy: (spec, ctx) => createAgent("recovery", spec, at(ctx)),
    detector: (spec, ctx) => createAgent("detector", spec, at(ctx)),
    selector: (spec, ctx) => createAgent("selector", spec, at(ctx)),
    summarizer: (spec, ctx) => createAgent("summarizer", spec, at(ctx)),
    verifier: (spec, ctx) => createAgent("verifier", spec, at(ctx)),
  };
}

/** How process workers rebuild this runtime (see experiments/runner/shards.ts). */
export const SIMDESK_RUNTIME_SPEC = { module: import.meta.url, exportName: "createSimDeskRuntime" } as const;

/** The SimDesk runtime. */
export function createSimDeskRuntime(): ExperimentRuntime {
  return {
    checkConfig: checkSimConfig,
    tasks(env: EnvSpec): Task[] {
      if (env.kind !== "simdesk")
        throw new ConfigError(
          `config.env.kind: "${env.kind}" is not built in; the experiment runner drives "simdesk" (real desktops: \`retrace run-model\`)`,
          { field: "env.kind" },
        );
      return [...SIMDESK_TASKS];
    },
    async createEnv(_env, blobs) {
      return createSimDesk({ blobs });
    },
    ...registryAgents("simdesk"),
    // Batch episodes: no per-superstep checkpoint copies unless `--checkpoint` asked for durability.
    runEpisode: (input) => runEpisode({ ...input, checkpointer: input.checkpointer ?? false }),
    groundTruthStability({ env, task, result, observed }) {
      const desk = asDesk(env);
      // The trajectory's own state ids when every step has them (exact also for an episode resumed in another
      // process, which did not observe the steps before the resume); else match screenshots to what this process
      // observed.
      const steps = result.trajectory.steps;
      const own = steps.length > 0 && steps.every((s) => s.beforeState && s.afterState);
      const along = own
        ? { initial: steps[0].beforeState as string, states: steps.map((s) => s.afterState as string) }
        : statesAlong(
            steps.map((s) => s.after),
            observed,
          );
      if (!along) return undefined;
      return groundTruthStability(
        along.initial,
        along.states,
        (id) => desk.planIndexOf(task as SimDeskTask, id) >= 0,
        (id) => desk.semanticHash(id),
      );
    },
    groundTruthOffTrack({ env, task, result }) {
      return offTrackMark(asDesk(env), task as SimDeskTask, result.trajectory.steps);
    },
    sameState(env: Environment, a: Observation, b: Observation) {
      if (!a.stateId || !b.stateId) return a.screenshot === b.screenshot;
      const desk = asDesk(env);
      return desk.semanticHash(a.stateId) === desk.semanticHash(b.stateId);
    },
    writeEpisode: writeOsworldFolder,
  };
}

/**
 * The ground-truth off-track mark of a failed SimDesk episode (docs/experiments.md#ground-truth-off-track-mark):
 * the step after the last one that advanced the task's reference plan (s*_k -> s*_k+1), read from
 * the steps' recorded state ids by the rule the simulated detector is scored against
 * (packages/simdesk/src/agents/truth.ts `trajectoryTruth`), over every executed step in order.
 * Undefined when a step lacks its state ids or the last step still made progress (the episode ran
 * out of steps on the path, or its DONE came with the task solved).
 */
export function offTrackMark(desk: SimDesk, task: SimDeskTask, steps: readonly StepRecord[]): OffTrackMark | undefined {
  if (!steps.length || !steps.every((s) => s.beforeState && s.afterState)) return undefined;
  const obs = (stateId: string) => ({ stateId }) as Observation;
  const history = steps.map((s, i) => ({ step: i, observation: obs(s.beforeState!), actions: s.actions }));
  const truth = trajectoryTruth(desk, task, history, obs(steps[steps.length - 1].afterState!));
  if (!truth.offTrack || truth.errorStep === null) return undefined;
  const at = truth.errorStep;
  const plan = task.plan.length;
  const last = steps[steps.length - 1];
  const end = truth.planIndex === -1 ? "off the plan's path" : `at plan step ${truth.planIndex} of ${plan}`;
  return {
    seq: steps[at].seq,
    reason: `went off track here (SimDesk's reference plan, ${plan} steps): ${at === 0 ? "no step advanced the plan" : `step ${at - 1} was the last step to advance it`}, no later step did, and the episode ended ${end}${last.actions.some((a) => a.type === "DONE") ? " with a DONE" : ""}`,
  };
}
