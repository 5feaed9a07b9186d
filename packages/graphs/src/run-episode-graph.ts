/**
 * The body of `runEpisode` (packages/graphs/src/run-episode.ts), loaded with LangGraph on the first episode.
 * With a durable checkpointer and the same `threadId`, a run interrupted mid-way (process killed)
 * resumes from its last checkpoint: the first node that runs brings the environment back by
 * replaying its action log (packages/graphs/src/resume.ts), and the episode finishes with the result it would
 * have had.
 */
import { randomUUID } from "node:crypto";
import { Command, MemorySaver } from "@langchain/langgraph";
import type { EpisodeResult } from "@retrace-cua/core/episode";
import { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import { resolveRecoveryOptions } from "@retrace-cua/core/runtime/options";
import { ConfigError } from "@retrace-cua/core/errors";
import { redactCheckpointer } from "@retrace-cua/core/store/redacting-serde";
import { batchConfig, batchRecoveryGraph, compileRecoveryGraph } from "./recovery-graph.ts";
import { recursionLimitFor } from "./recursion-limit.ts";
import { initialGraphState, type GraphState } from "./state.ts";
import { prefetchAxTrees } from "./stored-observation.ts";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { EpisodeComponents, RecoveryOptionsInput } from "@retrace-cua/core/episode";
import type { Task } from "@retrace-cua/core/task";
import type { RuntimeKnobs } from "./context.ts";

/** Forward steps per `act` superstep for episodes without a checkpointer. */
export const BATCH_STEPS_PER_SUPERSTEP = 32;
/** Graph phases per superstep for episodes without a checkpointer. */
export const BATCH_PHASES_PER_SUPERSTEP = 64;

/** Arguments of {@link runEpisode}. */
export interface RunEpisodeArgs {
  task: Task;
  components: EpisodeComponents;
  /** Recovery options; validated, defaults from RecoveryOptionsSchema. */
  options?: RecoveryOptionsInput;
  /** Checkpoint thread; reuse it to resume an interrupted episode. @default a random UUID */
  threadId?: string;
  /**
   * LangGraph checkpointer (SqliteSaver for durability), or `false` for none: fastest (forward
   * steps run up to 32 per superstep, graph phases up to 64), for batch runs that keep their own episode-level results
   * log, but a killed episode cannot resume.
   * @default a MemorySaver that redacts secrets (createMemoryCheckpointer)
   */
  checkpointer?: BaseCheckpointSaver | false;
  /** Typed events; a listener may call `events.stop()` to end the episode. */
  events?: EpisodeEvents;
  signal?: AbortSignal;
  knobs?: RuntimeKnobs;
}

/**
 * Run one episode to its end (or resume it) and return the result ({@link runEpisode}'s body; its arguments are
 * checked).
 */
export async function runEpisodeGraph(args: RunEpisodeArgs): Promise<EpisodeResult> {
  const started = performance.now();
  const options = resolveRecoveryOptions(args.options, "runEpisode");
  const events = args.events ?? new EpisodeEvents();
  const threadId = args.threadId ?? randomUUID();
  const recursionLimit = recursionLimitFor(options);
  const base = { components: args.components, options, events, signal: args.signal };
  let final: GraphState;
  if (args.checkpointer === false) {
    // No checkpointer: the process's one compiled batch graph, forward steps and phases chained
    // within supersteps (packages/graphs/src/nodes/act.ts, packages/graphs/src/recovery-graph.ts).
    const knobs = {
      stepsPerSuperstep: BATCH_STEPS_PER_SUPERSTEP,
      phasesPerSuperstep: BATCH_PHASES_PER_SUPERSTEP,
      ...args.knobs,
    };
    // The initial state goes in as a Command (update + goto), which LangGraph applies without an
    // input task and its superstep.
    const start = new Command({ update: { episode: initialGraphState(args.task) }, goto: "start" });
    const out = await batchRecoveryGraph().invoke(
      start as never,
      batchConfig({ ...base, knobs }, { thread_id: threadId, recursionLimit }),
    );
    const result = out.episode!.result!;
    return { ...result, accounting: { ...result.accounting, wallMs: performance.now() - started } };
  }
  // The default saver is LangGraph's MemorySaver itself (already loaded here), redacting like
  // createMemoryCheckpointer's.
  const graph = compileRecoveryGraph({
    ...base,
    checkpointer: args.checkpointer ?? redactCheckpointer(new MemorySaver()),
    knobs: args.knobs,
  });
  const config = { configurable: { thread_id: threadId }, recursionLimit };
  const snapshot = await graph.getState(config);
  const saved = snapshot.values as Partial<GraphState> | undefined;
  if (saved?.result) {
    // Finished before (its worker died before storing it): what is computed from the result next
    // (ground-truth stability reads the trajectory's states) may need that worker's state snapshots.
    await args.components.env.prepareResume?.({ values: snapshot.values });
    return saved.result;
  } else if (saved?.task?.id && (snapshot.next.length > 0 || snapshot.tasks.length > 0)) {
    // Resume. `next` is empty when the interrupted step's task already saved its writes (a kill
    // between a node's writes and its checkpoint); `tasks` still lists it and LangGraph applies them.
    if (saved.task.id !== args.task.id)
      throw new ConfigError(
        `threadId ${config.configurable.thread_id} belongs to task ${saved.task.id}, not ${args.task.id}`,
        { field: "threadId" },
      );
    const checkpointed = { values: snapshot.values, tasks: snapshot.tasks };
    await prefetchAxTrees(args.components.blobs, checkpointed);
    await args.components.env.prepareResume?.(checkpointed);
    final = (await graph.invoke(null, config)) as GraphState;
  } else {
    final = (await graph.invoke({ task: args.task }, config)) as GraphState;
  }
  const result = final.result!;
  return { ...result, accounting: { ...result.accounting, wallMs: performance.now() - started } };
}
