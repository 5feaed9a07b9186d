/**
 * One recovery attempt, once: select R, restore, confirm, end, cut (with the transition notice),
 * with its accounting and events. Its phases are each one function here:
 *
 *   chooseRecoveryStep -> startRecovery -> (restore; confirm) -> endRecovery -> cutContext
 *
 * Two kinds of caller:
 * - the vendor-neutral loop (./step-recovery.ts, driven by the LangChain middleware and the three
 *   SDK wrappers) runs the whole attempt with {@link runRecoveryAttempt}, whose restore phase is a
 *   restore routine (./restore.ts: `recoverWithPolicy` or the user's), its result checked here;
 * - the LangGraph runtime calls the phases from its nodes, one node per phase so that each is
 *   checkpointed: `select` -> chooseRecoveryStep, `recover` -> startRecovery, the restoration mode
 *   (the recovery subgraph runs ./recovery-agent.ts, replay and snapshot the one confirmation
 *   rule) and endRecovery, `restoreContext` -> cutContext.
 *
 * The transition notice is a prompt (packages/core/src/prompts/index.ts `postRestoration`): src imports no prompts,
 * so each caller hands in that function.
 */
import type { BlobReader } from "../blob-store.ts";
import type { Detection } from "../detector.ts";
import type { TransitionString, UnconfirmedRestoration } from "../episode.ts";
import { describeError } from "../errors.ts";
import { logger } from "../logger.ts";
import type { Observation } from "../observation.ts";
import type { HistoryEntry } from "../policy.ts";
import type { RestorationMode } from "../recovery.ts";
import type { RecoveryStepSelector, Selection } from "../selector.ts";
import { guardedSelect } from "../selectors/index.ts";
import type { TaskSpec } from "../task.ts";
import type { ModelUsage } from "../usage.ts";
import { untilAborted } from "../abortable.ts";
import { isRestored, type RestorationConfirmation } from "./confirm.ts";
import type { EpisodeEvents } from "./events.ts";
import { checkRestoreResult, type RestoreRoutine } from "./restore.ts";

/** The notice and the cut after restoring (or trying to restore) step `step`: packages/core/src/prompts/index.ts `postRestoration`. */
export type PostRestorationFn = (args: {
  step: number;
  errorStep: number;
  restored: boolean;
  transition: TransitionString;
  unconfirmed: UnconfirmedRestoration;
}) => {
  cut: boolean;
  notice: string;
  prompt: string;
};

/** What the phases report to. */
export interface AttemptSink {
  events: EpisodeEvents;
  taskId: string;
}

/** Phase 1: choose R for E (a failing selector falls back to E-1; see guardedSelect) and emit `selection`. */
export async function chooseRecoveryStep(
  sink: AttemptSink,
  a: {
    selector: RecoveryStepSelector;
    strategy: string;
    task: TaskSpec;
    history: readonly HistoryEntry[];
    errorStep: number;
    detection: Detection;
    instanceKey: string;
    seed: number;
    blobs: BlobReader;
    signal?: AbortSignal;
  },
  call: <T>(fn: () => T) => T = (fn) => fn(),
): Promise<Selection & { fallback: boolean }> {
  const selection = await call(() =>
    guardedSelect(a.selector, {
      task: a.task,
      history: a.history as HistoryEntry[],
      errorStep: a.errorStep,
      detection: a.detection,
      instanceKey: a.instanceKey,
      seed: a.seed,
      blobs: a.blobs,
      signal: a.signal,
    }),
  );
  const { fallback: _f, ...sel } = selection;
  sink.events.emit("selection", {
    taskId: sink.taskId,
    errorStep: a.errorStep,
    recoveryStep: sel.step,
    strategy: a.strategy,
    selection: sel,
  });
  return selection;
}

