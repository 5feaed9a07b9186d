/**
 * Action replay: bring an environment to a past state by resetting the task and re-executing the
 * recorded actions, confirming checkpoints along the way, with retries. This is how recovery
 * evaluation reconstructs target and error states (paper Section 5.2), and how R_TC replays the
 * rest of a ground-truth trajectory.
 */
import type { Action } from "@retrace-cua/core/action";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { describeError } from "@retrace-cua/core/errors";
import type { Observation } from "@retrace-cua/core/observation";
import type { Task } from "@retrace-cua/core/task";
import { settleAfterStep } from "@retrace-cua/core/settle";
import {
  createStateCheck,
  type ExpectedState,
  type StateCheck,
  type StateCheckResult,
} from "@retrace-cua/core/replay/state-check";

/** One step to replay: its actions, and optionally the state expected after it. */
export interface ReplayStep {
  actions: readonly Action[];
  /** When set, the state after this step is checked against it. */
  expect?: ExpectedState;
}

/** Options of {@link replayFromReset}. */
export interface ReplayOptions {
  env: Environment;
  task: Task;
  steps: readonly ReplayStep[];
  blobs: BlobReader;
  /** How checkpoints are compared. @default createStateCheck() (state hash, else SSIM >= 0.99) */
  check?: StateCheck;
  /** Expected state right after the reset (step 0), checked when set. */
  expectInitial?: ExpectedState;
  /** Reset-and-replay attempts before giving up. @default 3 */
  attempts?: number;
  /** Wait after each replayed step before observing (the post-action settle window, packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
  signal?: AbortSignal;
}

/** A checkpoint's outcome. */
export interface CheckpointResult extends StateCheckResult {
  /** Number of steps executed before the check (0 = right after reset). */
  afterSteps: number;
}

/** Outcome of a replay. */
export interface ReplayResult {
  /** Every step executed and every checkpoint matched in the last attempt. */
  ok: boolean;
  attempts: number;
  /** Observations o_0..o_n of the last attempt (o_0 from reset). */
  observations: Observation[];
  /** Checkpoint outcomes of the last attempt. */
  checkpoints: CheckpointResult[];
  /** The first failed checkpoint of the last attempt. */
  failedAt?: CheckpointResult;
  /** Set when the environment threw in the last attempt. */
  envError?: string;
}

/** Reset the task and replay `steps`, checking checkpoints; retry from reset on a mismatch or crash. */
export async function replayFromReset(options: ReplayOptions): Promise<ReplayResult> {
  const max = Math.max(1, options.attempts ?? 3);
  const check = options.check ?? createStateCheck();
  let last: ReplayResult | undefined;
  for (let attempt = 1; attempt <= max; attempt++) {
    options.signal?.throwIfAborted();
    last = { ...(await replayOnce(options, check)), attempts: attempt };
    if (last.ok) return last;
  }
  return last!;
}

async function replayOnce(options: ReplayOptions, check: StateCheck): Promise<Omit<ReplayResult, "attempts">> {
  const { env, task, steps, blobs, signal, settleMs } = options;
  const observations: Observation[] = [];
  const checkpoints: CheckpointResult[] = [];
  const verify = async (
    current: Observation,
    expected: ExpectedState,
    afterSteps: number,
  ): Promise<CheckpointResult> => {
    const r = { ...(await check({ env, current, expected, blobs, signal })), afterSteps };
    checkpoints.push(r);
    return r;
  };
  try {
    let obs = await env.reset(task);
    observations.push(obs);
    if (options.expectInitial) {
      const r = await verify(obs, options.expectInitial, 0);
      if (r.verdict !== "match") return { ok: false, observations, checkpoints, failedAt: r };
    }
    for (let i = 0; i < steps.length; i++) {
      obs = await executeStep(env, steps[i].actions, obs, { settleMs, signal });
      observations.push(obs);
      const expected = steps[i].expect;
      if (expected) {
        const r = await verify(obs, expected, i + 1);
        if (r.verdict !== "match") return { ok: false, observations, checkpoints, failedAt: r };
      }
    }
    return { ok: true, observations, checkpoints };
  } catch (err) {
    signal?.throwIfAborted();
    return { ok: false, observations, checkpoints, envError: describeError(err) };
  }
}

/** How {@link executeStep} runs a step. */
export interface ExecuteStepOptions {
  /** Wait after the step's executed actions, then observe (packages/core/src/settle.ts). @default 0 */
  settleMs?: number;
  signal?: AbortSignal;
}

/**
 * Execute one step's actions in order from the current state and return the observation after
 * the last one (`current` when there are none), after the settle wait. Terminal actions
 * (DONE/FAIL) are skipped: in a replay they only mark the end of the recorded episode.
 */
export async function executeStep(
  env: Environment,
  actions: readonly Action[],
  current: Observation,
  options: ExecuteStepOptions = {},
): Promise<Observation> {
  let obs = current;
  let executed = 0;
  for (const action of actions) {
    if (action.type === "DONE" || action.type === "FAIL") continue;
    obs = (await env.step(action)).observation;
    executed++;
  }
  return settleAfterStep(env, executed, options.settleMs, obs, options.signal);
}

/** Execute several steps from the current state; returns the observations after each step. */
export async function executeSteps(
  env: Environment,
  steps: readonly (readonly Action[])[],
  current: Observation,
  options: ExecuteStepOptions = {},
): Promise<Observation[]> {
  const out: Observation[] = [];
  let obs = current;
  for (const actions of steps) {
    obs = await executeStep(env, actions, obs, options);
    out.push(obs);
  }
  return out;
}
