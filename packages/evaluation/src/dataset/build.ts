/**
 * `buildRecoveryDataset`: the paper's evaluation-set construction (Section 5.2, Appendix A.1).
 *
 * 1. On-policy rollouts of the forward policy over the tasks; keep the successful ones with
 *    exactly one action per step.
 * 2. Transition-consistent filtering: replay each kept trajectory N times from a fresh reset,
 *    keep it only when every replay succeeds.
 * 3. Sample seed steps t; replay to t and confirm the target state; let the perturbation policy
 *    act for d steps; keep the sample when nothing crashed, each perturbation step had one
 *    (meaningful, for d = 1) action, and replaying the rest of the ground truth from the error
 *    state fails the task (a genuine error, not a harmless detour).
 * 4. Drop samples whose error and target screenshots are near-identical, and duplicates.
 * Counts after every stage are returned (Table 6).
 *
 * Beyond the paper: while it runs, the build learns the dynamic-pixel masks of R_Om from the N
 * replays and a few WAIT re-captures of each target (./masks.ts); each sample carries them.
 */
import { z } from "zod";
import type { BlobReader } from "@retrace-cua/core/blob-store";
import type { Environment } from "@retrace-cua/core/environment";
import { ConfigError, describeError } from "@retrace-cua/core/errors";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import { createRng } from "@retrace-cua/core/rng";
import type { Task } from "@retrace-cua/core/task";
import { replayFromReset } from "../replay/replay.ts";
import { createStateCheck, observationSsim, type StateCheck } from "@retrace-cua/core/replay/state-check";
import { checkTransitionConsistency } from "../replay/transition-consistency.ts";
import { transitionOracle } from "../oracle/recovery-oracle.ts";
import { perturb, rolloutPolicy } from "./rollout.ts";
import { MaskCollector, type DynamicMaskBuildOptions } from "./masks.ts";
import type { BlobWriter } from "../oracle/dynamic-mask.ts";
import type {
  GroundTruthTrajectory,
  RecordedState,
  RecordedStep,
  RecoverySample,
  SampleStageCounts,
  TrajectoryStageCounts,
} from "./types.ts";

const SettingsSchema = z
  .object({
    rolloutsPerTask: z.number().int().min(1).default(1),
    maxSteps: z.number().int().min(1).default(30),
    replays: z.number().int().min(1).default(3),
    settleMs: z.number().int().min(0).default(0),
    seedStepsPerTrajectory: z.number().int().min(1).default(2),
    distances: z.array(z.number().int().min(1)).min(1).default([1, 5]),
    nearIdenticalSsim: z.number().min(0).max(1).default(0.999),
    duplicateSsim: z.number().min(0).max(1).default(0.9999),
    maxSamplesPerDistance: z.number().int().min(1).optional(),
    seed: z.number().int().default(0),
  })
  .strict();

/** The numeric settings of a build, with defaults resolved. */
export type DatasetBuildSettings = z.output<typeof SettingsSchema>;