/** Phase 2: emit `recovery-start`; returns the trajectory event's detail. */
export function startRecovery(
  sink: AttemptSink,
  a: {
    attempt: number;
    restoration: RestorationMode;
    errorStep: number;
    recoveryStep: number;
    target: Observation;
    detection: Detection;
    selection?: Record<string, unknown>;
  },
): Record<string, unknown> {
  sink.events.emit("recovery-start", {
    taskId: sink.taskId,
    attempt: a.attempt,
    restoration: a.restoration,
    mode: a.restoration,
    errorStep: a.errorStep,
    recoveryStep: a.recoveryStep,
    target: a.target,
  });
  return {
    attempt: a.attempt,
    restoration: a.restoration,
    errorStep: a.errorStep,
    recoveryStep: a.recoveryStep,
    reason: a.detection.reason,
    confidence: a.detection.confidence,
    target: a.target.screenshot,
    ...(a.selection ? { selection: a.selection } : {}),
  };
}

/** Phase 4: emit `recovery-end` (with `confirmation`); returns the trajectory event's detail. */
export function endRecovery(
  sink: AttemptSink,
  a: {
    attempt: number;
    restoration: RestorationMode;
    confirmation: RestorationConfirmation;
    steps: number;
    reason: string;
    observation?: Observation;
  },
): Record<string, unknown> {
  const restored = isRestored(a.confirmation);
  sink.events.emit("recovery-end", {
    taskId: sink.taskId,
    attempt: a.attempt,
    restoration: a.restoration,
    mode: a.restoration,
    restored,
    confirmation: a.confirmation,
    steps: a.steps,
    reason: a.reason,
  });
  return {
    attempt: a.attempt,
    restoration: a.restoration,
    restored,
    confirmation: a.confirmation,
    steps: a.steps,
    reason: a.reason,
    ...(a.observation ? { observation: a.observation.screenshot } : {}),
  };
}

/** What {@link cutContext} decided. */
export interface ContextCut {
  /** Cut the agent's history to R (false: keep it all, only add the notice). */
  cut: boolean;
  /** History length after the cut (R, or t when kept). */
  to: number;
  notice: string;
  /** `id@version` of the notice's prompt. */
  prompt: string;
  /** The trajectory's `truncate` event detail. */
  detail: Record<string, unknown>;
}

/**
 * Phase 5: the cut and the transition notice after the attempt (option `unconfirmedRestoration`
 * for a refused one); emits `truncate`. `from` = t, the history length before.
 */
export function cutContext(
  sink: AttemptSink,
  a: {
    attempt: number;
    recoveryStep: number;
    errorStep: number;
    from: number;
    confirmation: RestorationConfirmation;
    transition: TransitionString;
    unconfirmed: UnconfirmedRestoration;
    postRestoration: PostRestorationFn;
  },
): ContextCut {
  const restored = isRestored(a.confirmation);
  const post = a.postRestoration({
    step: a.recoveryStep,
    errorStep: a.errorStep,
    restored,
    transition: a.transition,
    unconfirmed: a.unconfirmed,
  });
  const to = post.cut ? a.recoveryStep : a.from;
  sink.events.emit("truncate", { taskId: sink.taskId, attempt: a.attempt, from: a.from, to, notice: post.notice });
  return {
    cut: post.cut,
    to,
    notice: post.notice,
    prompt: post.prompt,
    detail: {
      attempt: a.attempt,
      from: a.from,
      to,
      restored,
      confirmation: a.confirmation,
      ...(!post.cut && { kept: true }),
      notice: post.prompt,
    },
  };
}

/** Everything the whole attempt needs. */
export interface AttemptInput {
  task: TaskSpec;
  history: readonly HistoryEntry[];
  /** The screen now (o_t). */
  current: Observation;
  detection: Detection;
  attempt: number;
  selector: RecoveryStepSelector;
  strategy: string;
  instanceKey: string;
  seed: number;
  blobs: BlobReader;
  restoration: RestorationMode;
  restore: RestoreRoutine;
  /** Names the restore routine in the one-line error about a malformed result. */
  routine: string;
  observe: () => Promise<Observation>;
  transition: TransitionString;
  unconfirmed: UnconfirmedRestoration;
  postRestoration: PostRestorationFn;
  signal?: AbortSignal;
}

