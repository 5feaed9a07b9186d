/**
 * Executing actions in the environment on behalf of any node (forward, recovery, replay):
 * terminal actions are not sent, the settle wait is applied, environment failures become data.
 */
import { isTerminal, type Action } from "../src/action.ts";
import type { BlobStore } from "../src/blob-store.ts";
import type { EnvironmentSnapshot } from "../src/environment.ts";
import { describeError } from "../src/errors.ts";
import type { Observation } from "../src/observation.ts";
import { settleAfterStep } from "../src/settle.ts";
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
export async function executeActions(ctx: RuntimeContext, actions: readonly Action[], current: Observation): Promise<ExecutedStep> {
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

/** Content-addressed JSON store for environment snapshots, in `<blobs.dir>/snapshots` (shared when the blob store is). */
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
