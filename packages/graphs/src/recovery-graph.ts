/**
 * The recovery runtime as one LangGraph state machine. Read top to bottom:
 *
 *   START -> start                      reset the environment, take o_0
 *   start -> propose                    the forward policy proposes step t (sees the notice once)
 *   propose -> act                      act = execute step t (DONE/FAIL/budget end the episode), then
 *                                       judge it: the error-step detector (unless frozen or the retry
 *                                       cap is spent) and the policy's proposal for t+1, one after the
 *                                       other ("sequential") or concurrently ("overlapped")
 *   act -> act                          nothing wrong (or detector failed / frozen): run step t+1
 *   act -> select                       confident error at E (proposal discarded): choose R
 *   select -> recover                   restore s_R (model subgraph | replay | snapshot | implicit)
 *   recover -> restoreContext           truncate history to 0..R-1, set the transition string
 *   restoreContext -> propose           the forward policy continues from R
 *   any stop (done, fail, max-steps, env-error, aborted) -> evaluate -> END
 *
 * Components are closed over (never checkpointed); state holds only JSON and blob references.
 * Batch episodes (no checkpointer) run the same nodes and edges on {@link batchRecoveryGraph}:
 * compiled once per process, phases chained within a superstep, the components in the config.
 */
import {
  Annotation,
  Command,
  END,
  START,
  StateGraph,
  type BaseCheckpointSaver,
  type LangGraphRunnableConfig,
} from "@langchain/langgraph";
import type { EpisodeComponents, RecoveryOptions, RecoveryOptionsInput } from "@retrace-cua/core/episode";
import type { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import { resolveRecoveryOptions } from "@retrace-cua/core/runtime/options";
import { createRuntimeContext, type RuntimeContext, type RuntimeKnobs } from "./context.ts";
import { applied, merged } from "./fold.ts";
import { evaluate } from "./nodes/evaluate.ts";
import { act } from "./nodes/act.ts";
import { propose } from "./nodes/propose.ts";
import { recover } from "./nodes/recover.ts";
import { restoreContext } from "./nodes/restore-context.ts";
import { select } from "./nodes/select.ts";
import { start } from "./nodes/start.ts";
import { RecoveryGraphState, type GraphState, type GraphUpdate, type StoredGraphState } from "./state.ts";
import { codecFor } from "./stored-observation.ts";
import { installLeanRunContext } from "./run-context.ts";
import { redactCheckpointer } from "@retrace-cua/core/store/redacting-serde";
import { ConfigError } from "@retrace-cua/core/errors";

/** Arguments of {@link compileRecoveryGraph}. */
export interface CreateRecoveryGraphArgs {
  components: EpisodeComponents;
  /** Recovery options (validated; defaults from RecoveryOptionsSchema). */
  options?: RecoveryOptionsInput | RecoveryOptions;
  /** Where events go; a listener may call `events.stop()`. */
  events?: EpisodeEvents;
  signal?: AbortSignal;
  /** LangGraph checkpointer. @default none (inherits the parent graph's when embedded) */
  checkpointer?: BaseCheckpointSaver | boolean;
  knobs?: RuntimeKnobs;
}

const stopped = (s: Pick<StoredGraphState, "stopReason">) => s.stopReason !== null;

type Phase = "start" | "propose" | "act" | "select" | "recover" | "restoreContext" | "evaluate";
type Node = (s: GraphState, c: RuntimeContext) => Promise<GraphUpdate>;
const NODES: Record<Phase, Node> = { start, propose, act, select, recover, restoreContext, evaluate };
const PHASES = Object.keys(NODES) as Phase[];

/** The graph's edges: the phase that follows each phase, given the state its writes produced. */
const NEXT: Record<Phase, (s: Pick<StoredGraphState, "stopReason" | "pending">) => Phase | typeof END> = {
  start: (s) => (stopped(s) ? "evaluate" : "propose"),
  propose: (s) => (stopped(s) ? "evaluate" : "act"),
  act: (s) => (s.pending ? "select" : stopped(s) ? "evaluate" : "act"),
  select: () => "recover",
  recover: (s) => (stopped(s) ? "evaluate" : "restoreContext"),
  restoreContext: () => "propose",
  evaluate: () => END,
};

/**
 * Build and compile the recovery graph. Invoke it with `{ task }`; the final state's `result` is the
 * EpisodeResult. Embeddable as a node of a user's own graph.
 *
 * With `knobs.phasesPerSuperstep` above 1 a node goes on to the phases its edges lead to within the
 * same superstep, each seeing the state the previous one's writes produced (packages/graphs/src/fold.ts), until
 * the episode ends or the bound is reached; the superstep writes their folded update and its
 * `phase`, and the graph routes by that phase: one checkpoint per chain instead of per node. The
 * calls, their order and the episode are those of one node per superstep
 * (test/graphs/batch-supersteps.test.ts). Batch episodes use {@link batchRecoveryGraph} instead.
 */
export function compileRecoveryGraph(args: CreateRecoveryGraphArgs) {
  installLeanRunContext(); // no disabled RunTree per runnable call unless something traces (packages/graphs/src/run-context.ts)
  const options = resolveRecoveryOptions(args.options, "createRecoveryGraph");
  const ctx = createRuntimeContext({
    components: args.components,
    options,
    events: args.events,
    signal: args.signal,
    knobs: args.knobs,
  });
  return buildGraph(ctx, ctx.phasesPerSuperstep > 1, args.checkpointer);
}

/** A compiled recovery graph ({@link compileRecoveryGraph}; `createRecoveryGraph` in the main entry). */
export type RecoveryGraph = ReturnType<typeof compileRecoveryGraph>;

/** The runtime context a batch graph's invocation carries (see {@link batchRecoveryGraph}). */
const CTX_KEY = "__retrace_ctx";

/**
 * The batch graph's state: the whole episode state as one value. Nothing checkpoints it, so the
 * flat per-record channels of RecoveryGraphState (which exist to keep checkpoints small) would
 * only cost LangGraph bookkeeping per channel and superstep; the value is replaced by reference,
 * never copied.
 */
const BatchGraphState = Annotation.Root({
  episode: Annotation<GraphState | null>({ reducer: (_a, b) => b, default: () => null }),
});

/**
 * A compiled batch graph: invoke with `new Command({ update: { episode: initialGraphState(task) }, goto: "start" })`
 * (or `{ episode }`, which costs LangGraph an input task) and {@link batchConfig}.
 */
export type BatchRecoveryGraph = ReturnType<typeof buildBatchGraph>;
let batchGraph: BatchRecoveryGraph | undefined;

/**
 * The recovery graph for batch episodes (no checkpointer), compiled once per process: the same
 * nodes and edges as {@link compileRecoveryGraph} (each node names its successor with a Command
 * instead of a conditional edge), phases chained up to `knobs.phasesPerSuperstep`
 * per superstep, the state one value (BatchGraphState), and the episode's runtime context carried
 * in the invocation's config ({@link batchConfig}) instead of closed over, so a runner's thousands
 * of episodes do not each compile a graph.
 */
export function batchRecoveryGraph(): BatchRecoveryGraph {
  installLeanRunContext();
  batchGraph ??= buildBatchGraph();
  return batchGraph;
}

/** The invocation config of {@link batchRecoveryGraph} for one episode. */
export function batchConfig(
  args: CreateRecoveryGraphArgs,
  extra: { thread_id: string; recursionLimit: number },
): { configurable: Record<string, unknown>; recursionLimit: number } {
  const options = resolveRecoveryOptions(args.options, "createRecoveryGraph");
  const ctx = createRuntimeContext({
    components: args.components,
    options,
    events: args.events,
    signal: args.signal,
    knobs: args.knobs,
  });
  return { configurable: { thread_id: extra.thread_id, [CTX_KEY]: ctx }, recursionLimit: extra.recursionLimit };
}

function buildBatchGraph() {
  type S = typeof BatchGraphState.State;
  // Each node names the phase that follows (a Command) instead of going through conditional
  // edges: no branch runnable reading the state after every superstep.
  const node = (phase: Phase) => async (s: S, config?: LangGraphRunnableConfig) => {
    const ctx = (config?.configurable as Record<string, unknown> | undefined)?.[CTX_KEY] as RuntimeContext | undefined;
    if (!ctx)
      throw new ConfigError(
        "batchRecoveryGraph: invoke it with batchConfig(...) (the episode's runtime context is missing)",
      );
    if (!s.episode) throw new ConfigError("batchRecoveryGraph: invoke it with { episode: initialGraphState(task) }");
    let state = applied(s.episode, await NODES[phase](s.episode, ctx), ctx);
    let last = phase;
    let next = NEXT[last](state);
    for (let n = 1; n < ctx.phasesPerSuperstep && next !== END; n++) {
      state = applied(state, await NODES[next](state, ctx), ctx);
      last = next;
      next = NEXT[last](state);
    }
    await ctx.components.blobs.flush();
    return new Command({ update: { episode: { ...state, phase: last } }, goto: next });
  };
  const ends = [...PHASES, END];
  return new StateGraph(BatchGraphState)
    .addNode("start", node("start"), { ends })
    .addNode("propose", node("propose"), { ends })
    .addNode("act", node("act"), { ends })
    .addNode("select", node("select"), { ends })
    .addNode("recover", node("recover"), { ends })
    .addNode("restoreContext", node("restoreContext"), { ends })
    .addNode("evaluate", node("evaluate"), { ends })
    .addEdge(START, "start")
    .compile({ checkpointer: false, name: "retrace" });
}

function buildGraph(ctx: RuntimeContext, chained: boolean, checkpointer: BaseCheckpointSaver | boolean | undefined) {
  // A checkpoint must never name a blob its store has not made durable: a shared store (PostgreSQL)
  // uploads synchronous writes (accessibility trees, SimDesk states) in the background, and a
  // worker killed after the checkpoint but before the upload left a thread no other worker could
  // resume. So each node waits for the store before LangGraph checkpoints its writes (a no-op on
  // the filesystem store).
  const codec = codecFor(ctx);
  const node =
    (phase: Phase) =>
    async (s: StoredGraphState): Promise<GraphUpdate> => {
      // Nodes see observations with their accessibility trees (kept out of checkpoints by reference).
      let state: GraphState = {
        ...s,
        observation: codec.expand(s.observation),
        history: s.history.map((e) => codec.expandEntry(e)),
      };
      let update = await NODES[phase](state, ctx);
      let total = update;
      let last = phase;
      for (let n = 1; n < ctx.phasesPerSuperstep; n++) {
        state = applied(state, update, ctx);
        const next = NEXT[last](state);
        if (next === END) break;
        update = await NODES[next](state, ctx);
        total = merged(total, update);
        last = next;
      }
      await ctx.components.blobs.flush();
      // Only chained supersteps route by `phase`; one node per superstep keeps it out of checkpoints.
      return chained ? { ...total, phase: last } : total;
    };
  const graph = new StateGraph(RecoveryGraphState)
    .addNode("start", node("start"))
    .addNode("propose", node("propose"))
    .addNode("act", node("act"))
    .addNode("select", node("select"))
    .addNode("recover", node("recover"))
    .addNode("restoreContext", node("restoreContext"))
    .addNode("evaluate", node("evaluate"))
    .addEdge(START, "start");
  for (const phase of PHASES) {
    // One node per superstep: each node's own edges. Chained: the edges of the phase that ran last.
    const targets: Array<Phase | typeof END> = chained ? [...PHASES, END] : EDGE_TARGETS[phase];
    graph.addConditionalEdges(
      phase,
      chained ? (s: StoredGraphState) => NEXT[(s.phase ?? phase) as Phase](s) : (s: StoredGraphState) => NEXT[phase](s),
      targets,
    );
  }
  // Whatever saver the caller hands in stores its state redacted (packages/core/src/store/redacting-serde.ts).
  return graph.compile({
    checkpointer: typeof checkpointer === "object" ? redactCheckpointer(checkpointer) : checkpointer,
    name: "retrace",
  });
}

/** Where each node's edges can lead (drawn graphs show these). */
const EDGE_TARGETS: Record<Phase, Array<Phase | typeof END>> = {
  start: ["propose", "evaluate"],
  propose: ["act", "evaluate"],
  act: ["select", "act", "evaluate"],
  select: ["recover"],
  recover: ["restoreContext", "evaluate"],
  restoreContext: ["propose"],
  evaluate: [END],
};
