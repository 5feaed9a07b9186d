/**
 * `recoveryMiddleware(options)`: retrace's online recovery for a CUA written with langchain's
 * `createAgent` (computer actions as tools). Before each model call it records the step the agent
 * just completed (its tool calls and the observation they acted on) and, through the same gate
 * the LangGraph runtime uses (src/runtime/freeze.ts), consults the error-step detector once per
 * step outside the freeze window. On a confident detection it picks the recovery step R
 * (src/selectors), calls the user's restore routine, truncates the message history to the
 * boundary of step R (RemoveMessage REMOVE_ALL_MESSAGES + the kept messages) and appends the
 * post-restoration transition string, so the next model call sees exactly that. After
 * `maxRecoveryIterations` recoveries the agent continues without detection. Detector and
 * selector failures are fail-safe (no recovery / R = E-1); a restore routine that throws is
 * logged and leaves the history untouched.
 */
import { z } from "zod";
import { createMiddleware } from "langchain";
import { HumanMessage, RemoveMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import type { Observation } from "../../src/observation.ts";
import type { HistoryEntry } from "../../src/policy.ts";
import { promptRef, renderPrompt } from "../../src/prompt.ts";
import type { TaskSpec } from "../../src/task.ts";
import type { StepRecord } from "../../src/trajectory.ts";
import { describeError } from "../../src/errors.ts";
import { logger } from "../../src/logger.ts";
import { EpisodeEvents } from "../../src/runtime/events.ts";
import { consumeFrozenStep, detectorGate, initialFreezeState, startFreeze, type FreezeState } from "../../src/runtime/freeze.ts";
import { guardedDetect } from "../../src/runtime/detection.ts";
import { addUsage, bump, emptyAccounting } from "../../src/runtime/accounting.ts";
import type { EpisodeAccounting } from "../../src/episode.ts";
import { createStepSelector, guardedSelect } from "../../src/selectors/index.ts";
import { TRANSITION_PROMPTS } from "../../prompts/index.ts";
import { resolveOptions, type RecoveryMiddlewareOptions, type RestoreResult } from "./options.ts";
import { defaultToActions, describeToolCalls, messagesBeforeStep, messageText, stepStarts } from "./steps.ts";

/** What the middleware keeps in the agent state under `retrace` (JSON; screenshots only as blob references). */
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
  /** `id@version` of every prompt the middleware or its detector/selector/restore routine used. */
  prompts: string[];
}

/** `id@version` of the default (the paper's short) transition string. */
export const MIDDLEWARE_TRANSITION_PROMPT = promptRef(TRANSITION_PROMPTS.short);

const TrackSchema = z.custom<RecoveryTrack>((v) => v === undefined || (typeof v === "object" && v !== null));

function initialTrack(): RecoveryTrack {
  return { ...initialFreezeState(), history: [], tick: 0, seq: 0, accounting: emptyAccounting(), prompts: [] };
}

function taskFrom(messages: readonly BaseMessage[]): TaskSpec {
  const first = messages.find((m) => HumanMessage.isInstance(m));
  return { id: "langchain-task", instruction: first ? messageText(first) : "" };
}

function addPrompt(track: RecoveryTrack, ref: string | undefined): void {
  if (ref && !track.prompts.includes(ref)) track.prompts.push(ref);
}

/**
 * Build the middleware. The returned object is a langchain `AgentMiddleware` with an extra
 * `events` emitter: the runtime's typed {@link EpisodeEvents} (step, detection, freeze,
 * selection, recovery-start, recovery-end, truncate).
 */
