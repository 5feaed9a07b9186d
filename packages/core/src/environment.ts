/**
 * The environment contract. A policy proposes actions; the environment executes them.
 * Optional capabilities are declared in `capabilities`, never assumed.
 */
import type { Action } from "./action.ts";
import type { Observation } from "./observation.ts";
import type { ProbeReport } from "./probes/report.ts";
import type { Evaluation, Task } from "./task.ts";

/** What an environment can do beyond the basics. */
export interface EnvironmentCapabilities {
  /** `reset(task)` returns to the task's initial state (needed by `replay` restoration and R=0). */
  reset: boolean;
  /** `snapshot()`/`restore()` exist: environment-native restore, an oracle upper bound. */
  snapshot: boolean;
  /** `stateHash()`/`visibleHash()` exist and the environment can tell ground truth (simulators). */
  groundTruth: boolean;
  /** Observations carry an accessibility tree. */
  accessibility: boolean;
  /** `probe()` exists: read-only state probes (files, focus, accessibility digests, hidden state). */
  probes?: boolean;
}

/** Result of executing one action. */
export interface StepOutcome {
  observation: Observation;
  /** Environment-side facts about the step, e.g. `{ noop: true }` when a click hit nothing. */
  info: Record<string, unknown>;
}

/** A desktop an agent acts on. */
export interface Environment {
  /** Environment kind, e.g. "simdesk", "x11", "docker". */
  readonly kind: string;
  readonly capabilities: EnvironmentCapabilities;
  /** Start (or restart) the task from its initial state and return the first observation. */
  reset(task: Task): Promise<Observation>;
  /** Execute one action; an action that hits nothing is a no-op, not an error. */
  step(action: Action): Promise<StepOutcome>;
  /** Take a fresh observation without acting. */
  observe(): Promise<Observation>;
  /**
   * Run the current task's evaluator against the current state. `end.terminal` is the agent's
   * closing DONE/FAIL (terminal actions are never sent to `step`), for evaluators that score it,
   * such as OSWorld's `infeasible` (success = the agent answered FAIL).
   */
  evaluate(end?: { terminal?: "DONE" | "FAIL" | null }): Promise<Evaluation>;
  /** Release every resource (processes, containers). Safe to call twice. */
  close(): Promise<void>;
  /** Capture the full state (only when `capabilities.snapshot`). */
  snapshot?(): Promise<EnvironmentSnapshot>;
  /** Restore a captured state and return the observation (only when `capabilities.snapshot`). */
  restore?(snapshot: EnvironmentSnapshot): Promise<Observation>;
  /** Hash of the full state, hidden parts included (only when `capabilities.groundTruth`). */
  stateHash?(): string;
  /** Hash of what is on screen (only when `capabilities.groundTruth`). */
  visibleHash?(): string;
  /** Read-only state probes, without acting (only when `capabilities.probes`); see packages/core/src/probes/report.ts. */
  probe?(): Promise<ProbeReport>;
  /**
   * Called before an interrupted episode continues from its checkpoint (possibly on another
   * machine), with the checkpointed graph state as JSON: an environment fetches what it will read
   * synchronously later (SimDesk: the state snapshots the checkpoint names, from a shared store).
   */
  prepareResume?(state: unknown): Promise<void>;
}

/** An opaque, JSON-serialisable environment snapshot. */
export interface EnvironmentSnapshot {
  kind: string;
  data: unknown;
}

/** Creates fresh environment instances; each parallel worker gets its own. */
export type EnvironmentFactory = () => Promise<Environment>;
