/**
 * The SDK-neutral recovery loop of retrace's drop-in recovery for agent loops it does not own
 * (the OpenAI Agents SDK, Stagehand, the Vercel AI SDK, and LangChain's createAgent through the
 * middleware): a wrapper reports each completed agent step (the actions of its computer calls) and
 * the observation after it; this loop records the forward history, gates the detector through the
 * same freeze window and retry cap as the LangGraph runtime (./freeze.ts), and on a detection runs
 * the one recovery attempt (./attempt.ts: select R, the restore routine, by default the recovery
 * sub-agent of ./recover-with-policy.ts, its result checked, confirm, cut), keeping the runtime's
 * EpisodeAccounting and emitting its EpisodeEvents. It returns what the wrapper must do to the
 * model's context: cut it to the boundary of step R (or keep it, after an unconfirmed restoration
 * with `unconfirmedRestoration: "disclose-and-keep"`) and append the post-restoration notice.
 * Each recovery is also reported once, as a {@link RecoveryReport}, to `onRecovery` (the SDK's
 * tracing). The wrapper applies the cut in the SDK's own hook (`callModelInputFilter`,
 * `prepareStep`, the middleware's message list).
 */
import { isTerminal, type Action } from "../action.ts";
import { settleAfterStep } from "../settle.ts";
import type { BlobReader } from "../blob-store.ts";
import type { ErrorDetector } from "../detector.ts";
import type { Environment } from "../environment.ts";
import type { Observation } from "../observation.ts";
import type { HistoryEntry } from "../policy.ts";
import type { TaskSpec } from "../task.ts";
import type { StepRecord, TrajectoryEvent } from "../trajectory.ts";
import type { EpisodeAccounting } from "../episode.ts";
import { describeError } from "../errors.ts";
import { logger, withLogger, type UserLogger } from "../logger.ts";
import { EpisodeEvents } from "./events.ts";
import { consumeFrozenStep, detectorGate, initialFreezeState, startFreeze, type FreezeState } from "./freeze.ts";
import { degradedNow, guardedDetect, trackDetectorHealth } from "./detection.ts";
import { addUsage, bump, emptyAccounting } from "./accounting.ts";
import { createStepSelector } from "../selectors/index.ts";
import type { ModelUsage } from "../usage.ts";
import type { RecoveryReport } from "./recovery-report.ts";
import type { RestoreRoutine } from "./restore.ts";
import type { RecoveryOptions } from "../episode.ts";
import type { RecoveryStepSelector } from "../selector.ts";
import { isRestored, type RestorationConfirmation } from "./confirm.ts";
import { runRecoveryAttempt, type PostRestorationFn } from "./attempt.ts";
import { stuckRun } from "./stuck.ts";

/** One agent step as an SDK wrapper reports it. */
export interface CompletedStep {
  actions: Action[];
  /** The model's call(s) as text, e.g. `click({"x":1,"y":2})`. */
  response?: string;
}

/** What the wrapper must do to the model's context after a recovery. */
export interface Truncation {
  /** R: with `cut`, keep the context before step R's model call. */
  step: number;
  /** Cut the context to step R (false: keep it all and only append the notice). */
  cut: boolean;
  /** The post-restoration notice to append. */
  notice: string;
  /** The observation after the restore (the screen the agent continues from). */
  observation: Observation;
  /** Whether the restoration counts as restored (`confirmation !== "refused"`). */
  restored: boolean;
  /** How the restoration was confirmed (./confirm.ts). */
  confirmation: RestorationConfirmation;
}

/**
 * Flat, JSON-serialisable state of the recovery loop (no per-step copies of the episode); the LangChain middleware
 * keeps it in the agent state under `retrace`.
 */
