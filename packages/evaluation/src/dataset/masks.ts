/**
 * Learning the dynamic-pixel masks of R_Om while a recovery dataset is built (see
 * ../oracle/dynamic-mask.ts for what a mask is). Two sources of "the same state captured more
 * than once", both already part of dataset construction or cheap to add:
 *
 * - the N transition-consistency replays: step i of a kept trajectory was rendered once by the
 *   rollout and once per replay;
 * - re-captures of each target: after the target is reproduced, `recaptures` WAIT steps of
 *   `waitSeconds` each, one screenshot after each (the environment is snapshotted before and
 *   restored after when it can snapshot, so the perturbation starts from the reproduced target).
 *
 * Each state's mask is saved as a blob as soon as it is learned; the per-task union is kept in
 * memory (one full-resolution byte per pixel per task) and saved at the end.
 */
import type { BlobReader, BlobRef } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import type { Observation } from "@retrace-cua/core/observation";
import {
  DEFAULT_MASK_DILATION,
  learnDynamicMask,
  maskFraction,
  saveMask,
  unionMasks,
  type BlobWriter,
  type DynamicMask,
} from "../oracle/dynamic-mask.ts";
import type { RecoverySample, SampleMasks } from "./types.ts";

/** Options of mask learning during a dataset build. */
export interface DynamicMaskBuildOptions {
  /** Where mask PNGs are written (the dataset's blob store). */
  store: BlobWriter;
  /** WAIT-and-capture repetitions per target. @default 5 */
  recaptures?: number;
  /** Seconds of each WAIT. @default 1 */
  waitSeconds?: number;
  /** Dilation radius in pixels. @default 8 */
  dilate?: number;
}

/** Collects captures per state and task while the build runs, then assigns masks to samples. */
export class MaskCollector {
  private readonly states = new Map<string, { ref: BlobRef | null; fraction: number; captures: BlobRef[] }>();
  private readonly tasks = new Map<string, DynamicMask | null>();
  private readonly known = new Map<string, BlobRef[]>();
  readonly recaptures: number;
  readonly waitSeconds: number;
  private readonly dilate: number;

  constructor(
    private readonly options: DynamicMaskBuildOptions,
    private readonly blobs: BlobReader,
  ) {
    this.recaptures = Math.max(0, options.recaptures ?? 5);
    this.waitSeconds = options.waitSeconds ?? 1;
    this.dilate = options.dilate ?? DEFAULT_MASK_DILATION;
  }

  /** Learn from screenshots of one state; `key` names the state (stored once per key). */
  async addState(taskId: string, key: string | null, screenshots: readonly BlobRef[]): Promise<void> {
    if (key && this.states.has(key)) return;
    const distinct = [...new Set(screenshots)];
    const mask =
      distinct.length < 2
        ? null
        : await learnDynamicMask(await Promise.all(distinct.map((r) => this.blobs.get(r))), this.dilate);
    if (key)
      this.states.set(
        key,
        mask
          ? { ref: await saveMask(mask, this.options.store), fraction: maskFraction(mask), captures: distinct }
          : { ref: null, fraction: 0, captures: distinct },
      );
    if (mask) this.tasks.set(taskId, unionMasks([this.tasks.get(taskId), mask]));
    else if (!this.tasks.has(taskId)) this.tasks.set(taskId, null);
  }

  /**
   * Learn from a transition-consistent trajectory: `stepShots[i]` are the screenshots of the state
   * after i steps (rollout and every replay). They go into the task's union and are remembered
   * for the state mask of a later target `${keyPrefix}/t${i}`.
   */
  async addReplays(taskId: string, keyPrefix: string, stepShots: ReadonlyArray<readonly BlobRef[]>): Promise<void> {
    for (let i = 0; i < stepShots.length; i++) {
      this.known.set(`${keyPrefix}/t${i}`, [...stepShots[i]]);
      await this.addState(taskId, null, stepShots[i]);
    }
  }

  /** The mask learned for one state key (undefined: not collected). */
  stateMask(key: string): { ref: BlobRef | null; fraction: number; captures: BlobRef[] } | undefined {
    const st = this.states.get(key);
    return st && { ...st, captures: [...st.captures] };
  }

  /** Whether a state's captures were already collected. */
  has(key: string): boolean {
    return this.states.has(key);
  }

  /**
   * Re-capture the current (just reproduced) state `recaptures` times after a WAIT each and learn
   * from them plus the replays' and the rollout's (`recorded`) captures of the same state. Returns the observation to
   * continue from.
   */
  async recapture(
    env: Environment,
    taskId: string,
    key: string,
    current: Observation,
    recorded: BlobRef,
  ): Promise<Observation> {
    if (this.has(key)) return current;
    const shots = [...(this.known.get(key) ?? []), recorded, current.screenshot];
    if (this.recaptures === 0) {
      await this.addState(taskId, key, shots);
      return current;
    }
    const snap = env.capabilities.snapshot && env.snapshot && env.restore ? await env.snapshot() : undefined;
    let last = current;
    for (let i = 0; i < this.recaptures; i++) {
      last = (await env.step({ type: "WAIT", seconds: this.waitSeconds })).observation;
      shots.push(last.screenshot);
    }
    await this.addState(taskId, key, shots);
    return snap ? env.restore!(snap) : last;
  }

  /** Save the task unions and return each sample with its `masks` set. */
  async assign(samples: readonly RecoverySample[], keyOf: (s: RecoverySample) => string): Promise<RecoverySample[]> {
    const taskRefs = new Map<string, { ref: BlobRef | null; fraction: number }>();
    for (const [taskId, mask] of [...this.tasks.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      taskRefs.set(
        taskId,
        mask
          ? { ref: await saveMask(mask, this.options.store), fraction: maskFraction(mask) }
          : { ref: null, fraction: 0 },
      );
    }
    return samples.map((s) => {
      const st = this.states.get(keyOf(s)) ?? { ref: null, fraction: 0, captures: [] };
      const tk = taskRefs.get(s.taskId) ?? { ref: null, fraction: 0 };
      const masks: SampleMasks = {
        state: st.ref,
        task: tk.ref,
        stateFraction: round(st.fraction),
        taskFraction: round(tk.fraction),
        captures: st.captures,
      };
      return { ...s, masks };
    });
  }
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
