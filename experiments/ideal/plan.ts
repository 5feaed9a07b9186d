/**
 * The frozen run plan of the ideal-recovery experiment (Appendix B.1, "Fixed annotations"): for
 * every failed forward run, the error step E is annotated once by the detector, the LLM recovery
 * step once by the selector, and E-random drawn once with a fixed seed. Every strategy is then
 * evaluated against the same annotation; a resumed run reads the plan back instead of re-annotating.
 */
import { readJsonFile } from "@retrace-cua/core/store/read-file";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import type { ErrorDetector } from "@retrace-cua/core/detector";
import type { Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry } from "@retrace-cua/core/policy";
import { createRng } from "@retrace-cua/core/rng";
import { atCallSite } from "@retrace-cua/core/runtime/call-site";
import type { RecoveryStepSelector, RecoveryStepStrategy } from "@retrace-cua/core/selector";
import type { Task } from "@retrace-cua/core/task";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import { writeTextAtomic } from "@retrace-cua/core/store/write-file";
import { ConfigError } from "@retrace-cua/core/errors";

/** One failed forward run and its frozen annotations. */
export interface PlanInstance {
  task: string;
  seed: number;
  /** Key of the forward run in results.jsonl. */
  forwardKey: string;
  /** The error step E the detector blamed. */
  errorStep: number;
  detectorReason: string;
  /** True when the detector gave no error step (it saw none, or it failed) and E fell back to the last step. */
  fallback: boolean;
  /**
   * Set when the detector itself failed (timeout, junk reply): E fell back to the last step for that reason, not
   * because it judged the run on track.
   */
  detectorFailure?: string;
  /** Set when the selector failed: R=LLM is the selector's fail-safe E-1, not its choice. */
  selectorFailure?: string;
  /** Recovery step R per strategy. */
  recoveryStep: Partial<Record<RecoveryStepStrategy, number>>;
  selectorReason?: string;
  /** The saved forward history (observations by reference, policy memos kept). */
  history: HistoryEntry[];
  final: Observation;
}

export interface RunPlan {
  experiment: string;
  simulated: boolean;
  /** Condition ids of the strategies in this run (the "llm" strategy is named after the selector actually used). */
  labels?: Partial<Record<RecoveryStepStrategy, string>>;
  instances: PlanInstance[];
}

/** Short labels of the strategies, as the paper writes them (used as condition ids). */
export const STRATEGY_LABELS: Record<RecoveryStepStrategy, string> = {
  zero: "R=0",
  "error-minus-1": "R=E-1",
  "error-random": "R=E-random",
  llm: "R=LLM",
};

/**
 * The condition id of the "llm" strategy for the selector actually used: `R=LLM` only for a
 * model-backed selector; a simulated one is named for what it is, `R=selector(sim, acc 0.8)`.
 */
export function selectorConditionLabel(selector: RecoveryStepSelector | undefined): string {
  const sim = selector as (RecoveryStepSelector & { simulated?: boolean; accuracy?: number }) | undefined;
  if (!sim?.simulated) return STRATEGY_LABELS.llm;
  return typeof sim.accuracy === "number" ? `R=selector(sim, acc ${sim.accuracy})` : "R=selector(sim)";
}

/** Condition ids of a run's strategies: the paper's labels, with the "llm" one from the plan. */
export function strategyLabels(plan: Pick<RunPlan, "labels"> | undefined): Record<RecoveryStepStrategy, string> {
  return { ...STRATEGY_LABELS, ...(plan?.labels ?? {}) };
}

/** Annotate one failed run. */
export async function annotate(input: {
  task: Task;
  seed: number;
  forwardKey: string;
  history: HistoryEntry[];
  final: Observation;
  detector: ErrorDetector;
  selector?: RecoveryStepSelector;
  strategies: readonly RecoveryStepStrategy[];
  blobs: BlobStore;
}): Promise<PlanInstance> {
  const { task, history } = input;
  const spec = { id: task.id, instruction: task.instruction };
  const T = history.length;
  // The annotation judges the run's last step (seq T-1 of the forward rollout): its calls are shown there.
  const judged = Math.max(0, T - 1);
  const detection = await atCallSite({ seq: judged, phase: "detector" }, () =>
    input.detector.detect({ task: spec, history, observation: input.final, step: T, tick: T, blobs: input.blobs }),
  );
  const found = detection.isError && detection.errorStep !== null;
  const E = Math.max(0, Math.min(T - 1, found ? (detection.errorStep as number) : T - 1));
  const recoveryStep: PlanInstance["recoveryStep"] = {};
  let selectorReason: string | undefined;
  let selectorFailure: string | undefined;
  for (const s of input.strategies) {
    if (s === "zero") recoveryStep.zero = 0;
    else if (s === "error-minus-1") recoveryStep["error-minus-1"] = Math.max(0, E - 1);
    else if (s === "error-random")
      recoveryStep["error-random"] = E <= 0 ? 0 : createRng(input.seed, task.id, "e-random").int(0, E - 1);
    else if (s === "llm") {
      if (!input.selector) throw new ConfigError("annotate: the llm strategy needs a selector");
      const sel = await atCallSite({ seq: judged, phase: "selector" }, () =>
        input.selector!.select({
          task: spec,
          history,
          errorStep: E,
          detection,
          instanceKey: `${task.id}/${input.seed}`,
          seed: input.seed,
          blobs: input.blobs,
        }),
      );
      recoveryStep.llm = Math.max(0, Math.min(E, sel.step));
      selectorReason = sel.reason;
      if (sel.failure) selectorFailure = sel.failure;
    }
  }
  return {
    task: task.id,
    seed: input.seed,
    forwardKey: input.forwardKey,
    errorStep: E,
    detectorReason: found
      ? detection.reason
      : detection.failure
        ? `detector failed (${detection.failure}); E = last step`
        : `detector saw no error (${detection.reason}); E = last step`,
    fallback: !found,
    ...(detection.failure ? { detectorFailure: detection.failure } : {}),
    recoveryStep,
    ...(selectorReason !== undefined ? { selectorReason } : {}),
    ...(selectorFailure ? { selectorFailure } : {}),
    history,
    final: input.final,
  };
}

export function readPlan(file: string): RunPlan | undefined {
  return existsSync(file)
    ? readJsonFile<RunPlan>(file, {
        what: "plan.json",
        hint: "it should be the plan.json written by `retrace run`; delete it to annotate the failed runs again",
      })
    : undefined;
}

/**
 * Write plan.json: one line per instance (their histories carry whole observations; indenting them tripled the file).
 */
export function writePlan(file: string, plan: RunPlan): void {
  const { instances, ...head } = plan;
  const body = instances.map((i) => JSON.stringify(i)).join(",\n");
  writeTextAtomic(file, `${JSON.stringify(head).slice(0, -1)},"instances":[\n${body}\n]}\n`);
}
