/**
 * The SDK-neutral core of retrace's drop-in recovery for agent SDKs (OpenAI Agents SDK, Stagehand, Vercel AI
 * SDK): an SDK wrapper reports each completed agent step (the actions of its computer calls) and
 * the observation after it; this core records the forward history, gates the detector through the
 * same freeze window and retry cap as the LangGraph runtime (src/runtime/freeze.ts), picks the
 * recovery step R (src/selectors), runs the restore routine (by default the recovery sub-agent,
 * adapters/langchain/recover-with-policy.ts), keeps the runtime's EpisodeAccounting and emits its
 * EpisodeEvents. It returns what the wrapper must do to the model's context: cut it to the
 * boundary of step R (or keep it, after an unconfirmed restoration with
 * `unconfirmedRestoration: "disclose-and-keep"`) and append the post-restoration notice
 * (`postRestoration`, prompts/index.ts). Each recovery is also reported once, as a
 * {@link RecoveryReport}, to `onRecovery` (the SDK's tracing). The wrapper applies
 * the cut in the SDK's own hook (`callModelInputFilter`, `prepareStep`). The LangChain middleware
 * (adapters/langchain/recovery-middleware.ts) drives the same loop on the track it keeps in the
 * agent state, and applies the cut to the message list.
 */
import { isTerminal, type Action } from "../../../src/action.ts";
import { settleAfterStep } from "../../../src/settle.ts";
import type { BlobReader } from "../../../src/blob-store.ts";
import type { ErrorDetector } from "../../../src/detector.ts";
import type { Environment } from "../../../src/environment.ts";
import type { Observation } from "../../../src/observation.ts";
import type { HistoryEntry } from "../../../src/policy.ts";
import type { TaskSpec } from "../../../src/task.ts";
import type { StepRecord, TrajectoryEvent } from "../../../src/trajectory.ts";
import type { EpisodeAccounting } from "../../../src/episode.ts";
import { describeError } from "../../../src/errors.ts";
import { logger } from "../../../src/logger.ts";
import { EpisodeEvents } from "../../../src/runtime/events.ts";
import { consumeFrozenStep, detectorGate, initialFreezeState, startFreeze, type FreezeState } from "../../../src/runtime/freeze.ts";
import { guardedDetect } from "../../../src/runtime/detection.ts";
import { addUsage, bump, emptyAccounting } from "../../../src/runtime/accounting.ts";
import { createStepSelector, guardedSelect } from "../../../src/selectors/index.ts";
import { postRestoration } from "../../../prompts/index.ts";
import type { ModelUsage } from "../../../src/usage.ts";
import type { RecoveryReport } from "./recovery-report.ts";
import type { RestoreRequest, RestoreResult } from "../../langchain/options.ts";
import type { ResolvedKnobs } from "../../recovery-knobs.ts";
import { untilAborted } from "../../../src/abortable.ts";

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
  /** Whether the restore routine believes the target was reached. */
  restored: boolean;
}