export interface RecoveryTrack extends FreezeState {
  /** Forward history entries 0..t-1 of the agent's steps. */
  history: HistoryEntry[];
  /** The observation o_t the next step acts on. */
  pending?: Observation;
  /** Steps executed (forward + restore routine steps), monotone across truncation. */
  tick: number;
  /** Position of the next step record (events). */
  seq: number;
  /**
   * The runtime's accounting: steps, detector calls and failures, frozen skips, model usage per role (timing fields
   * stay 0).
   */
  accounting: EpisodeAccounting;
  /** `id@version` of every prompt the loop or its detector/selector/restore routine used. */
  prompts: string[];
  /**
   * Step t when a cascade judged it without asking its model (no gate opened): {@link StepRecovery.beforeDone} asks
   * again with `ending` if the run ends there.
   */
  letPass?: number;
  /**
   * Why the agent is stuck (option `onStuck: "stop"`: its recovery attempts spent, the same actions 3 times on a
   * screen they did not change, ./stuck.ts): the wrapper ends the run, stop reason "stuck". Set once, never cleared.
   */
  stuck?: string;
}

/** A track that also records the trajectory (step records and recovery events), as the SDK wrappers return it. */
export interface StepRecoveryState extends RecoveryTrack {
  steps: StepRecord[];
  events: TrajectoryEvent[];
}

/** A fresh track (no steps yet). */
export function initialTrack(): RecoveryTrack {
  return { ...initialFreezeState(), history: [], tick: 0, seq: 0, accounting: emptyAccounting(), prompts: [] };
}

/**
 * The resolved options the loop reads (the runtime's names and defaults, packages/core/src/episode.ts; validated by the wrappers).
 */
export type LoopOptions = Pick<
  RecoveryOptions,
  | "freezeWindow"
  | "maxRecoveryIterations"
  | "recoveryStep"
  | "minConfidence"
  | "transition"
  | "unconfirmedRestoration"
  | "seed"
  | "settleMs"
> &
  Partial<Pick<RecoveryOptions, "degradedAfter" | "onDetectorFailure" | "onStuck">> & {
    restoration: "model" | "replay" | "snapshot";
    detectorTimeoutMs: number;
    selector?: RecoveryStepSelector;
    events?: EpisodeEvents;
    instanceKey?: string;
  };

/**
 * What the loop needs: the resolved knobs, the detector, where screenshots are, the restore routine and the current
 * screen.
 */
export interface StepRecoveryOptions extends LoopOptions {
  detector: ErrorDetector;
  blobs: BlobReader;
  restore: RestoreRoutine;
  /** Names the restore routine in the one-line reason of a malformed result. @default "restore" */
  routine?: string;
  env: Pick<Environment, "observe">;
  /** The transition notice builder (packages/core/src/prompts/index.ts `postRestoration`; src imports no prompts). */
  postRestoration: PostRestorationFn;
  /** Receives the loop's log records instead of stderr (packages/core/src/logger.ts `UserLogger`). */
  logger?: UserLogger;
  /**
   * Called once per recovery (after the restore routine, before the context is changed); a throwing reporter is logged,
   * never fatal.
   */
  onRecovery?: (report: RecoveryReport) => void | Promise<void>;
}

const tokens = (usage: readonly (readonly ModelUsage[] | undefined)[]) =>
  usage
    .flatMap((u) => u ?? [])
    .reduce((t, u) => ({ input: t.input + (u.inputTokens ?? 0), output: t.output + (u.outputTokens ?? 0) }), {
      input: 0,
      output: 0,
    });

/** The recovery loop one SDK run (or one LangChain middleware call) drives. */
export class StepRecovery<S extends RecoveryTrack = StepRecoveryState> {
  readonly events: EpisodeEvents;
  private readonly selector;

  /** `state` defaults to a fresh track that records the trajectory ({@link StepRecoveryState}). */
  constructor(
    private readonly o: StepRecoveryOptions,
    readonly task: TaskSpec,
    readonly state: S = { ...initialTrack(), steps: [], events: [] } as RecoveryTrack as S,
  ) {
    this.events = o.events ?? new EpisodeEvents();
    this.selector = createStepSelector(o.recoveryStep, o.selector);
  }

  /** Set the observation the first step acts on (after `env.reset`, or the current screen). */
  start(observation: Observation): void {
    this.state.pending = observation;
  }

  /**
   * Record the steps completed since the last call (the screen is now `current`), consult the
   * detector when the gate allows, and recover when it fires. Returns the truncation to apply, or
   * null to leave the context as it is.
   */
  afterSteps(
    completed: readonly CompletedStep[],
    current: Observation,
    signal?: AbortSignal,
  ): Promise<Truncation | null> {
    return withLogger(this.o.logger, () => this.afterStepsLogged(completed, current, signal));
  }