/** What the whole attempt did. */
export interface AttemptOutcome {
  errorStep: number;
  recoveryStep: number;
  selection: Selection & { fallback: boolean };
  confirmation: RestorationConfirmation;
  steps: number;
  reason: string;
  /** The screen after the attempt (the agent continues from it). */
  observation: Observation;
  /**
   * The cut and notice; null when the agent's context is left untouched (the restore routine threw or returned a
   * malformed result).
   */
  cut: ContextCut | null;
  usage: ModelUsage[];
  prompts: string[];
  /** Trajectory events' details, in order: recovery-start, recovery-end, truncate (when cut is not null). */
  details: { kind: "recovery-start" | "recovery-end" | "truncate"; detail: Record<string, unknown> }[];
}

/**
 * The whole attempt (phases 1-5) with a restore routine. A routine that throws, or returns a
 * malformed result (see ./restore.ts), ends the attempt `refused` with the reason logged and
 * recorded, and leaves the agent's context untouched; an aborted run's error propagates.
 */
export async function runRecoveryAttempt(sink: AttemptSink, a: AttemptInput): Promise<AttemptOutcome> {
  const E = a.detection.errorStep!;
  const selection = await chooseRecoveryStep(sink, {
    selector: a.selector,
    strategy: a.strategy,
    task: a.task,
    history: a.history,
    errorStep: E,
    detection: a.detection,
    instanceKey: a.instanceKey,
    seed: a.seed,
    blobs: a.blobs,
    signal: a.signal,
  });
  const R = selection.step;
  const t = a.history.length;
  const target = { step: R, observation: a.history[R]?.observation ?? a.current };
  const details: AttemptOutcome["details"] = [];
  const sel = {
    strategy: a.strategy,
    reason: selection.reason,
    ...(selection.failure ? { failure: selection.failure } : {}),
  };
  details.push({
    kind: "recovery-start",
    detail: startRecovery(sink, {
      attempt: a.attempt,
      restoration: a.restoration,
      errorStep: E,
      recoveryStep: R,
      target: target.observation,
      detection: a.detection,
      selection: sel,
    }),
  });
  const base = { errorStep: E, recoveryStep: R, selection, details };
  let raw: unknown;
  let failure: string | null = null;
  try {
    raw = await untilAborted(
      a.restore({
        step: R,
        errorStep: E,
        target,
        history: a.history,
        detection: a.detection,
        selection,
        attempt: a.attempt,
        task: a.task,
        signal: a.signal,
      }),
      a.signal,
      "the restore routine",
    );
  } catch (err) {
    if (a.signal?.aborted) throw err;
    failure = `the restore routine (${a.routine}) threw: ${describeError(err)}`;
  }
  const checked = failure === null ? checkRestoreResult(raw, a.routine) : null;
  if (failure !== null || !checked!.ok) {
    const reason = failure ?? (checked as { reason: string }).reason;
    logger.error(
      { attempt: a.attempt, step: R, error: reason },
      "restore routine failed; the attempt is refused and the context left untouched",
    );
    details.push({
      kind: "recovery-end",
      detail: endRecovery(sink, {
        attempt: a.attempt,
        restoration: a.restoration,
        confirmation: "refused",
        steps: 0,
        reason,
      }),
    });
    return {
      ...base,
      confirmation: "refused",
      steps: 0,
      reason,
      observation: await a.observe(),
      cut: null,
      usage: [],
      prompts: [],
    };
  }
  const r = checked!.result;
  const observation = r.observation ?? (await a.observe());
  const reason = r.detail ?? "";
  details.push({
    kind: "recovery-end",
    detail: endRecovery(sink, {
      attempt: a.attempt,
      restoration: a.restoration,
      confirmation: r.confirmation,
      steps: r.steps,
      reason,
      observation,
    }),
  });
  const cut = cutContext(sink, {
    attempt: a.attempt,
    recoveryStep: R,
    errorStep: E,
    from: t,
    confirmation: r.confirmation,
    transition: a.transition,
    unconfirmed: a.unconfirmed,
    postRestoration: a.postRestoration,
  });
  details.push({ kind: "truncate", detail: cut.detail });
  return {
    ...base,
    confirmation: r.confirmation,
    steps: r.steps,
    reason,
    observation,
    cut,
    usage: r.usage ?? [],
    prompts: [...(r.prompts ?? []), cut.prompt],
  };
}