/** Options of {@link buildRecoveryDataset}. */
export interface DatasetBuildOptions {
  env: Environment;
  blobs: BlobReader;
  tasks: readonly Task[];
  /** The policy whose on-policy trajectories are collected, one per task and rollout. */
  forwardPolicy: (ctx: { task: Task; rollout: number }) => ForwardPolicy;
  /** The perturbation policy that drifts a trajectory off track. */
  perturbationPolicy: (ctx: { task: Task; rollout: number; targetStep: number; distance: number }) => ForwardPolicy;
  /** How replayed target states are confirmed. @default createStateCheck() (state hash, else SSIM >= 0.99) */
  check?: StateCheck;
  /** Rollouts per task. @default 1 */
  rolloutsPerTask?: number;
  /** Forward step budget of a rollout. @default 30 */
  maxSteps?: number;
  /** N of transition-consistent filtering. @default 3 */
  replays?: number;
  /**
   * Wait after each executed step before observing, on every path of the build: rollouts, N-replay
   * filtering, target replays, perturbation and the genuine-error replay (packages/core/src/settle.ts); recorded
   * in the dataset manifest. The R_Om mask re-captures are WAIT actions themselves and do not settle
   * on top. @default 0
   */
  settleMs?: number;
  /** Seed steps t drawn per trajectory (without replacement). @default 2 */
  seedStepsPerTrajectory?: number;
  /** Perturbation lengths d. @default [1, 5] */
  distances?: number[];
  /** Drop a sample when SSIM(error, target) is at or above this. @default 0.999 */
  nearIdenticalSsim?: number;
  /** Two samples are duplicates when both their error and target screenshots reach this SSIM. @default 0.9999 */
  duplicateSsim?: number;
  /** Keep a seeded random subset of at most this many samples per distance. @default all */
  maxSamplesPerDistance?: number;
  /** Seed of the seed-step draws and the subset. @default 0 */
  seed?: number;
  /**
   * Learn R_Om's dynamic-pixel masks (false: don't). Without a `store`, masks are written into
   * `blobs` when it can write (a BlobStore).
   * @default { recaptures: 5, waitSeconds: 1, dilate: 8 } when `blobs` can write, else off
   */
  dynamicMasks?: Partial<DynamicMaskBuildOptions> | false;
  /** Progress callback (one line per stage event). */
  onProgress?: (message: string) => void;
  /**
   * Asked before every rollout and every seed step: a reason ends the build there (no new work
   * starts; what was built so far is kept and `stopped` says why), e.g. a spent cost budget.
   */
  stop?: () => string | undefined;
  /**
   * What the model servers declared: true once some call of the build was answered by a server
   * that declared itself a simulated stand-in (the caller's usage meter). Asked when the build
   * ends: then the result and every sample say simulated. @default () => false
   */
  declaredSimulated?: () => boolean;
  signal?: AbortSignal;
}

/** What a build produced. */
export interface DatasetBuildResult {
  settings: DatasetBuildSettings;
  trajectories: TrajectoryStageCounts;
  stages: SampleStageCounts[];
  samples: RecoverySample[];
  /** True when the forward or perturbation policy was simulated. */
  simulated: boolean;
  /** Why the build ended early (from `stop`), when it did. */
  stopped?: string;
}

/** Resolve and validate the numeric settings; a bad value throws a ConfigError naming the field. */
export function resolveBuildSettings(options: Partial<DatasetBuildSettings>): DatasetBuildSettings {
  const r = SettingsSchema.safeParse(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)));
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue.path.join(".");
  throw new ConfigError(`dataset build: "${field}" is invalid: ${issue.message}`, { field });
}

const NOT_MEANINGFUL = new Set(["WAIT", "DONE", "FAIL"]);

