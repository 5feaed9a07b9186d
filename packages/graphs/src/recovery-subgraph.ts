/**
 * The recovery sub-agent as its own LangGraph: propose a restorative step, execute it, repeat until
 * the sub-agent declares the target restored (confirmed by the verifier when one is given), gives
 * up, or spends its step budget. The budget is its own, separate from the forward budget.
 *
 *   START -> proposeRestoration -> executeRestoration -> (done ? END : proposeRestoration)
 *
 * It is compiled without a checkpointer: a recovery attempt is atomic from the parent graph's
 * point of view, so an episode killed mid-recovery re-runs the attempt from its start on resume.
 */
import { END, GraphRecursionError, START, StateGraph } from "@langchain/langgraph";
import type { RuntimeContext } from "./context.ts";
import { executeRestoration } from "./nodes/execute-restoration.ts";
import { proposeRestoration } from "./nodes/propose-restoration.ts";
import {
  initialSubgraphState,
  RecoverySubgraphState,
  type SubgraphState,
  type SubgraphUpdate,
} from "./recovery-subgraph-state.ts";

/** Build and compile the recovery sub-agent graph over a runtime context. */
export function compileRecoverySubgraph(ctx: RuntimeContext) {
  return new StateGraph(RecoverySubgraphState)
    .addNode("proposeRestoration", (s: SubgraphState) => proposeRestoration(s, ctx))
    .addNode("executeRestoration", (s: SubgraphState) => executeRestoration(s, ctx))
    .addEdge(START, "proposeRestoration")
    .addConditionalEdges("proposeRestoration", (s: SubgraphState) => (s.done ? END : "executeRestoration"), [
      "executeRestoration",
      END,
    ])
    .addConditionalEdges("executeRestoration", (s: SubgraphState) => (s.done ? END : "proposeRestoration"), [
      "proposeRestoration",
      END,
    ])
    .compile({ checkpointer: false, name: "recover" });
}

/** A compiled recovery sub-agent graph. */
export type RecoverySubgraph = ReturnType<typeof compileRecoverySubgraph>;

/**
 * Run the sub-agent on `input`. As the compiled subgraph when each forward step gets its own
 * superstep (`ctx.stepsPerSuperstep` 1: durable runs); in batch episodes the same two nodes run in
 * the same order on the same state in a plain loop, since the subgraph keeps no checkpoints and
 * LangGraph's per-superstep bookkeeping would be all it added. The recursion limit holds in both.
 */
export async function runRecoverySubgraph(
  ctx: RuntimeContext,
  input: SubgraphUpdate,
  recursionLimit: number,
): Promise<SubgraphState> {
  if (ctx.stepsPerSuperstep <= 1)
    return (await compileRecoverySubgraph(ctx).invoke(input, { recursionLimit })) as SubgraphState;
  let state = withUpdate(initialSubgraphState() as SubgraphState, input);
  for (let n = 0; ; n++) {
    if (n >= recursionLimit)
      throw new GraphRecursionError(
        `Recursion limit of ${recursionLimit} reached in the recovery sub-agent without hitting a stop condition.`,
      );
    state = withUpdate(
      state,
      n % 2 === 0 ? await proposeRestoration(state, ctx) : await executeRestoration(state, ctx),
    );
    if (state.done) return state;
  }
}

/** Last-value channels: each defined field of the update replaces the state's. */
function withUpdate(state: SubgraphState, u: SubgraphUpdate): SubgraphState {
  const next: Record<string, unknown> = { ...state };
  for (const [k, v] of Object.entries(u)) if (v !== undefined) next[k] = v;
  return next as SubgraphState;
}
