/**
 * SimDesk + simulated-policy wiring for the recovery evaluation: the environment, the policy
 * factories for dataset construction, the recovery variants under test, a simulated summarizer
 * for the "contextualized" context, and the ground-truth probe (full state, hidden parts
 * included, semantically equal to the target) used to measure the oracle's agreement.
 * Everything produced here is labelled simulated.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { formatAction } from "@retrace-cua/core/action";
import { BlobStore, type BlobReader, type BlobRef } from "@retrace-cua/core/blob-store";
import type { Summarizer } from "@retrace-cua/core/recovery";
import type { Task } from "@retrace-cua/core/task";
import type { DatasetBuildOptions } from "@retrace-cua/evaluation/dataset/build";
import type { RecoverySample } from "@retrace-cua/evaluation/dataset/types";
import type { RecoveryEvalOptions, RecoveryVariant } from "@retrace-cua/evaluation/eval/run";
import { createSimDesk, type SimDesk } from "@retrace-cua/simdesk/simdesk";
import type { SimDeskTask } from "@retrace-cua/core/ground-truth";
import {
  createSimForwardPolicy,
  createSimPerturbationPolicy,
  createSimRecoveryPolicy,
  describeSimulated,
  SIM_PROFILES,
  type SimForwardProfileName,
} from "@retrace-cua/simdesk/agents/index";

/** SimDesk settings shared by the dataset build and the evaluation. */
export interface SimDeskEvalEnv {
  /** Screen size. @default 1280x800 */
  width?: number;
  height?: number;
  /** Seeded pop-ups and a ticking clock. @default off */
  noise?: boolean;
  /** Seed of the noise. @default 0 */
  noiseSeed?: number;
}

/** A SimDesk writing screenshots into `blobs` and state snapshots into `stateDir`. */
export function createEvalSimDesk(blobs: BlobStore, stateDir: string, env: SimDeskEvalEnv = {}): SimDesk {
  return createSimDesk({
    blobs,
    stateStore: new BlobStore({ dir: stateDir, extension: ".json" }),
    width: env.width,
    height: env.height,
    noise: env.noise ? { seed: env.noiseSeed ?? 0, popups: true, clock: true } : undefined,
  });
}

/** Policy factories for `buildRecoveryDataset`: the simulated forward policy and perturber. */
export function simulatedDatasetPolicies(
  desk: SimDesk,
  seed: number,
  forward: SimForwardProfileName = "default",
): Pick<DatasetBuildOptions, "forwardPolicy" | "perturbationPolicy"> & { label: string } {
  const profile = SIM_PROFILES.forward[forward];
  const label = describeSimulated(
    createSimForwardPolicy({ task: placeholderTask(), seed, ...profile }),
    createSimPerturbationPolicy({ groundTruth: desk, seed }),
  );
  return {
    label,
    forwardPolicy: ({ task, rollout }) =>
      createSimForwardPolicy({ task: task as SimDeskTask, seed: `${seed}/${rollout}`, ...profile }),
    perturbationPolicy: ({ rollout, targetStep, distance }) =>
      createSimPerturbationPolicy({ groundTruth: desk, seed: `${seed}/${rollout}/${targetStep}/${distance}` }),
  };
}

function placeholderTask(): SimDeskTask {
  return {
    id: "label",
    instruction: "",
    env: "simdesk",
    setup: {},
    evaluator: { checks: [] },
    plan: [],
    mistakes: [],
    horizon: "short",
  };
}

/**
 * A simulated summarizer for the "contextualized" context: lists the instruction and the actions
 * that led to the target. Deterministic, no model.
 */
export const simSummarizer: Summarizer & { simulated: true } = {
  name: "sim-summarizer",
  simulated: true,
  async summarize({ task, history, target }) {
    const steps = history.map((h) => `${h.step}: ${h.actions.map(formatAction).join(" ")}`).join("; ");
    return {
      summary: `Task: ${task.instruction}. The target is the state after step ${target.step - 1}, reached by: ${steps || "(no actions)"}.`,
    };
  },
};