/** Build the recovery evaluation set. Sequential on one environment; deterministic under the seed. */
export async function buildRecoveryDataset(options: DatasetBuildOptions): Promise<DatasetBuildResult> {
  const settings = resolveBuildSettings({
    rolloutsPerTask: options.rolloutsPerTask,
    maxSteps: options.maxSteps,
    replays: options.replays,
    settleMs: options.settleMs,
    seedStepsPerTrajectory: options.seedStepsPerTrajectory,
    distances: options.distances,
    nearIdenticalSsim: options.nearIdenticalSsim,
    duplicateSsim: options.duplicateSsim,
    maxSamplesPerDistance: options.maxSamplesPerDistance,
    seed: options.seed,
  });
  const { env, blobs, signal } = options;
  const settleMs = settings.settleMs;
  const check = options.check ?? createStateCheck();
  const log = options.onProgress ?? (() => {});
  const counts: TrajectoryStageCounts = {
    rollouts: 0,
    successful: 0,
    wellFormed: 0,
    transitionConsistent: 0,
    envErrors: 0,
  };
  let simulated = false;
  const masks = maskCollector(options);
  let stopped: string | undefined;
  const shouldStop = () => (stopped ??= options.stop?.()) !== undefined;

  // Stages 1-2: rollouts, success, well-formedness, N-replay filtering.
  const kept: Array<{ task: Task; trajectory: GroundTruthTrajectory }> = [];
  for (const task of options.tasks) {
    for (let rollout = 0; rollout < settings.rolloutsPerTask; rollout++) {
      if (shouldStop()) break;
      const policy = options.forwardPolicy({ task, rollout });
      simulated ||= policy.simulated === true;
      const r = await rolloutPolicy({ env, task, policy, blobs, maxSteps: settings.maxSteps, settleMs, signal });
      counts.rollouts++;
      if (r.envError) {
        counts.envErrors++;
        log(`${task.id} rollout ${rollout}: environment failed: ${r.envError}`);
        continue;
      }
      if ((r.score ?? 0) < 1) continue;
      counts.successful++;
      if (!r.steps.every((s) => s.actions.length === 1)) continue;
      counts.wellFormed++;
      const tc = await checkTransitionConsistency({
        env,
        task,
        steps: r.steps.map((s) => s.actions),
        blobs,
        replays: settings.replays,
        settleMs,
        signal,
      });
      if (!tc.consistent) {
        log(`${task.id} rollout ${rollout}: not transition-consistent: ${tc.replays[tc.replays.length - 1].reason}`);
        continue;
      }
      counts.transitionConsistent++;
      if (masks) {
        const recorded = [...r.steps.map((s) => s.observation.screenshot), r.final!.observation.screenshot];
        await masks.addReplays(
          task.id,
          `${task.id}/r${rollout}`,
          recorded.map((shot, i) => [
            shot,
            ...tc.replays.map((p) => p.observations?.[i]?.screenshot).filter((x): x is string => !!x),
          ]),
        );
      }
      kept.push({ task, trajectory: { taskId: task.id, rollout, steps: r.steps, final: r.final!, score: r.score! } });
    }
  }
  log(
    `trajectories: ${counts.rollouts} rollouts, ${counts.successful} successful, ${counts.wellFormed} well-formed, ${counts.transitionConsistent} transition-consistent`,
  );

  // Stage 3: seed steps, target reproduction, perturbation, genuine-error check.
  const stages: SampleStageCounts[] = [];
  const samples: RecoverySample[] = [];
  for (const distance of settings.distances) {
    const c: SampleStageCounts = {
      distance,
      seedSteps: 0,
      targetReproduced: 0,
      perturbed: 0,
      perturbationWellFormed: 0,
      genuineError: 0,
      notNearIdentical: 0,
      deduplicated: 0,
      final: 0,
    };
    const candidates: RecoverySample[] = [];
    for (const { task, trajectory } of kept) {
      for (const t of drawSeedSteps(
        trajectory,
        settings.seedStepsPerTrajectory,
        createRng(settings.seed, "seed-steps", task.id, trajectory.rollout, distance),
      )) {
        if (shouldStop()) break;
        c.seedSteps++;
        const target = stateAt(trajectory, t);
        const replay = await replayFromReset({
          env,
          task,
          blobs,
          check,
          steps: trajectory.steps
            .slice(0, t)
            .map((s, i) => ({ actions: s.actions, expect: i === t - 1 ? target : undefined })),
          expectInitial: t === 0 ? target : undefined,
          settleMs,
          signal,
        });
        if (!replay.ok) {
          log(`${task.id} t=${t} d=${distance}: target not reproduced: ${replay.envError ?? replay.failedAt?.reason}`);
          continue;
        }
        c.targetReproduced++;
        let start = replay.observations[replay.observations.length - 1];
        if (masks) {
          try {
            start = await masks.recapture(
              env,
              task.id,
              `${task.id}/r${trajectory.rollout}/t${t}`,
              start,
              target.observation.screenshot,
            );
          } catch (err) {
            signal?.throwIfAborted();
            log(
              `${task.id} t=${t} d=${distance}: environment failed while re-capturing the target: ${describeError(err)}`,
            );
            continue;
          }
        }
        const policy = options.perturbationPolicy({ task, rollout: trajectory.rollout, targetStep: t, distance });
        simulated ||= policy.simulated === true;
        let perturbation: { steps: RecordedStep[]; final: RecordedState };
        try {
          perturbation = await perturb({
            env,
            task,
            policy,
            blobs,
            history: trajectory.steps.slice(0, t),
            observation: start,
            startStep: t,
            steps: distance,
            settleMs,
            signal,
          });
        } catch (err) {
          signal?.throwIfAborted();
          log(`${task.id} t=${t} d=${distance}: environment failed while perturbing: ${describeError(err)}`);
          continue;
        }
        c.perturbed++;
        if (
          !perturbation.steps.every((s) => s.actions.length === 1) ||
          (distance === 1 && NOT_MEANINGFUL.has(perturbation.steps[0].actions[0].type))
        )
          continue;
        c.perturbationWellFormed++;
        const rtc = await transitionOracle(
          env,
          perturbation.final.observation,
          trajectory.steps.slice(t).map((s) => s.actions),
          1,
          settleMs,
        );
        if (rtc.envError || rtc.pass) continue;
        c.genuineError++;
        const errorTargetSsim = await observationSsim(perturbation.final.observation, target.observation, blobs);
        candidates.push({
          id: `${task.id}/r${trajectory.rollout}/t${t}/d${distance}`,
          taskId: task.id,
          distance,
          trajectory,
          targetStep: t,
          target,
          perturbation: perturbation.steps,
          error: perturbation.final,
          errorTargetSsim,
          simulated,
        });
      }
    }
    // Stage 4: near-identical pairs, duplicates, optional subset.
    const distinct = candidates.filter((s) => s.errorTargetSsim < settings.nearIdenticalSsim);
    c.notNearIdentical = distinct.length;
    const unique = await dropDuplicates(distinct, settings.duplicateSsim, blobs);
    c.deduplicated = unique.length;
    const final =
      settings.maxSamplesPerDistance && unique.length > settings.maxSamplesPerDistance
        ? seededSubset(unique, settings.maxSamplesPerDistance, settings.seed, distance)
        : unique;
    c.final = final.length;
    samples.push(...final);
    stages.push(c);
    log(`d=${distance}: ${c.seedSteps} seed steps -> ${c.final} samples`);
  }
  if (stopped) log(`stopped early: ${stopped}`);
  simulated ||= options.declaredSimulated?.() === true;
  const withMasks = masks
    ? await masks.assign(samples, (s) => `${s.taskId}/r${s.trajectory.rollout}/t${s.targetStep}`)
    : samples;
  return {
    settings,
    trajectories: counts,
    stages,
    samples: withMasks.map((s) => ({ ...s, simulated })),
    simulated,
    ...(stopped && { stopped }),
  };
}

