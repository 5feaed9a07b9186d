/**
 * The recovery subgraph's state channels, in their own file so the subgraph builder and its two
 * nodes (propose-restoration, execute-restoration) all import them without a cycle.
 */
import { Annotation } from "@langchain/langgraph";
import type { Action } from "@retrace-cua/core/action";
import type { Observation } from "@retrace-cua/core/observation";
import type { RestorationConfirmation } from "@retrace-cua/core/runtime/confirm";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import type { RecoveryContext, RecoveryDecision } from "@retrace-cua/core/recovery";
import type { Task } from "@retrace-cua/core/task";
import type { StepRecord } from "@retrace-cua/core/trajectory";
import type { ModelUsage } from "@retrace-cua/core/usage";

const last = <T>(init: () => T) => Annotation<T>({ reducer: (_a: T, b: T) => b, default: init });

/** The channels' defaults (the same values the compiled subgraph starts from). */
export function initialSubgraphState() {
  return {
    task: { id: "", instruction: "", env: "", setup: null, evaluator: null } as Task,
    target: { step: 0, observation: { screenshot: "", width: 0, height: 0 } } as {
      step: number;
      observation: Observation;
    },
    errorStep: 0,
    context: { kind: "none", history: [] } as RecoveryContext,
    attempt: 1,
    recoveryBudget: 10,
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
    confirmation: "refused" as RestorationConfirmation,
    reason: "",
    envError: null as string | null,
  };
}
type Init = ReturnType<typeof initialSubgraphState>;
const init = <K extends keyof Init>(k: K) => last<Init[K]>(() => initialSubgraphState()[k]);

/** The recovery subgraph's channels: each keeps the last value written. */
export const RecoverySubgraphState = Annotation.Root({
  task: init("task"),
  target: init("target"),
  errorStep: init("errorStep"),
  context: init("context"),
  attempt: init("attempt"),
  /** Recovery steps per attempt (the options' `recoveryBudget`). */
  recoveryBudget: init("recoveryBudget"),
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
  /** How the attempt's end was confirmed (packages/core/src/runtime/confirm.ts). */
  confirmation: init("confirmation"),
  reason: init("reason"),
  envError: init("envError"),
});

/** One snapshot of the recovery subgraph state. */
export type SubgraphState = typeof RecoverySubgraphState.State;
/** A partial update a recovery subgraph node returns. */
export type SubgraphUpdate = typeof RecoverySubgraphState.Update;
