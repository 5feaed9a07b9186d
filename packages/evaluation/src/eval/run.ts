/**
 * `evaluateRecovery`: the paper's recovery evaluation (Section 5.2 "Goal-oriented action replay",
 * Section 5.3, Appendix A.2). For each sample: reconstruct the error state by replay (the target
 * state and the error state are both verified), run a recovery policy for at most r steps, and
 * judge the recovered state with the oracle (R_O, R_TC, both).
 *
 * Policies: implicit (the forward policy continues unchanged, with the history up to the error
 * state, "0-E") and explicit (a RecoveryPolicy given the target observation and a context: "0-E",
 * "0-R", "none" or "contextualized" via a Summarizer).
 *
 * When the environment can snapshot, the verified error state is snapshotted once per sample and
 * restored for every further (variant, r) run instead of replaying again.
 */
import { renameDeprecatedKeys } from "@retrace-cua/core/deprecation";
import { formatAction } from "@retrace-cua/core/action";
import type { BlobReader, BlobRef } from "@retrace-cua/core/blob-store";
import type { Environment, EnvironmentSnapshot } from "@retrace-cua/core/environment";
import { AdapterError, ConfigError, ModelBehaviorError, describeError } from "@retrace-cua/core/errors";
import { DEFAULT_SSIM_THRESHOLD } from "@retrace-cua/core/image/similarity";
import type { Observation } from "@retrace-cua/core/observation";
import type { ForwardPolicy } from "@retrace-cua/core/policy";
import type { RecoveryContextKind, RecoveryPolicy, Summarizer } from "@retrace-cua/core/recovery";
import type { Task } from "@retrace-cua/core/task";
import { judgeRecovery, type RecoveryVerdict } from "../oracle/recovery-oracle.ts";
import { replayFromReset } from "../replay/replay.ts";
import { createStateCheck, type StateCheck } from "@retrace-cua/core/replay/state-check";
import type { RecoverySample } from "../dataset/types.ts";
import { episodeIntent, keywordIntent, type IntentClassifier } from "./intent.ts";
import { recoveryReference, scoreRationales, type RationaleScore, type RationaleScorer } from "./rationale.ts";
import { runExplicit, runImplicit, type RecoveryEpisode } from "./episode.ts";

/** A recovery policy configuration under test. */
export type RecoveryVariant =
  | { id: string; kind: "implicit"; policy: (ctx: { task: Task; sample: RecoverySample }) => ForwardPolicy }
  | {
      id: string;
      kind: "explicit";
      context: RecoveryContextKind;
      recoverer: (ctx: { task: Task; sample: RecoverySample }) => RecoveryPolicy;
      summarizer?: Summarizer;
    };

/** Options of {@link evaluateRecovery}. */
export interface RecoveryEvalOptions {
  env: Environment;
  blobs: BlobReader;
  tasks: ReadonlyMap<string, Task>;
  samples: readonly RecoverySample[];
  variants: readonly RecoveryVariant[];
  /** Recovery budgets r to evaluate (recovery steps per attempt). @default [1, 3, 10] */
  recoveryBudget?: readonly number[];
  /** @deprecated The old name of `recoveryBudget`; accepted with a warning until the next release. */
  budgets?: readonly number[];
  /** How reconstructed target and error states are confirmed. @default createStateCheck() */
  check?: StateCheck;
  /** R_O threshold. @default 0.99 */
  threshold?: number;
  /**
   * Which dynamic-pixel mask R_Om uses: the union over the sample's task, the target state's own,
   * or none (R_Om not judged). Samples without masks (older datasets) are judged by R_O alone.
   * @default "task"
   */
  maskScope?: "task" | "state" | "off";
  /** Restorative-intent classifier for rationales (the keyword baseline). @default keywordIntent */
  intent?: IntentClassifier;
  /**
   * Rationale analysis as in the paper: similarity of each episode's rationales to its sample's
   * ground-truth recovery instruction (./rationale.ts); false skips it. @default { kind: "tfidf" }
   */
  rationale?: RationaleScorer | false;
  /**
   * Ground truth of "truly recovered", read from the recovered state before R_TC changes it
   * (simulators only; used to measure the oracle's agreement).
   */
  truth?: (ctx: { env: Environment; sample: RecoverySample; recovered: Observation }) => boolean | Promise<boolean>;
  /**
   * Restore a snapshot of the verified error state instead of replaying for every run. @default true when the
   * environment can snapshot
   */
  reuseSnapshots?: boolean;
  /**
   * Wait after each executed step before observing, on every path: error-state reconstruction,
   * implicit and explicit recovery, and R_TC's replay of the remaining steps (packages/core/src/settle.ts). @default 0
   */
  settleMs?: number;
  onProgress?: (message: string) => void;
  /**
   * Asked before every sample: a reason ends the evaluation there (runs so far are returned), e.g. a spent cost budget.
   */
  stop?: () => string | undefined;
  /**
   * What the model servers declared: true once some call of this evaluation was answered by a
   * server that declared itself a simulated stand-in (the caller's usage meter reads each reply's
   * `system_fingerprint`). Asked when the evaluation ends: then every run is labelled simulated,
   * whatever the agents' own fixed flags say. @default () => false
   */
  declaredSimulated?: () => boolean;
  signal?: AbortSignal;
}

