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
 */
import { END, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import type { EpisodeComponents, RecoveryOptions, RecoveryOptionsInput } from "../src/episode.ts";
import type { EpisodeEvents } from "../src/runtime/events.ts";
import { resolveRecoveryOptions } from "../src/runtime/options.ts";
import { createRuntimeContext, type RuntimeKnobs } from "./context.ts";
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

/** Arguments of {@link createRecoveryGraph}. */
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

const stopped = (s: StoredGraphState) => s.stopReason !== null;

/**
 * Build and compile the recovery graph. Invoke it with `{ task }`; the final state's `result` is the
 * EpisodeResult. Embeddable as a node of a user's own graph.
 */
export function createRecoveryGraph(args: CreateRecoveryGraphArgs) {
  installLeanRunContext(); // no disabled RunTree per runnable call unless something traces (graphs/run-context.ts)
  const options = resolveRecoveryOptions(args.options);
  const ctx = createRuntimeContext({ components: args.components, options, events: args.events, signal: args.signal, knobs: args.knobs });
  const codec = codecFor(ctx);
  // Nodes see observations with their accessibility trees (kept out of checkpoints by reference).
  const view = (s: StoredGraphState): GraphState => ({ ...s, observation: codec.expand(s.observation), history: s.history.map((e) => codec.expandEntry(e)) });
  // A checkpoint must never name a blob its store has not made durable: a shared store (PostgreSQL)
  // uploads synchronous writes (accessibility trees, SimDesk states) in the background, and a
  // worker killed after the checkpoint but before the upload left a thread no other worker could
  // resume. So each node waits for the store before LangGraph checkpoints its writes (a no-op on
  // the filesystem store).
  const node = (f: (s: GraphState, c: typeof ctx) => Promise<GraphUpdate>) => async (s: StoredGraphState) => {
    const update = await f(view(s), ctx);
    await ctx.components.blobs.flush();
    return update;
  };
  return new StateGraph(RecoveryGraphState)
    .addNode("start", node(start))
    .addNode("propose", node(propose))
    .addNode("act", node(act))
    .addNode("select", node(select))
    .addNode("recover", node(recover))
    .addNode("restoreContext", node(restoreContext))
    .addNode("evaluate", node(evaluate))
    .addEdge(START, "start")
    .addConditionalEdges("start", (s: StoredGraphState) => (stopped(s) ? "evaluate" : "propose"), ["propose", "evaluate"])
    .addConditionalEdges("propose", (s: StoredGraphState) => (stopped(s) ? "evaluate" : "act"), ["act", "evaluate"])
    .addConditionalEdges("act", (s: StoredGraphState) => (s.pending ? "select" : stopped(s) ? "evaluate" : "act"), ["select", "act", "evaluate"])
    .addEdge("select", "recover")
    .addConditionalEdges("recover", (s: StoredGraphState) => (stopped(s) ? "evaluate" : "restoreContext"), ["restoreContext", "evaluate"])
    .addEdge("restoreContext", "propose")
    .addEdge("evaluate", END)
    .compile({ checkpointer: args.checkpointer, name: "retrace" });
}

/** A recursion limit that an episode within its budgets can never hit. */
export function recursionLimitFor(options: RecoveryOptions): number {
  return options.maxForwardSteps * 3 + options.maxRecoveryIterations * 4 + 16;
}
