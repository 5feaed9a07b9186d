/**
 * `recoveryMiddleware(options)`: retrace's online recovery for a CUA written with langchain's
 * `createAgent` (computer actions as tools). Before each model call it records the step the agent
 * just completed (its tool calls and the observation they acted on) and, through the same gate
 * the LangGraph runtime uses (packages/core/src/runtime/freeze.ts), consults the error-step detector once per
 * step outside the freeze window. On a confident detection it picks the recovery step R
 * (src/selectors), calls the user's restore routine, truncates the message history to the
 * boundary of step R (RemoveMessage REMOVE_ALL_MESSAGES + the kept messages) and appends the
 * post-restoration transition string, so the next model call sees exactly that. After
 * `maxRecoveryIterations` recoveries the agent continues without detection. Detector and
 * selector failures are fail-safe (no recovery / R = E-1); a restore routine that throws is
 * logged and leaves the history untouched (unless the run was aborted: then the error
 * propagates). The loop itself is the one the agent-SDK wrappers drive
 * (adapters/sdk/shared/step-recovery.ts); this file maps messages to steps and applies the cut.
 * Each recovery is also reported to LangChain's callbacks: a custom event `retrace.recovery`
 * (`handleCustomEvent(name, data)`, data a {@link RecoveryReport}: E, R, attempt, restored,
 * confidence, tokens) dispatched in the agent's run, so any callback handler or tracer the run was
 * given (`invoke(input, { callbacks })`, LangSmith) records it.
 */
