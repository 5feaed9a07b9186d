/**
 * What every node of the recovery graph closes over: the components, the resolved options, the
 * event emitter and the stop signal. None of it is checkpointed; the graph state holds only data.
 */
import type { EpisodeComponents, RecoveryOptions } from "@retrace-cua/core/episode";
import { ConfigError } from "@retrace-cua/core/errors";
import type { RecoveryStepSelector } from "@retrace-cua/core/selector";
import type { TaskSpec } from "@retrace-cua/core/task";
import { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import { createStepSelector } from "@retrace-cua/core/selectors/index";
import { DEFAULT_DETECTOR_TIMEOUT_MS } from "@retrace-cua/core/runtime/detection";

/** Runtime knobs that are not recovery options (they do not change results). */
export interface RuntimeKnobs {
  /**
   * A detector call taking longer than this is aborted and counts as a detector failure. @default 30000
   * (DEFAULT_DETECTOR_TIMEOUT_MS)
   */
  detectorTimeoutMs?: number;
  /**
   * Forward steps one `act` superstep may run back to back (see packages/graphs/src/nodes/act.ts). 1 gives a
   * checkpoint after every forward step, which durable runs need; without a checkpointer more is
   * only faster. @default 1 (runEpisode with `checkpointer: false`: 32)
   */
  stepsPerSuperstep?: number;
  /**
   * Graph phases (start, propose, act, select, recover, restoreContext, evaluate) one superstep
   * may run in a row, following the graph's own edges (see packages/graphs/src/recovery-graph.ts). 1 gives one
   * node per superstep, which durable runs need; without a checkpointer more is only faster.
   * @default 1 (runEpisode with `checkpointer: false`: 64)
   */
  phasesPerSuperstep?: number;
}

/** Shared, non-serialisable context of one graph instance. */
export interface RuntimeContext {
  components: EpisodeComponents;
  options: RecoveryOptions;
  events: EpisodeEvents;
  /** The recovery-step selector for `options.recoveryStep`. */
  selector: RecoveryStepSelector;
  detectorTimeoutMs: number;
  /** See {@link RuntimeKnobs.stepsPerSuperstep}. */
  stepsPerSuperstep: number;
  /** See {@link RuntimeKnobs.phasesPerSuperstep}. */
  phasesPerSuperstep: number;
  signal?: AbortSignal;
  /**
   * True once the environment is known to match the graph state in this process: set by `start`
   * (fresh episode) or by `ensureEnvironment` (resume). Mutable, per graph instance.
   */
  envSynced: boolean;
}

/** Check that the components can do what the options ask; throw a ConfigError naming the gap. */
export function createRuntimeContext(args: {
  components: EpisodeComponents;
  options: RecoveryOptions;
  events?: EpisodeEvents;
  signal?: AbortSignal;
  knobs?: RuntimeKnobs;
}): RuntimeContext {
  const { components: c, options: o } = args;
  for (const key of ["policy", "env", "blobs"] as const) {
    if (!c || !c[key]) throw new ConfigError(`components.${key} is required`, { field: `components.${key}` });
  }
  const recovering = c.detector !== undefined && o.maxRecoveryIterations > 0;
  if (recovering) {
    if (o.restoration === "model" && !c.recoverer)
      throw new ConfigError('restoration: "model" needs components.recoverer (a RecoveryPolicy)', {
        field: "restoration",
      });
    if (o.restoration === "model" && o.recoveryContext === "contextualized" && !c.summarizer) {
      throw new ConfigError('recoveryContext: "contextualized" needs components.summarizer', {
        field: "recoveryContext",
      });
    }
    if (o.restoration === "replay" && !c.env.capabilities.reset)
      throw new ConfigError(`restoration: "replay" needs an environment that can reset (${c.env.kind} cannot)`, {
        field: "restoration",
      });
    if (o.restoration === "snapshot" && !(c.env.capabilities.snapshot && c.env.snapshot && c.env.restore)) {
      throw new ConfigError(
        `restoration: "snapshot" needs an environment with snapshot/restore (${c.env.kind} has none)`,
        { field: "restoration" },
      );
    }
  }
  return {
    components: c,
    options: o,
    events: args.events ?? new EpisodeEvents(),
    // Without a detector no recovery step is ever selected: a baseline needs no "llm" selector.
    selector: createStepSelector(recovering || o.recoveryStep !== "llm" ? o.recoveryStep : "error-minus-1", c.selector),
    detectorTimeoutMs: args.knobs?.detectorTimeoutMs ?? DEFAULT_DETECTOR_TIMEOUT_MS,
    stepsPerSuperstep: positiveSteps(args.knobs?.stepsPerSuperstep, "stepsPerSuperstep"),
    phasesPerSuperstep: positiveSteps(args.knobs?.phasesPerSuperstep, "phasesPerSuperstep"),
    signal: args.signal,
    envSynced: false,
  };
}

function positiveSteps(n: number | undefined, knob: string): number {
  if (n === undefined) return 1;
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigError(`knobs.${knob} must be a whole number >= 1, got ${n}`, { field: `knobs.${knob}` });
  return n;
}

/** Why the episode should stop now, or null. */
export function stopRequested(ctx: RuntimeContext): string | null {
  if (ctx.signal?.aborted) return `aborted: ${String(ctx.signal.reason ?? "signal")}`;
  return ctx.events.stopRequested;
}

/** The policy-visible part of a task (instruction and id only; never setup or evaluator). */
export function taskSpec(task: TaskSpec): TaskSpec {
  return { id: task.id, instruction: task.instruction };
}

/** True when any component is a seeded simulation (results are then labelled simulated). */
export function isSimulated(c: EpisodeComponents): boolean {
  return [c.policy, c.detector, c.selector, c.recoverer].some((x) => x?.simulated === true);
}