  private async afterStepsLogged(
    completed: readonly CompletedStep[],
    current: Observation,
    signal?: AbortSignal,
  ): Promise<Truncation | null> {
    const s = this.state;
    const taskId = this.task.id;
    if (completed.length === 0) return null;
    // The settle window (packages/core/src/settle.ts): once after the steps this turn executed, before the
    // detector and the next model call see the screen.
    const executed = completed.reduce((n, c) => n + c.actions.filter((a) => !isTerminal(a)).length, 0);
    current = await settleAfterStep(this.o.env, executed, this.o.settleMs, current, signal);
    for (const c of completed) {
      const t = s.history.length;
      const before = s.pending ?? current;
      const entry: HistoryEntry = {
        step: t,
        observation: before,
        actions: c.actions,
        ...(c.response !== undefined ? { response: c.response } : {}),
      };
      s.history.push(entry);
      s.pending = undefined;
      const record: StepRecord = {
        seq: s.seq++,
        role: "forward",
        step: t,
        actions: c.actions,
        ...(c.response !== undefined ? { response: c.response } : {}),
        before: before.screenshot,
        after: current.screenshot,
      };
      this.trail?.steps.push(record);
      s.accounting = bump(s.accounting, { forwardSteps: 1 });
      this.events.emit("step", { taskId, record, tick: ++s.tick });
    }
    s.pending = current;
    s.letPass = undefined;
    const out = await this.judge(s.history.length, current, signal, false);
    if (
      !out &&
      this.o.onStuck === "stop" &&
      s.stuck === undefined &&
      s.recoveryAttempts >= this.o.maxRecoveryIterations
    )
      s.stuck = stuckRun(s.history, current) ?? undefined;
    return out;
  }

  /**
   * The agent ended the episode (a final answer, no tool call, or `done`) after the steps reported
   * so far. A cascade that let the last step pass without asking its model (no gate opened) is
   * asked again about it with `ending: true`, so its `before-done` gate opens: the same second
   * look the graph's judge node takes when the proposal for step t+1 is DONE (packages/graphs/src/nodes/judge.ts).
   * A detection is handled like any other (recovery, events, report); the returned truncation is
   * what the wrapper must do to its context (the final answer is dropped with what follows R).
   * Null when nothing is to be asked (no cascade, it already asked, it fired, or the step was frozen).
   */
  beforeDone(signal?: AbortSignal): Promise<Truncation | null> {
    const s = this.state;
    const t = s.history.length;
    if (s.letPass !== t || s.pending === undefined) return Promise.resolve(null);
    s.letPass = undefined;
    const current = s.pending;
    return withLogger(this.o.logger, () => this.judge(t, current, signal, true));
  }

