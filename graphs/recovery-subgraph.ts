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
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
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

export const RecoverySubgraphState = Annotation.Root({
  task: last<Task>(() => ({ id: "", instruction: "", env: "", setup: null, evaluator: null })),
  target: last<{ step: number; observation: Observation }>(() => ({ step: 0, observation: { screenshot: "", width: 0, height: 0 } })),
  errorStep: last<number>(() => 0),
  context: last<RecoveryContext>(() => ({ kind: "none", history: [] })),
  attempt: last<number>(() => 1),
  budget: last<number>(() => 10),
  /** Seq number the first recovery step gets in the episode record. */
  seqStart: last<number>(() => 0),
  observation: last<Observation | null>(() => null),
  tick: last<number>(() => 0),
  recoveryHistory: last<HistoryEntry[]>(() => []),
  decision: last<RecoveryDecision | null>(() => null),
  /** Action-less restored claims the verifier rejected; each costs one budget step. */
  rejectedClaims: last<number>(() => 0),
  records: last<StepRecord[]>(() => []),
  executed: last<Action[]>(() => []),
  usage: last<ModelUsage[]>(() => []),
  envMs: last<number>(() => 0),
  policyFailures: last<number>(() => 0),
  done: last<boolean>(() => false),
  restored: last<boolean>(() => false),
  reason: last<string>(() => ""),
  envError: last<string | null>(() => null),
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
