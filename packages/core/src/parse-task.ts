/**
 * The parts of a planned task every real environment kind (browser, desktop) shares: the task shape
 * with a reference plan and plausible mistakes, and one validator of its setup, evaluator and plan.
 */
import type { z } from "zod";
import { ActionSchema, type Action } from "./action.ts";
import { ConfigError } from "./errors.ts";
import type { Task } from "./task.ts";
import type { MistakeSpec } from "./ground-truth.ts";

/** A task with a reference plan and its plausible mistakes (SimDesk's MistakeSpec), for simulated policies. */
export interface PlannedTask<K extends string, S, E> extends Task<S, E> {
  env: K;
  plan: Action[];
  mistakes: MistakeSpec[];
  horizon: "short" | "medium" | "long";
}

/** The setup and evaluator schemas of one environment kind. */
export interface TaskPartSchemas<S, E> {
  setup: z.ZodType<S>;
  evaluator: z.ZodType<E>;
}

/** Validate a task's setup, evaluator and plan; throws one ConfigError naming the field (`task T: setup.url: ...`). */
export function parseTaskParts<S, E>(task: Task, schemas: TaskPartSchemas<S, E>): { setup: S; evaluator: E } {
  const setup = schemas.setup.safeParse(task.setup);
  if (!setup.success) throw fieldError(task.id, "setup", setup.error);
  const evaluator = schemas.evaluator.safeParse(task.evaluator);
  if (!evaluator.success) throw fieldError(task.id, "evaluator", evaluator.error);
  for (const [i, a] of (task.plan ?? []).entries()) {
    const ok = ActionSchema.safeParse(a);
    if (!ok.success) throw fieldError(task.id, `plan.${i}`, ok.error);
  }
  return { setup: setup.data, evaluator: evaluator.data };
}

function fieldError(taskId: string, root: string, error: z.ZodError): ConfigError {
  const issue = error.issues[0];
  const field = [root, ...issue.path.map(String)].join(".");
  return new ConfigError(`task ${taskId}: ${field}: ${issue.message}`, { field });
}
