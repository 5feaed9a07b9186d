/**
 * A simulated error detector for real-desktop tasks, which have no ground-truth state: it knows
 * the task's reference plan and reports the first forward step whose actions leave it. Results
 * using it are labelled simulated, like every simulated component.
 */
import { ActionSchema, formatAction, type Action } from "@retrace-cua/core/action";
import type { Detection, DetectorInput, ErrorDetector } from "@retrace-cua/core/detector";
import { stableStringify } from "@retrace-cua/core/hash";
import type { Task } from "@retrace-cua/core/task";

const norm = (a: Action): string => stableStringify(ActionSchema.parse(a));

/** Options of {@link createPlanDivergenceDetector}. */
export interface PlanDivergenceDetectorOptions {
  /** The task whose `plan` defines the correct actions. */
  task: Task;
}

/** Detector that flags the first step whose actions differ from the reference plan. */
export function createPlanDivergenceDetector(options: PlanDivergenceDetectorOptions): ErrorDetector {
  const plan = (options.task.plan ?? []).map(norm);
  return {
    name: "plan-divergence(simulated)",
    simulated: true,
    async detect(input: DetectorInput): Promise<Detection> {
      let k = 0;
      for (const entry of input.history) {
        if (!entry.actions.length) continue;
        const got = entry.actions.map(norm);
        const want = plan.slice(k, k + got.length);
        if (got.length === want.length && got.every((g, i) => g === want[i])) {
          k += got.length;
          continue;
        }
        return {
          isError: true,
          errorStep: entry.step,
          reason: `step ${entry.step} did ${entry.actions.map(formatAction).join(", ")}; the plan expected ${plan[k] ? formatAction(ActionSchema.parse(JSON.parse(plan[k]))) : "nothing more"}`,
          confidence: 1,
        };
      }
      return { isError: false, errorStep: null, reason: "on plan", confidence: 1 };
    },
  };
}