  private async judge(
    t: number,
    current: Observation,
    signal: AbortSignal | undefined,
    ending: boolean,
  ): Promise<Truncation | null> {
    const s = this.state;
    const taskId = this.task.id;

    const gate = detectorGate(s, { maxRecoveryIterations: this.o.maxRecoveryIterations, hasDetector: true });
    if (!ending && gate !== "consult") {
      if (gate === "frozen") {
        Object.assign(s, consumeFrozenStep(s));
        s.accounting = bump(s.accounting, { frozenSkipped: 1 });
      }
      this.events.emit("freeze", { taskId, step: t, gate, remaining: s.freezeRemaining });
      return null;
    }
    const detectStarted = Date.now();
    const { detection, failed } = await guardedDetect(
      this.o.detector,
      {
        task: this.task,
        history: s.history,
        observation: current,
        step: t,
        tick: s.tick,
        ...(ending ? { ending: true } : {}),
        blobs: this.o.blobs,
        signal,
      },
      this.o.detectorTimeoutMs,
      { quiet: degradedNow(s.accounting, this.o.degradedAfter ?? 3) },
    );
    s.accounting = addUsage(
      bump(s.accounting, { detectorCalls: 1, detectorFailures: failed ? 1 : 0 }),
      detection.usage,
      "detector",
    );
    s.accounting = trackDetectorHealth(s.accounting, {
      detector: this.o.detector,
      detection,
      failed,
      taskId,
      step: t,
      events: this.events,
      degradedAfter: this.o.degradedAfter ?? 3,
      onDetectorFailure: this.o.onDetectorFailure ?? "continue",
    });
    this.addPrompt(detection.prompt);
    const triggered = detection.isError && detection.errorStep !== null && detection.confidence >= this.o.minConfidence;
    this.events.emit("detection", { taskId, step: t, detection, triggered });
    if (!triggered) {
      if (!ending && detection.cascade && !detection.cascade.asked && !detection.isError) s.letPass = t;
      return null;
    }

    Object.assign(s, startFreeze(s, this.o.freezeWindow));
    s.accounting = bump(s.accounting, { recoveryAttempts: 1 });
    const attempt = s.recoveryAttempts;
    const out = await runRecoveryAttempt(
      { events: this.events, taskId },
      {
        task: this.task,
        history: s.history,
        current,
        detection,
        attempt,
        selector: this.selector,
        strategy: this.o.recoveryStep,
        instanceKey: this.o.instanceKey ?? taskId,
        seed: this.o.seed,
        blobs: this.o.blobs,
        restoration: this.o.restoration,
        restore: this.o.restore,
        routine: this.o.routine ?? "restore",
        observe: () => this.o.env.observe(),
        transition: this.o.transition,
        unconfirmed: this.o.unconfirmedRestoration,
        postRestoration: this.o.postRestoration,
        ...(signal ? { signal } : {}),
      },
    );
    const { selection } = out;
    this.addPrompt(selection.prompt);
    s.accounting = addUsage(
      selection.fallback ? bump(s.accounting, { selectorFallbacks: 1 }) : s.accounting,
      selection.usage,
      "selector",
    );
    for (const d of out.details) this.trail?.events.push({ afterSeq: s.seq - 1, kind: d.kind, detail: d.detail });
    s.accounting = addUsage(bump(s.accounting, { recoverySteps: out.steps }), out.usage, "recoverer");
    for (const ref of out.prompts) this.addPrompt(ref);
    s.tick += out.steps;
    if (out.cut?.cut) s.history = s.history.slice(0, out.recoveryStep);
    s.pending = out.observation;
    const used = tokens([detection.usage, selection.usage, out.usage]);
    await this.report({
      taskId,
      attempt,
      restoration: this.o.restoration,
      mode: this.o.restoration,
      errorStep: out.errorStep,
      recoveryStep: out.recoveryStep,
      detectedAtStep: t,
      confidence: detection.confidence,
      reason: detection.reason,
      unconfirmedRestoration: this.o.unconfirmedRestoration,
      inputTokens: used.input,
      outputTokens: used.output,
      startedAt: detectStarted,
      endedAt: Date.now(),
      restored: isRestored(out.confirmation),
      confirmation: out.confirmation,
      steps: out.steps,
      detail: out.reason,
      contextCut: out.cut?.cut ?? false,
      notice: out.cut?.prompt ?? null,
    });
    if (!out.cut) return null;
    return {
      step: out.recoveryStep,
      cut: out.cut.cut,
      notice: out.cut.notice,
      observation: out.observation,
      restored: isRestored(out.confirmation),
      confirmation: out.confirmation,
    };
  }

  private async report(r: RecoveryReport): Promise<void> {
    if (!this.o.onRecovery) return;
    try {
      await this.o.onRecovery(r);
    } catch (err) {
      logger.warn({ attempt: r.attempt, error: describeError(err) }, "recovery reporter threw; ignored");
    }
  }

  /** The trajectory being recorded, when the state keeps one. */
  private get trail(): Pick<StepRecoveryState, "steps" | "events"> | undefined {
    const s = this.state as Partial<StepRecoveryState>;
    return s.steps && s.events ? { steps: s.steps, events: s.events } : undefined;
  }

  private addPrompt(ref: string | undefined): void {
    if (ref && !this.state.prompts.includes(ref)) this.state.prompts.push(ref);
  }
}