/** The recovery variants of the simulated study: implicit (forward policy, 0-E) and explicit recoverers. */
export function simulatedVariants(
  desk: SimDesk,
  seed: number,
  options: { contexts?: boolean; weak?: boolean } = {},
): RecoveryVariant[] {
  const forward = SIM_PROFILES.forward.default;
  const skilled = (sample: RecoverySample) =>
    createSimRecoveryPolicy({ groundTruth: desk, seed: `${seed}/${sample.id}`, ...SIM_PROFILES.recoverer.skilled });
  const variants: RecoveryVariant[] = [
    {
      id: "implicit/0-E",
      kind: "implicit",
      policy: ({ task, sample }) =>
        createSimForwardPolicy({ task: task as SimDeskTask, seed: `${seed}/${sample.id}`, ...forward }),
    },
    { id: "explicit-skilled/0-E", kind: "explicit", context: "0-E", recoverer: ({ sample }) => skilled(sample) },
  ];
  if (options.contexts ?? true) {
    variants.push(
      { id: "explicit-skilled/0-R", kind: "explicit", context: "0-R", recoverer: ({ sample }) => skilled(sample) },
      { id: "explicit-skilled/none", kind: "explicit", context: "none", recoverer: ({ sample }) => skilled(sample) },
      {
        id: "explicit-skilled/contextualized",
        kind: "explicit",
        context: "contextualized",
        recoverer: ({ sample }) => skilled(sample),
        summarizer: simSummarizer,
      },
    );
  }
  if (options.weak ?? true) {
    variants.push({
      id: "explicit-weak/0-E",
      kind: "explicit",
      context: "0-E",
      recoverer: ({ sample }) =>
        createSimRecoveryPolicy({ groundTruth: desk, seed: `${seed}/${sample.id}`, ...SIM_PROFILES.recoverer.weak }),
    });
  }
  return variants;
}

/** The "simulated: ..." label of the evaluation's policies. */
export function simulatedEvalLabel(desk: SimDesk, seed: number): string {
  return describeSimulated(
    createSimForwardPolicy({ task: placeholderTask(), seed, ...SIM_PROFILES.forward.default }),
    createSimRecoveryPolicy({ groundTruth: desk, seed, ...SIM_PROFILES.recoverer.skilled }),
    createSimRecoveryPolicy({ groundTruth: desk, seed, ...SIM_PROFILES.recoverer.weak }),
    simSummarizer,
  );
}

/**
 * Ground truth of a recovery on SimDesk: the recovered full state (files, Trash, settings,
 * clipboard, windows, dialogs, menus; not the pointer, noise or undo history) equals the target's.
 */
export function simDeskTruth(desk: SimDesk): NonNullable<RecoveryEvalOptions["truth"]> {
  return ({ sample }) => {
    const target = sample.target.observation.stateId;
    if (!target) return false;
    return desk.semanticHash(desk.currentStateId()) === desk.semanticHash(target);
  };
}

/** Copy the target/error state snapshots a dataset's samples need into an evaluation's state store. */
export function copySampleStates(samples: readonly RecoverySample[], fromDir: string, toDir: string): void {
  mkdirSync(toDir, { recursive: true });
  for (const s of samples) {
    for (const id of [s.target.observation.stateId, s.error.observation.stateId]) {
      if (!id) continue;
      const rel = join(id.slice(0, 2), `${id}.json`);
      const src = join(fromDir, rel);
      if (!existsSync(src) || existsSync(join(toDir, rel))) continue;
      mkdirSync(join(toDir, id.slice(0, 2)), { recursive: true });
      copyFileSync(src, join(toDir, rel));
    }
  }
}

/** Reads blobs from the first store that has them (evaluation blobs, then the dataset's). */
export function layeredBlobs(...stores: BlobReader[]): BlobReader {
  return {
    async has(ref: BlobRef) {
      for (const s of stores) if (await s.has(ref)) return true;
      return false;
    },
    async get(ref: BlobRef) {
      for (const s of stores) if (await s.has(ref)) return s.get(ref);
      return stores[stores.length - 1].get(ref);
    },
  };
}

/** Tasks by id, for `evaluateRecovery`. */
export function taskMap(tasks: Iterable<Task>): Map<string, Task> {
  return new Map([...tasks].map((t) => [t.id, t]));
}

/** A blob store that writes into its own folder and reads from a fallback folder (the dataset's) too. */
export class LayeredBlobStore extends BlobStore {
  private readonly fallback: BlobStore;
  constructor(dir: string, fallback: BlobStore) {
    super({ dir });
    this.fallback = fallback;
  }
  override path(ref: string): string {
    const own = super.path(ref);
    if (existsSync(own)) return own;
    const other = this.fallback.path(ref);
    return existsSync(other) ? other : own;
  }
  override svgzPath(ref: string): string {
    const own = super.svgzPath(ref);
    if (existsSync(own)) return own;
    const other = this.fallback.svgzPath(ref);
    return existsSync(other) ? other : own;
  }
}