function maskCollector(options: DatasetBuildOptions): MaskCollector | undefined {
  if (options.dynamicMasks === false) return undefined;
  const store =
    options.dynamicMasks?.store ??
    (typeof (options.blobs as Partial<BlobWriter>).put === "function"
      ? (options.blobs as unknown as BlobWriter)
      : undefined);
  if (!store) return undefined;
  return new MaskCollector({ ...options.dynamicMasks, store }, options.blobs);
}

/** The recorded state after t steps of a trajectory (t = steps.length is the final state). */
export function stateAt(trajectory: GroundTruthTrajectory, t: number): RecordedState {
  if (t === trajectory.steps.length) return trajectory.final;
  const s = trajectory.steps[t];
  return { observation: s.observation, stateHash: s.stateHash };
}

/** Seed steps t in 1..L (L = steps before a terminal DONE/FAIL), k of them without replacement, ascending. */
function drawSeedSteps(trajectory: GroundTruthTrajectory, k: number, rng: ReturnType<typeof createRng>): number[] {
  const terminal = trajectory.steps.findIndex((s) => s.actions.some((a) => a.type === "DONE" || a.type === "FAIL"));
  const last = terminal === -1 ? trajectory.steps.length : terminal;
  const pool = Array.from({ length: last }, (_, i) => i + 1);
  const out: number[] = [];
  while (out.length < k && pool.length > 0) out.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]);
  return out.sort((a, b) => a - b);
}

async function dropDuplicates(
  samples: RecoverySample[],
  threshold: number,
  blobs: BlobReader,
): Promise<RecoverySample[]> {
  const out: RecoverySample[] = [];
  for (const s of samples) {
    let dup = false;
    for (const o of out) {
      if (o.taskId !== s.taskId) continue;
      if ((await observationSsim(o.target.observation, s.target.observation, blobs)) < threshold) continue;
      if ((await observationSsim(o.error.observation, s.error.observation, blobs)) >= threshold) {
        dup = true;
        break;
      }
    }
    if (!dup) out.push(s);
  }
  return out;
}

function seededSubset<T>(items: readonly T[], k: number, seed: number, distance: number): T[] {
  const rng = createRng(seed, "subset", distance);
  const idx = items.map((_, i) => i);
  for (let i = idx.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [idx[i], idx[j]] = [idx[j], idx[i]];
  }
  return idx
    .slice(0, k)
    .sort((a, b) => a - b)
    .map((i) => items[i]);
}
