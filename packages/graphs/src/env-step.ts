/**
 * Executing actions in the environment on behalf of any node (forward, recovery, replay):
 * terminal actions are not sent, the settle wait is applied, environment failures become data.
 */
import { isTerminal, type Action } from "@retrace-cua/core/action";
import type { BlobStore } from "@retrace-cua/core/blob-store";
import type { EnvironmentSnapshot } from "@retrace-cua/core/environment";
import { describeError } from "@retrace-cua/core/errors";
import type { Observation } from "@retrace-cua/core/observation";
import type { HistoryEntry, PolicyDecision } from "@retrace-cua/core/policy";
import { settleAfterStep } from "@retrace-cua/core/settle";
import type { StepRecord, StepRole } from "@retrace-cua/core/trajectory";
import type { RuntimeContext } from "./context.ts";

/** The outcome of executing one step's actions. */
export interface ExecutedStep {
  observation: Observation;
  info: Record<string, unknown>;
  /** Actions actually sent to the environment (terminal ones excluded). */
  executed: Action[];
  /** The first DONE/FAIL in the step, if any (actions after it are dropped). */
  terminal: "DONE" | "FAIL" | null;
  envMs: number;
  /** Set when the environment threw. */
  envError?: string;
}

/** Execute a step's actions in order, stopping at the first terminal action. */
export async function executeActions(
  ctx: RuntimeContext,
  actions: readonly Action[],
  current: Observation,
): Promise<ExecutedStep> {
  const { env } = ctx.components;
  const started = performance.now();
  const executed: Action[] = [];
  let observation = current;
  let info: Record<string, unknown> = {};
  let terminal: ExecutedStep["terminal"] = null;
  try {
    for (const action of actions) {
      if (isTerminal(action)) {
        terminal = action.type as "DONE" | "FAIL";
        break;
      }
      const outcome = await env.step(action);
      executed.push(action);
      observation = outcome.observation;
      info = { ...info, ...outcome.info };
    }
    observation = await settleAfterStep(env, executed.length, ctx.options.settleMs, observation);
  } catch (err) {
    return { observation, info, executed, terminal, envMs: performance.now() - started, envError: describeError(err) };
  }
  return { observation, info, executed, terminal, envMs: performance.now() - started };
}

/** The environment's ground-truth state hash, when it has one. */
export function currentStateHash(ctx: RuntimeContext): string | null {
  const { env } = ctx.components;
  return env.capabilities.groundTruth && env.stateHash ? env.stateHash() : null;
}

const snapshotStores = new Map<string, BlobStore>();

/**
 * Content-addressed JSON store for environment snapshots, in `<blobs.dir>/snapshots` (shared when the blob store is).
 */
export function snapshotStore(blobs: BlobStore): BlobStore {
  let store = snapshotStores.get(blobs.dir);
  if (!store) {
    store = blobs.child("snapshots", ".json");
    snapshotStores.set(blobs.dir, store);
  }
  return store;
}

/** Snapshot the environment into the snapshot store and return the reference (snapshot restoration only). */
export async function captureSnapshot(ctx: RuntimeContext): Promise<string | null> {
  const { env, blobs } = ctx.components;
  if (ctx.options.restoration !== "snapshot" || !env.snapshot || !ctx.components.detector) return null;
  const snap = await env.snapshot();
  return snapshotStore(blobs).put(Buffer.from(JSON.stringify(snap)));
}

/** Read a snapshot written by {@link captureSnapshot}. */
export async function loadSnapshot(blobs: BlobStore, ref: string): Promise<EnvironmentSnapshot> {
  return JSON.parse((await snapshotStore(blobs).get(ref)).toString("utf8")) as EnvironmentSnapshot;
}

/** Where a step lands in the episode record. */
export interface StepPlace {
  seq: number;
  role: StepRole;
  /** Index in its history (forward steps: t; recovery steps: k within the attempt). */
  step: number;
  /** Recovery attempt (left out of the record when undefined). */
  attempt?: number;
  /** Added to the environment's step info (e.g. `{ restoredClaim: true }`). */
  info?: Record<string, unknown>;
}

/** One proposed step taken: the environment's outcome, its record and its history entry. */
export interface TakenStep {
  run: ExecutedStep;
  record: StepRecord;
  entry: HistoryEntry;
}

/**
 * Execute a policy's proposed step from `before` and build what every execute node records: the
 * step record (screens, states, probe, info, timing) and the history entry the policy sees next.
 */
export async function takeStep(
  ctx: RuntimeContext,
  decision: PolicyDecision,
  before: Observation,
  place: StepPlace,
): Promise<TakenStep> {
  const run = await executeActions(ctx, decision.actions, before);
  const info = { ...run.info, ...place.info };
  const record: StepRecord = {
    seq: place.seq,
    role: place.role,
    step: place.step,
    ...(place.attempt !== undefined ? { attempt: place.attempt } : {}),
    actions: decision.actions,
    ...(decision.response !== undefined ? { response: decision.response } : {}),
    ...(decision.failure ? { failure: decision.failure } : {}),
    before: before.screenshot,
    after: run.observation.screenshot,
    ...(before.stateId ? { beforeState: before.stateId } : {}),
    ...(run.observation.stateId ? { afterState: run.observation.stateId } : {}),
    ...(run.observation.probe ? { probe: run.observation.probe } : {}),
    ...(Object.keys(info).length ? { info } : {}),
    envMs: run.envMs,
  };
  const entry: HistoryEntry = {
    step: place.step,
    observation: before,
    actions: decision.actions,
    ...(decision.response !== undefined ? { response: decision.response } : {}),
    ...(decision.memo !== undefined ? { memo: decision.memo } : {}),
  };
  return { run, record, entry };
}
