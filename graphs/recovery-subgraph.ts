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
import { Annotation, END, GraphRecursionError, START, StateGraph } from "@langchain/langgraph";
import type { Action } from "../src/action.ts";
import type { Observation } from "../src/observation.ts";
import type { HistoryEntry } from "../src/policy.ts";
import type { RecoveryContext, RecoveryDecision } from "../src/recovery.ts";
import type { Task } from "../src/task.ts";
import type { StepRecord } from "../src/trajectory.ts";
import type { ModelUsage } from "../src/usage.ts";
import type { RuntimeContext } from "./context.ts";
import { executeRestoration } from "./nodes/execute-restoration.ts";
import { proposeRestoration } from "./nodes/propose-restoration.ts";

const last = <T>(init: () => T) => Annotation<T>({ reducer: (_a: T, b: T) => b, default: init });

/** The channels' defaults (the same values the compiled subgraph starts from). */
function initial() {
  return {
    task: { id: "", instruction: "", env: "", setup: null, evaluator: null } as Task,
    target: { step: 0, observation: { screenshot: "", width: 0, height: 0 } } as { step: number; observation: Observation },
    errorStep: 0,
    context: { kind: "none", history: [] } as RecoveryContext,
    attempt: 1,
    budget: 10,
    seqStart: 0,
    observation: null as Observation | null,
    tick: 0,
    recoveryHistory: [] as HistoryEntry[],
    decision: null as RecoveryDecision | null,
    rejectedClaims: 0,
    records: [] as StepRecord[],
    executed: [] as Action[],
    usage: [] as ModelUsage[],
    envMs: 0,
    policyFailures: 0,
    done: false,
    restored: false,
    reason: "",
    envError: null as string | null,
  };
}
type Init = ReturnType<typeof initial>;
const init = <K extends keyof Init>(k: K) => last<Init[K]>(() => initial()[k]);

export const RecoverySubgraphState = Annotation.Root({
  task: init("task"),
  target: init("target"),
  errorStep: init("errorStep"),
  context: init("context"),
  attempt: init("attempt"),
  budget: init("budget"),
  /** Seq number the first recovery step gets in the episode record. */
  seqStart: init("seqStart"),
  observation: init("observation"),
  tick: init("tick"),
  recoveryHistory: init("recoveryHistory"),
  decision: init("decision"),
  /** Action-less restored claims the verifier rejected; each costs one budget step. */
  rejectedClaims: init("rejectedClaims"),
  records: init("records"),
  executed: init("executed"),
  usage: init("usage"),
  envMs: init("envMs"),
  policyFailures: init("policyFailures"),
  done: init("done"),
  restored: init("restored"),
  reason: init("reason"),
  envError: init("envError"),
});

export type SubgraphState = typeof RecoverySubgraphState.State;
export type SubgraphUpdate = typeof RecoverySubgraphState.Update;

/** Build and compile the recovery sub-agent graph over a runtime context. */
export function createRecoverySubgraph(ctx: RuntimeContext) {
  return new StateGraph(RecoverySubgraphState)
    .addNode("proposeRestoration", (s: SubgraphState) => proposeRestoration(s, ctx))
    .addNode("executeRestoration", (s: SubgraphState) => executeRestoration(s, ctx))
    .addEdge(START, "proposeRestoration")
    .addConditionalEdges("proposeRestoration", (s: SubgraphState) => (s.done ? END : "executeRestoration"), ["executeRestoration", END])
    .addConditionalEdges("executeRestoration", (s: SubgraphState) => (s.done ? END : "proposeRestoration"), ["proposeRestoration", END])
    .compile({ checkpointer: false, name: "recover" });
}

/**
 * Run the sub-agent on `input`. As the compiled subgraph when each forward step gets its own
 * superstep (`ctx.stepsPerSuperstep` 1: durable runs); in batch episodes the same two nodes run in
 * the same order on the same state in a plain loop, since the subgraph keeps no checkpoints and
 * LangGraph's per-superstep bookkeeping would be all it added. The recursion limit holds in both.
 */
export async function runRecoverySubgraph(ctx: RuntimeContext, input: SubgraphUpdate, recursionLimit: number): Promise<SubgraphState> {
  if (ctx.stepsPerSuperstep <= 1) return (await createRecoverySubgraph(ctx).invoke(input, { recursionLimit })) as SubgraphState;
  let state = withUpdate(initial() as SubgraphState, input);
  for (let n = 0; ; n++) {
    if (n >= recursionLimit) throw new GraphRecursionError(`Recursion limit of ${recursionLimit} reached in the recovery sub-agent without hitting a stop condition.`);
    state = withUpdate(state, n % 2 === 0 ? await proposeRestoration(state, ctx) : await executeRestoration(state, ctx));
    if (state.done) return state;
  }
}

/** Last-value channels: each defined field of the update replaces the state's. */
function withUpdate(state: SubgraphState, u: SubgraphUpdate): SubgraphState {
  const next: Record<string, unknown> = { ...state };
  for (const [k, v] of Object.entries(u)) if (v !== undefined) next[k] = v;
  return next as SubgraphState;
}
