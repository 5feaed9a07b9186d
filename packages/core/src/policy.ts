/**
 * The forward policy contract: propose the next action(s) from the observation-action history.
 * The environment executes; the recovery runtime stands between the two.
 *
 * Step indexing used everywhere in retrace: forward step t takes observation o_t (state s_t)
 * and produces actions a_t. "Restore to step R" means reproduce s_R and truncate the history to
 * entries 0..R-1, so o_R is the current observation again. R = 0 is the initial state.
 */
import type { Action } from "./action.ts";
import type { BlobReader } from "./blob-store.ts";
import type { Observation } from "./observation.ts";
import type { TaskSpec } from "./task.ts";
import type { ModelUsage } from "./usage.ts";

/** JSON value a policy may attach to its own history entries. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One past step as the policy sees it: the observation it acted on and what it did. */
export interface HistoryEntry {
  /** Forward step index t of this entry. */
  step: number;
  observation: Observation;
  /** The actions executed (empty when the model output was unusable). */
  actions: Action[];
  /** The model's raw text (reasoning, code), when there is one. */
  response?: string;
  /** The policy's own note on this step, handed back to it with the history (e.g. a plan position). */
  memo?: JsonValue;
}

/** Everything a policy gets to decide one step. */
export interface PolicyInput {
  task: TaskSpec;
  /** Past steps, oldest first. After a recovery this is truncated to the recovery boundary. */
  history: readonly HistoryEntry[];
  /** The current observation o_t. */
  observation: Observation;
  /** Forward step index t. */
  step: number;
  /**
   * Steps the runtime has executed in this episode so far (forward + recovery + replay), monotone
   * across truncation and identical after a resume. Seeded simulated policies derive their draws
   * from it, so a retry from a restored state is a fresh draw, not a repeat.
   */
  tick: number;
  /** A one-off message placed before this decision, e.g. the post-restoration transition string. */
  notice?: string;
  /** Where screenshot bytes are read from. */
  blobs: BlobReader;
  signal?: AbortSignal;
}

/** Why a step produced no usable action. */
export interface PolicyFailure {
  kind: "unparseable" | "unsafe" | "empty" | "refused" | "model-error";
  message: string;
}

/** A policy's answer for one step. */
export interface PolicyDecision {
  /** Actions to execute in order (one step may hold several, as pyautogui code often does). */
  actions: Action[];
  /** Raw model text, kept in the trajectory. */
  response?: string;
  /** Stored with the history entry and handed back next time. */
  memo?: JsonValue;
  /** Set when the model's output was unusable; the step is recorded and counted, not crashed. */
  failure?: PolicyFailure;
  usage?: ModelUsage[];
}

/** A computer-use agent's decision function. */
export interface ForwardPolicy {
  readonly name: string;
  /** True for seeded simulated policies; results from them are labelled simulated. */
  readonly simulated?: boolean;
  propose(input: PolicyInput): Promise<PolicyDecision>;
}