/** One (sample, variant, r) run. */
export interface RecoveryRun {
  sampleId: string;
  taskId: string;
  distance: number;
  variant: string;
  policyKind: "implicit" | "explicit";
  context: RecoveryContextKind;
  budget: number;
  /**
   * "judged", or why the run could not be judged (excluded from rates): the error state could not
   * be reconstructed, the environment failed, or the policy's adapter threw (a model API failure;
   * unusable model output is data, returned as a PolicyFailure, not thrown).
   */
  status: "judged" | "reconstruction-failed" | "env-error" | "policy-error";
  reason?: string;
  stepsUsed: number;
  /** The policy declared the target restored (explicit) or DONE (implicit). */
  declaredDone: boolean;
  actions: string[];
  rationales: (string | undefined)[];
  /** Keyword baseline: rationales judged / judged restorative; `intent` = any restorative (null when none judged). */
  intent: { judged: number; restorative: number; intent: boolean | null };
  /** Similarity of the rationales to the ground-truth recovery instruction (absent when not scored). */
  rationale?: RationaleScore;
  verdict?: RecoveryVerdict;
  /** Screenshot of the recovered state (a blob ref), so verdicts can be re-judged later. */
  recovered?: BlobRef;
  /** Ground truth from the `truth` probe, when given. */
  truth?: boolean;
  /**
   * Simulated components produced this run: a simulated agent, a simulated dataset, or a model server that declared
   * itself a stand-in.
   */
  simulated: boolean;
}

/** Run every sample under every variant and budget. Sequential; deterministic for seeded policies. */
export async function evaluateRecovery(given: RecoveryEvalOptions): Promise<RecoveryRun[]> {
  const options = renameDeprecatedKeys("evaluateRecovery", given, { budgets: "recoveryBudget" });
  const budgets = options.recoveryBudget ?? [1, 3, 10];
  for (const b of budgets)
    if (!Number.isInteger(b) || b < 1)
      throw new ConfigError(`eval-recovery: recovery budget ${b} must be a positive integer`, {
        field: "recoveryBudget",
      });
  for (const v of options.variants) {
    if (v.kind === "explicit" && v.context === "contextualized" && !v.summarizer)
      throw new ConfigError(`eval-recovery: variant "${v.id}" uses the contextualized context but has no summarizer`, {
        field: "variants",
      });
  }
  const { env, blobs, signal } = options;
  const check = options.check ?? createStateCheck();
  const reuse = (options.reuseSnapshots ?? true) && env.capabilities.snapshot && !!env.snapshot && !!env.restore;
  const log = options.onProgress ?? (() => {});
  const runs: RecoveryRun[] = [];
  for (const sample of options.samples) {
    const stopped = options.stop?.();
    if (stopped) {
      log(`stopped early: ${stopped}`);
      break;
    }
    const task = options.tasks.get(sample.taskId);
    if (!task)
      throw new ConfigError(`eval-recovery: sample ${sample.id} refers to unknown task "${sample.taskId}"`, {
        field: "tasks",
      });
    let snapshot: EnvironmentSnapshot | undefined;
    for (const variant of options.variants) {
      for (const budget of budgets) {
        signal?.throwIfAborted();
        const base = {
          sampleId: sample.id,
          taskId: sample.taskId,
          distance: sample.distance,
          variant: variant.id,
          policyKind: variant.kind,
          context: variant.kind === "implicit" ? ("0-E" as const) : variant.context,
          budget,
        };
        // Reconstruct the error state: replay (verified) the first time, then the snapshot.
        let errorObs: Observation;
        try {
          if (snapshot) errorObs = await env.restore!(snapshot);
          else {
            const steps = [
              ...sample.trajectory.steps.slice(0, sample.targetStep).map((s, i) => ({
                actions: s.actions,
                expect: i === sample.targetStep - 1 ? sample.target : undefined,
              })),
              ...sample.perturbation.map((s, i) => ({
                actions: s.actions,
                expect: i === sample.perturbation.length - 1 ? sample.error : undefined,
              })),
            ];
            const r = await replayFromReset({ env, task, blobs, check, steps, settleMs: options.settleMs, signal });
            if (!r.ok) {
              const reason =
                r.envError ?? `state after ${r.failedAt?.afterSteps} steps not reproduced: ${r.failedAt?.reason}`;
              log(`${sample.id}: reconstruction failed: ${reason}`);
              runs.push({
                ...base,
                status: "reconstruction-failed",
                reason,
                stepsUsed: 0,
                declaredDone: false,
                actions: [],
                rationales: [],
                intent: { judged: 0, restorative: 0, intent: null },
                simulated: sample.simulated,
              });
              continue;
            }
            errorObs = r.observations[r.observations.length - 1];
            if (reuse) snapshot = await env.snapshot!();
          }
        } catch (err) {
          signal?.throwIfAborted();
          runs.push({
            ...base,
            status: "env-error",
            reason: describeError(err),
            stepsUsed: 0,
            declaredDone: false,
            actions: [],
            rationales: [],
            intent: { judged: 0, restorative: 0, intent: null },
            simulated: sample.simulated,
          });
          continue;
        }
        runs.push(await runOne(options, task, sample, variant, budget, errorObs, base));
      }
    }
    log(`${sample.id}: done`);
  }
  // A stand-in server's replies make every run of the evaluation simulated, not only the agents
  // whose fixed flag says so (a model agent cannot know what its server is until it is answered).
  if (options.declaredSimulated?.() === true) for (const r of runs) r.simulated = true;
  if (options.rationale === false) return runs;
  const bySample = new Map(options.samples.map((s) => [s.id, s]));
  const scores = await scoreRationales(
    runs.map((r) => ({ rationales: r.rationales, reference: recoveryReference(bySample.get(r.sampleId)!) })),
    options.rationale ?? { kind: "tfidf" },
    signal,
  );
  return runs.map((r, i) => ({ ...r, rationale: scores[i] }));
}