/** Flat, JSON-serialisable state of the recovery loop (no per-step copies of the episode); the LangChain middleware keeps it in the agent state under `retrace`. */
export interface RecoveryTrack extends FreezeState {
  /** Forward history entries 0..t-1 of the agent's steps. */
  history: HistoryEntry[];
  /** The observation o_t the next step acts on. */
  pending?: Observation;
  /** Steps executed (forward + restore routine steps), monotone across truncation. */
  tick: number;
  /** Position of the next step record (events). */
  seq: number;
  /** The runtime's accounting: steps, detector calls and failures, frozen skips, model usage per role (timing fields stay 0). */
  accounting: EpisodeAccounting;
  /** `id@version` of every prompt the loop or its detector/selector/restore routine used. */
  prompts: string[];
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

/** What the loop needs: the resolved knobs, the detector, where screenshots are, the restore routine and the current screen. */
export interface StepRecoveryOptions extends ResolvedKnobs {
  detector: ErrorDetector;
  blobs: BlobReader;
  restore: (request: RestoreRequest) => Promise<RestoreResult>;
  env: Pick<Environment, "observe">;
  /** Called once per recovery (after the restore routine, before the context is changed); a throwing reporter is logged, never fatal. */
  onRecovery?: (report: RecoveryReport) => void | Promise<void>;
}

const tokens = (usage: readonly (readonly ModelUsage[] | undefined)[]) =>
  usage.flatMap((u) => u ?? []).reduce((t, u) => ({ input: t.input + (u.inputTokens ?? 0), output: t.output + (u.outputTokens ?? 0) }), { input: 0, output: 0 });

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
  async afterSteps(completed: readonly CompletedStep[], current: Observation, signal?: AbortSignal): Promise<Truncation | null> {
    const s = this.state;
    const taskId = this.task.id;
    if (completed.length === 0) return null;
    // The settle window (src/settle.ts): once after the steps this turn executed, before the
    // detector and the next model call see the screen.
    const executed = completed.reduce((n, c) => n + c.actions.filter((a) => !isTerminal(a)).length, 0);
    current = await settleAfterStep(this.o.env, executed, this.o.settleMs, current, signal);
    for (const c of completed) {
      const t = s.history.length;
      const before = s.pending ?? current;
      const entry: HistoryEntry = { step: t, observation: before, actions: c.actions, ...(c.response !== undefined ? { response: c.response } : {}) };
      s.history.push(entry);
      s.pending = undefined;
      const record: StepRecord = { seq: s.seq++, role: "forward", step: t, actions: c.actions, ...(c.response !== undefined ? { response: c.response } : {}), before: before.screenshot, after: current.screenshot };
      this.trail?.steps.push(record);
      s.accounting = bump(s.accounting, { forwardSteps: 1 });
      this.events.emit("step", { taskId, record, tick: ++s.tick });
    }
    s.pending = current;
    const t = s.history.length;

    const gate = detectorGate(s, { maxRecoveryIterations: this.o.maxRecoveryIterations, hasDetector: true });
    if (gate !== "consult") {
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
      { task: this.task, history: s.history, observation: current, step: t, tick: s.tick, blobs: this.o.blobs, signal },
      this.o.detectorTimeoutMs,
    );
    s.accounting = addUsage(bump(s.accounting, { detectorCalls: 1, detectorFailures: failed ? 1 : 0 }), detection.usage, "detector");
    this.addPrompt(detection.prompt);
    const triggered = detection.isError && detection.errorStep !== null && detection.confidence >= this.o.minConfidence;
    this.events.emit("detection", { taskId, step: t, detection, triggered });
    if (!triggered) return null;

    const E = detection.errorStep!;
    const selection = await guardedSelect(this.selector, {
      task: this.task,
      history: s.history,
      errorStep: E,
      detection,
      instanceKey: this.o.instanceKey ?? taskId,
      seed: this.o.seed,
      blobs: this.o.blobs,
      signal,
    });
    this.addPrompt(selection.prompt);
    s.accounting = addUsage(selection.fallback ? bump(s.accounting, { selectorFallbacks: 1 }) : s.accounting, selection.usage, "selector");
    const R = selection.step;
    this.events.emit("selection", { taskId, errorStep: E, recoveryStep: R, strategy: this.o.recoveryStep, selection });
    Object.assign(s, startFreeze(s, this.o.freezeWindow));
    s.accounting = bump(s.accounting, { recoveryAttempts: 1 });
    const attempt = s.recoveryAttempts;
    const target = { step: R, observation: s.history[R]?.observation ?? current };
    const mode = this.o.restoration;
    this.events.emit("recovery-start", { taskId, attempt, mode, errorStep: E, recoveryStep: R, target: target.observation });
    this.trail?.events.push({ afterSeq: s.seq - 1, kind: "recovery-start", detail: { attempt, mode, errorStep: E, recoveryStep: R } });
    const report = (r: Pick<RecoveryReport, "restored" | "steps" | "detail" | "contextCut" | "notice"> & { usage?: ModelUsage[] }): Promise<void> => {
      const used = tokens([detection.usage, selection.usage, r.usage]);
      const { usage: _u, ...rest } = r;
      return this.report({ taskId, attempt, mode, errorStep: E, recoveryStep: R, detectedAtStep: t, confidence: detection.confidence, reason: detection.reason, unconfirmedRestoration: this.o.unconfirmedRestoration, inputTokens: used.input, outputTokens: used.output, startedAt: detectStarted, endedAt: Date.now(), ...rest });
    };
    let result: RestoreResult;
    try {
      result = await untilAborted(this.o.restore({ step: R, errorStep: E, target, history: s.history, detection, selection, attempt, task: this.task, signal }), signal, "the restore routine");
    } catch (err) {
      if (signal?.aborted) throw err;
      const reason = describeError(err);
      logger.error({ attempt, step: R, error: reason }, "restore routine threw; context left untouched");
      this.events.emit("recovery-end", { taskId, attempt, mode, restored: false, steps: 0, reason });
      this.trail?.events.push({ afterSeq: s.seq - 1, kind: "recovery-end", detail: { attempt, restored: false, steps: 0, reason } });
      s.pending = await this.o.env.observe();
      await report({ restored: false, steps: 0, detail: `the restore routine threw: ${reason}`, contextCut: false, notice: null });
      return null;
    }
    const steps = result.steps ?? 0;
    this.events.emit("recovery-end", { taskId, attempt, mode, restored: result.restored, steps, reason: result.detail ?? "" });
    this.trail?.events.push({ afterSeq: s.seq - 1, kind: "recovery-end", detail: { attempt, restored: result.restored, steps, reason: result.detail ?? "" } });
    s.accounting = addUsage(bump(s.accounting, { recoverySteps: steps }), result.usage, "recoverer");
    for (const ref of result.prompts ?? []) this.addPrompt(ref);
    s.tick += steps;
    const observation = result.observation ?? (await this.o.env.observe());
    const post = postRestoration({ step: R, errorStep: E, restored: result.restored, transition: this.o.transition, unconfirmed: this.o.unconfirmedRestoration });
    this.addPrompt(post.prompt);
    const to = post.cut ? R : t;
    this.events.emit("truncate", { taskId, attempt, from: t, to, notice: post.notice });
    this.trail?.events.push({ afterSeq: s.seq - 1, kind: "truncate", detail: { attempt, from: t, to, restored: result.restored, ...(!post.cut && { kept: true }), notice: post.prompt } });
    if (post.cut) s.history = s.history.slice(0, R);
    s.pending = observation;
    await report({ restored: result.restored, steps, detail: result.detail ?? "", contextCut: post.cut, notice: post.prompt, usage: result.usage });
    return { step: R, cut: post.cut, notice: post.notice, observation, restored: result.restored };
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