export function recoveryMiddleware(options: RecoveryMiddlewareOptions) {
  const o = resolveOptions(options);
  const events = o.events ?? new EpisodeEvents();
  const toActions = o.toActions ?? defaultToActions;
  const selector = createStepSelector(o.recoveryStep, o.selector);

  const middleware = createMiddleware({
    name: "RetraceRecoveryMiddleware",
    stateSchema: z.object({ retrace: TrackSchema.optional() }),
    beforeModel: async (state, runtime) => {
      const signal = (runtime as { signal?: AbortSignal }).signal;
      const messages = state.messages as BaseMessage[];
      const track: RecoveryTrack = structuredClone((state.retrace as RecoveryTrack | undefined) ?? initialTrack());
      const task = o.task ?? taskFrom(messages);
      const starts = stepStarts(messages);
      if (track.history.length > starts.length) track.history = track.history.slice(0, starts.length);

      if (starts.length === track.history.length) {
        // No step completed since the last model call (first call, or a turn without tools).
        if (!track.pending) track.pending = await o.observe();
        return { retrace: track };
      }
      const current = await o.observe();
      for (let t = track.history.length; t < starts.length; t++) {
        const ai = messages[starts[t]] as AIMessage;
        const before = track.pending ?? current;
        const entry: HistoryEntry = { step: t, observation: before, actions: (ai.tool_calls ?? []).flatMap((c) => toActions(c)), response: describeToolCalls(ai) };
        track.history.push(entry);
        track.pending = undefined;
        const record: StepRecord = { seq: track.seq++, role: "forward", step: t, actions: entry.actions, response: entry.response, before: before.screenshot, after: current.screenshot };
        track.accounting = bump(track.accounting, { forwardSteps: 1 });
        events.emit("step", { taskId: task.id, record, tick: ++track.tick });
      }
      track.pending = current;
      const t = track.history.length;

      const gate = detectorGate(track, { maxRecoveryIterations: o.maxRecoveryIterations, hasDetector: true });
      if (gate !== "consult") {
        if (gate === "frozen") {
          Object.assign(track, consumeFrozenStep(track));
          track.accounting = bump(track.accounting, { frozenSkipped: 1 });
        }
        events.emit("freeze", { taskId: task.id, step: t, gate, remaining: track.freezeRemaining });
        return { retrace: track };
      }
      const { detection, failed } = await guardedDetect(
        o.detector,
        { task, history: track.history, observation: current, step: t, tick: track.tick, blobs: o.blobs, signal },
        o.detectorTimeoutMs,
      );
      track.accounting = addUsage(bump(track.accounting, { detectorCalls: 1, detectorFailures: failed ? 1 : 0 }), detection.usage, "detector");
      addPrompt(track, detection.prompt);
      const triggered = detection.isError && detection.errorStep !== null && detection.confidence >= o.minConfidence;
      events.emit("detection", { taskId: task.id, step: t, detection, triggered });
      if (!triggered) return { retrace: track };

      const E = detection.errorStep!;
      const selection = await guardedSelect(selector, {
        task,
        history: track.history,
        errorStep: E,
        detection,
        instanceKey: o.instanceKey ?? task.id,
        seed: o.seed,
        blobs: o.blobs,
        signal,
      });
      addPrompt(track, selection.prompt);
      track.accounting = addUsage(track.accounting, selection.usage, "selector");
      const R = selection.step;
      events.emit("selection", { taskId: task.id, errorStep: E, recoveryStep: R, strategy: o.recoveryStep, selection });
      Object.assign(track, startFreeze(track, o.freezeWindow));
      track.accounting = bump(track.accounting, { recoveryAttempts: 1 });
      const attempt = track.recoveryAttempts;
      const target = { step: R, observation: track.history[R]?.observation ?? current };
      events.emit("recovery-start", { taskId: task.id, attempt, mode: o.restoration, errorStep: E, recoveryStep: R, target: target.observation });
      let result: RestoreResult;
      try {
        result = await o.restore({ step: R, errorStep: E, target, history: track.history, detection, selection, attempt, task, signal });
      } catch (err) {
        const reason = describeError(err);
        logger.error({ attempt, step: R, error: reason }, "restore routine threw; history left untouched");
        events.emit("recovery-end", { taskId: task.id, attempt, mode: o.restoration, restored: false, steps: 0, reason });
        track.pending = await o.observe();
        return { retrace: track };
      }
      const steps = result.steps ?? 0;
      events.emit("recovery-end", { taskId: task.id, attempt, mode: o.restoration, restored: result.restored, steps, reason: result.detail ?? "" });
      track.accounting = addUsage(bump(track.accounting, { recoverySteps: steps }), result.usage, "recoverer");
      for (const ref of result.prompts ?? []) addPrompt(track, ref);
      track.tick += steps;
      const restoredObs = result.observation ?? (await o.observe());

      const kept = messagesBeforeStep(messages, R);
      const transition = TRANSITION_PROMPTS[o.transition];
      const notice = renderPrompt(transition, { step: R });
      const noticeMessage = o.transitionMessage
        ? await o.transitionMessage({ text: notice, step: R, observation: restoredObs })
        : new HumanMessage({ content: notice });
      events.emit("truncate", { taskId: task.id, attempt, from: t, to: R, notice });
      track.history = track.history.slice(0, R);
      track.pending = restoredObs;
      addPrompt(track, promptRef(transition));
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept, noticeMessage], retrace: track };
    },
  });
  return Object.assign(middleware, { events });
}

export type { RecoveryMiddlewareOptions, RestoreRequest, RestoreResult } from "./options.ts";