async function runOne(
  options: RecoveryEvalOptions,
  task: Task,
  sample: RecoverySample,
  variant: RecoveryVariant,
  budget: number,
  errorObs: Observation,
  base: Pick<RecoveryRun, "sampleId" | "taskId" | "distance" | "variant" | "policyKind" | "context" | "budget">,
): Promise<RecoveryRun> {
  const { env, blobs, signal } = options;
  let episode: RecoveryEpisode;
  let simulated = sample.simulated;
  try {
    if (variant.kind === "implicit") {
      const policy = variant.policy({ task, sample });
      simulated ||= policy.simulated === true;
      episode = await runImplicit({
        env,
        task,
        sample,
        policy,
        budget,
        errorObs,
        blobs,
        settleMs: options.settleMs,
        signal,
      });
    } else {
      const recoverer = variant.recoverer({ task, sample });
      simulated ||= recoverer.simulated === true;
      episode = await runExplicit({
        env,
        task,
        sample,
        recoverer,
        context: variant.context,
        summarizer: variant.summarizer,
        budget,
        errorObs,
        blobs,
        settleMs: options.settleMs,
        signal,
      });
    }
  } catch (err) {
    signal?.throwIfAborted();
    if (err instanceof ConfigError) throw err;
    const status = err instanceof AdapterError || err instanceof ModelBehaviorError ? "policy-error" : "env-error";
    return {
      ...base,
      status,
      reason: describeError(err),
      stepsUsed: 0,
      declaredDone: false,
      actions: [],
      rationales: [],
      intent: { judged: 0, restorative: 0, intent: null },
      simulated,
    };
  }
  const truth = options.truth ? await options.truth({ env, sample, recovered: episode.recovered }) : undefined;
  const scope = options.maskScope ?? "task";
  const verdict = await judgeRecovery({
    env,
    recovered: episode.recovered,
    target: sample.target.observation,
    blobs,
    threshold: options.threshold ?? DEFAULT_SSIM_THRESHOLD,
    mask: scope === "off" || !sample.masks ? undefined : scope === "state" ? sample.masks.state : sample.masks.task,
    remaining: sample.trajectory.steps.slice(sample.targetStep).map((s) => s.actions),
    settleMs: options.settleMs,
  });
  return {
    ...base,
    status: verdict.rtc.envError ? "env-error" : "judged",
    reason: verdict.rtc.envError,
    stepsUsed: episode.steps,
    declaredDone: episode.declaredDone,
    actions: episode.actions.map((a) => a.map(formatAction).join(" ")),
    rationales: episode.rationales,
    intent: episodeIntent(episode.rationales, options.intent ?? keywordIntent),
    verdict,
    recovered: episode.recovered.screenshot,
    truth,
    simulated,
  };
}