import { z } from "zod";
import type { createMiddleware as CreateMiddleware } from "langchain";
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import { promptRef } from "@retrace-cua/core/prompt";
import { requireOptional } from "@retrace-cua/core/optional-import";
import type { TaskSpec } from "@retrace-cua/core/task";
import { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import { postRestoration, TRANSITION_PROMPTS } from "@retrace-cua/core/prompts/index";
import {
  initialTrack,
  StepRecovery,
  type CompletedStep,
  type RecoveryTrack,
  type Truncation,
} from "@retrace-cua/core/runtime/step-recovery";
import type { RecoveryReport } from "@retrace-cua/core/runtime/recovery-report";
import { bump } from "@retrace-cua/core/runtime/accounting";
import { isCascadeDetector } from "@retrace-cua/core/detectors/cascade";
import { checkObservation } from "@retrace-cua/core/runtime/user-results";
import { resolveOptions, type RecoveryMiddlewareOptions } from "./options.ts";
import { defaultToActions, describeToolCalls, messagesBeforeStep, messageText, stepStarts } from "./steps.ts";

/** Name of the LangChain custom event dispatched once per recovery (its data is a {@link RecoveryReport}). */
export const RECOVERY_EVENT = "retrace.recovery";

/** `id@version` of the default (the paper's short) transition string. */
export const MIDDLEWARE_TRANSITION_PROMPT = promptRef(TRANSITION_PROMPTS.short);

const TrackSchema = z.custom<RecoveryTrack>((v) => v === undefined || (typeof v === "object" && v !== null));

function taskFrom(messages: readonly BaseMessage[]): TaskSpec {
  const first = messages.find((m) => HumanMessage.isInstance(m));
  return { id: "langchain-task", instruction: first ? messageText(first) : "" };
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
  // The loop shared with the agent-SDK wrappers (adapters/sdk/shared/step-recovery.ts), on the track this middleware
  // keeps in the agent state.
  const onRecovery = async (report: RecoveryReport) => {
    // Within the agent's run (AsyncLocalStorage carries its config); outside a run there is no one to tell.
    await dispatchCustomEvent(RECOVERY_EVENT, report).catch(() => undefined);
    await o.onRecovery?.(report);
  };
  const notice = (cut: Truncation): BaseMessage | Promise<BaseMessage> =>
    o.transitionMessage
      ? o.transitionMessage({
          text: cut.notice,
          step: cut.step,
          observation: cut.observation,
          restored: cut.restored,
          confirmation: cut.confirmation,
        })
      : new HumanMessage({ content: cut.notice });
  const loop = {
    ...o,
    events,
    env: { observe: async () => checkObservation(await o.observe(), 'recoveryMiddleware option "observe"') },
    onRecovery,
    routine: 'recoveryMiddleware option "restore"',
    postRestoration,
  };

  // langchain is an optional peer, loaded here (its CommonJS build: this function is synchronous).
  // Its middleware is a plain object with a Symbol.for brand, so createAgent from its ESM build takes it.
  const { createMiddleware } = requireOptional<{ createMiddleware: typeof CreateMiddleware }>(
    "langchain",
    "recoveryMiddleware (LangChain createAgent)",
  );
  const middleware = createMiddleware({
    name: "RetraceRecoveryMiddleware",
    stateSchema: z.object({ retrace: TrackSchema.optional() }),
    // Option onStuck "stop" (the production preset's recipe): once the recovery attempts are spent and
    // the agent is stuck (the same actions 3 times on a screen they did not change), the run ends here.
    beforeModel: {
      canJumpTo: ["end"],
      hook: async (state, runtime) => {
        const signal = (runtime as { signal?: AbortSignal }).signal;
        const messages = state.messages as BaseMessage[];
        const track: RecoveryTrack = structuredClone((state.retrace as RecoveryTrack | undefined) ?? initialTrack());
        const starts = stepStarts(messages);
        if (track.history.length > starts.length) track.history = track.history.slice(0, starts.length);

        if (starts.length === track.history.length) {
          // No step completed since the last model call (first call, or a turn without tools).
          if (!track.pending) track.pending = await o.observe();
          return { retrace: track };
        }
        const current = await o.observe();
        const completed = starts.slice(track.history.length).map((i): CompletedStep => {
          const ai = messages[i] as AIMessage;
          return { actions: (ai.tool_calls ?? []).flatMap((c) => toActions(c)), response: describeToolCalls(ai) };
        });
        const cut = await new StepRecovery(loop, o.task ?? taskFrom(messages), track).afterSteps(
          completed,
          current,
          signal,
        );
        if (!cut) return track.stuck ? { retrace: track, jumpTo: "end" as const } : { retrace: track };

        const noticeMessage = await notice(cut);
        // History kept (unconfirmed restoration, "disclose-and-keep"): only the notice is added.
        if (!cut.cut) return { messages: [noticeMessage], retrace: track };
        const kept = messagesBeforeStep(messages, cut.step);
        return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept, noticeMessage], retrace: track };
      },
    },
    // The model gave its final answer (no tool call): a cascade that let the last step pass
    // unasked is asked again with `ending` (its before-done gate), as the graph does before DONE
    // and the SDK paths do (StepRecovery.beforeDone). On a detection the answer is discarded
    // (accounting.discardedProposals), recovery has restored step R, the history is cut to R with
    // the notice, and the agent goes back to its model instead of ending.
    // Installed only for a cascade (the production preset): this hook is one more graph node per
    // model call, which counts against LangGraph's recursionLimit; an every-step detector has
    // judged the last step already, so there is nothing to ask again.
    afterModel: !isCascadeDetector(o.detector)
      ? undefined
      : {
          canJumpTo: ["model"],
          hook: async (state, runtime) => {
            const messages = state.messages as BaseMessage[];
            const last = messages.at(-1);
            const track0 = state.retrace as RecoveryTrack | undefined;
            if (
              !last ||
              !AIMessage.isInstance(last) ||
              (last.tool_calls?.length ?? 0) > 0 ||
              track0?.letPass === undefined
            )
              return;
            const track: RecoveryTrack = structuredClone(track0);
            const signal = (runtime as { signal?: AbortSignal }).signal;
            const cut = await new StepRecovery(loop, o.task ?? taskFrom(messages), track).beforeDone(signal);
            if (!cut) return { retrace: track };
            track.accounting = bump(track.accounting, { discardedProposals: 1 });
            const noticeMessage = await notice(cut);
            const kept = cut.cut ? messagesBeforeStep(messages, cut.step) : messages.slice(0, -1);
            return {
              messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept, noticeMessage],
              retrace: track,
              jumpTo: "model" as const,
            };
          },
        },
  });
  return Object.assign(middleware, { events });
}

export type { RecoveryTrack } from "@retrace-cua/core/runtime/step-recovery";
export type { RecoveryMiddlewareOptions, RestoreRequest, RestoreResult } from "./options.ts";
