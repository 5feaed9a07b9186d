/** Tasks: what the agent is asked to do, how its environment starts, and how success is judged. */
import type { Action } from "./action.ts";

/** The part of a task a policy may see. */
export interface TaskSpec {
  id: string;
  instruction: string;
}

/**
 * A task. `setup` and `evaluator` are environment-specific data (JSON-serialisable), read by the
 * environment that runs the task; the runtime treats them as opaque.
 */
export interface Task<TSetup = unknown, TEvaluator = unknown> extends TaskSpec {
  /** Which environment kind runs it: "simdesk", "x11", "osworld", ... */
  env: string;
  /** Apps involved, for grouping in reports. */
  apps?: string[];
  setup: TSetup;
  evaluator: TEvaluator;
  /** A reference plan that solves the task from the initial state, one action per step. */
  plan?: Action[];
  /** Free-form labels ("irreversible", "cross-app", "latent"). */
  tags?: string[];
}

/** The outcome of a task evaluator. */
export interface Evaluation {
  /** 1 = success, 0 = failure; fractional scores allowed where the evaluator gives them. */
  score: number;
  /** Why, in one line. */
  detail?: string;
}
