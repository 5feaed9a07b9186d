/**
 * The recovery runtime as one LangGraph state machine. Read top to bottom:
 *
 *   START -> start                      reset the environment, take o_0
 *   start -> propose                    the forward policy proposes step t (sees the notice once)
 *   propose -> execute                  the environment executes it; DONE/FAIL/budget end the episode
 *   execute -> detect                   error-step detector, unless frozen or the retry cap is spent
 *   detect -> propose                   nothing wrong (or detector failed / frozen): next step
 *   detect -> select                    confident error at E: choose the recovery step R
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
import { detect } from "./nodes/detect.ts";
import { evaluate } from "./nodes/evaluate.ts";
import { execute } from "./nodes/execute.ts";
import { propose } from "./nodes/propose.ts";
import { recover } from "./nodes/recover.ts";
import { restoreContext } from "./nodes/restore-context.ts";
import { select } from "./nodes/select.ts";
import { start } from "./nodes/start.ts";
import { RecoveryGraphState, type GraphState } from "./state.ts";

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

const stopped = (s: GraphState) => s.stopReason !== null;

/**
 * Build and compile the recovery graph. Invoke it with `{ task }`; the final state's `result` is the
 * EpisodeResult. Embeddable as a node of a user's own graph.
 */
export function createRecoveryGraph(args: CreateRecoveryGraphArgs) {
  const options = resolveRecoveryOptions(args.options);
  const ctx = createRuntimeContext({ components: args.components, options, events: args.events, signal: args.signal, knobs: args.knobs });
  return new StateGraph(RecoveryGraphState)
    .addNode("start", (s: GraphState) => start(s, ctx))
    .addNode("propose", (s: GraphState) => propose(s, ctx))
    .addNode("execute", (s: GraphState) => execute(s, ctx))
    .addNode("detect", (s: GraphState) => detect(s, ctx))
    .addNode("select", (s: GraphState) => select(s, ctx))
    .addNode("recover", (s: GraphState) => recover(s, ctx))
    .addNode("restoreContext", (s: GraphState) => restoreContext(s, ctx))
    .addNode("evaluate", (s: GraphState) => evaluate(s, ctx))
    .addEdge(START, "start")
    .addConditionalEdges("start", (s: GraphState) => (stopped(s) ? "evaluate" : "propose"), ["propose", "evaluate"])
    .addConditionalEdges("propose", (s: GraphState) => (stopped(s) ? "evaluate" : "execute"), ["execute", "evaluate"])
    .addConditionalEdges("execute", (s: GraphState) => (stopped(s) ? "evaluate" : "detect"), ["detect", "evaluate"])
    .addConditionalEdges("detect", (s: GraphState) => (s.pending ? "select" : "propose"), ["select", "propose"])
    .addEdge("select", "recover")
    .addConditionalEdges("recover", (s: GraphState) => (stopped(s) ? "evaluate" : "restoreContext"), ["restoreContext", "evaluate"])
    .addEdge("restoreContext", "propose")
    .addEdge("evaluate", END)
    .compile({ checkpointer: args.checkpointer, name: "retrace" });
}

/** A recursion limit that an episode within its budgets can never hit. */
export function recursionLimitFor(options: RecoveryOptions): number {
  return options.maxForwardSteps * 3 + options.maxRecoveryIterations * 4 + 16;
}
