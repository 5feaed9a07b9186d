/**
 * `createRecovery(options)`: retrace's online recovery for any Vercel AI SDK loop, plugged into
 * the SDK's own per-step hook. `generateText`, `streamText` and `ToolLoopAgent`
 * (`Experimental_Agent`) all call `prepareStep` before every model call with the whole message
 * list (initial messages plus every response message) and send whatever `messages` it returns.
 * `recovery.prepareStep` treats each new assistant message with computer tool calls as one agent
 * step; the step core (../shared/step-recovery.ts) records it, consults the detector outside the
 * freeze window, picks R, runs the restore routine (the recovery sub-agent by default) and says
 * how to change the context; the hook keeps its own view of the conversation
 * (../shared/message-view.ts): the messages before step R's assistant message plus the notice
 * (or, after an unconfirmed restoration with "disclose-and-keep", every message plus the notice).
 * Cut messages are never sent again. With overlapped detection (`detection: "auto"` and a
 * model-latency detector) the hook starts the verdict and returns at once; `retraceComputerTool`
 * holds the next tool call until it arrives, and a fired verdict discards that call and its
 * result at the next `prepareStep` (docs/cost.md, "Latency on the SDK path").
 *
 * Composition: `recovery.compose(yourPrepareStep)` runs retrace's hook first and yours after it,
 * on the messages retrace decided on; what yours returns wins (its `messages` are what this step
 * sends, its settings are merged over retrace's, which sets only `messages`). Retrace's view is
 * not changed by what yours returns, as the SDK does not keep it either.
 *
 * One recovery object serves one run (one episode). A later call with the same object (a
 * multi-turn conversation) continues the episode: pass `recovery.messages()` (the history the
 * model actually saw) as the next call's messages, not the SDK's `response.messages`, which
 * still hold the cut steps. `await recovery.finish(result)` evaluates and returns the
 * EpisodeResult (trajectory, recovery events, accounting).
 */
import type { Action } from "@retrace-cua/core/action";
import type { StopReason } from "@retrace-cua/core/episode";
import type { TaskSpec } from "@retrace-cua/core/task";
import { ConfigError } from "@retrace-cua/core/errors";
import { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import {
  anthropicComputerInputToActions,
  type AnthropicComputerInput,
} from "@retrace-cua/models/actions/anthropic/convert";
import {
  resolveSdkOptions,
  type ResolvedSdkRecoveryOptions,
  type SdkRecoveryOptions,
} from "@retrace-cua/sdk-shared/options";
import { StepRecovery, type CompletedStep, type Truncation } from "@retrace-cua/core/runtime/step-recovery";
import { bump } from "@retrace-cua/core/runtime/accounting";
import { MessageView, describeCalls, type ViewMessage } from "@retrace-cua/sdk-shared/message-view";
import { buildSdkResult, type SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
import { addUsage, emptyAccounting } from "@retrace-cua/core/runtime/accounting";
import { aiSdkUsage, withBilled } from "@retrace-cua/models/models/provider-usage";
import type { RecoveryReport } from "@retrace-cua/core/runtime/recovery-report";
import { degradedSpanReporter, spanReporter, type RecoveryTelemetry } from "./telemetry.ts";
import { checkTelemetry } from "@retrace-cua/sdk-shared/sdk-values";

/** Options of {@link createRecovery}. */
export interface AiSdkRecoveryOptions extends SdkRecoveryOptions {
  /** Names (keys in `tools`) of the computer tools whose calls are agent steps. @default ["computer"] */
  computerTools?: string[];
  /** Maps one tool call's input to Actions, for the detector's history. @default Anthropic's computer tool input */
  toActions?: (input: unknown, toolName: string) => Action[];
  /**
   * One OpenTelemetry span per recovery (`retrace.recovery`, see ./telemetry.ts). Give the tracer
   * you give the AI SDK (`experimental_telemetry: { isEnabled: true, tracer }` in ai 6,
   * `new OpenTelemetry({ tracer })` of `@ai-sdk/otel` in ai 7). @default off
   */
  telemetry?: RecoveryTelemetry;
  /** Called once per recovery with what the span records. */
  onRecovery?: (report: RecoveryReport) => void | Promise<void>;
}

/** What `prepareStep` is given (the fields read here; every AI SDK version passes more). */
export interface PrepareStepArgs<M extends ViewMessage = ViewMessage> {
  messages: M[];
  stepNumber: number;
}

/** What the SDK's result gives `finish` (values or promises: `generateText`'s result, `streamText`'s, an agent's). */
export interface FinishInput {
  finishReason: string | PromiseLike<string>;
  text: string | PromiseLike<string>;
  /**
   * The call's usage over all its steps (`LanguageModelUsage`), when the SDK gives it: finish() results'
   * tokens.roles.policy.
   */
  totalUsage?: unknown;
}

function defaultToActions(input: unknown): Action[] {
  try {
    const i = input as AnthropicComputerInput;
    return i?.action === "screenshot" ? [] : anthropicComputerInputToActions(i);
  } catch {
    return []; // unusable model output: a recorded step without actions
  }
}

function instructionOf(messages: readonly ViewMessage[]): string {
  const first = messages.find((m) => m.role === "user");
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return Array.isArray(first.content)
    ? (first.content as { type?: string; text?: string }[])
        .filter((p) => p?.type === "text")
        .map((p) => p.text ?? "")
        .join("\n")
    : "";
}

const NO_HOOK =
  "createRecovery: retrace's prepareStep never ran, so this action would go unjudged: pass recovery.prepareStep (or recovery.compose(yours)) as prepareStep of the AI SDK call";

/** The recovery of one AI SDK run; see the module comment. */
export class AiSdkRecovery {
  private readonly o: ResolvedSdkRecoveryOptions;
  private readonly isStep: (name: string) => boolean;
  private readonly toActions: (input: unknown, toolName: string) => Action[];
  private view: MessageView<ViewMessage>;
  private loop: StepRecovery | undefined;
  /** The SDK's own model calls (policy) of the finished calls, summed (finish() results' tokens.roles.policy). */
  private policyUsage = emptyAccounting();
  private readonly emitter: EpisodeEvents;
  private started = 0;
  private envMs0 = 0;
  /**
   * The verdict (and recovery) on the last steps, computed while the model answers (overlapped detection), and the
   * view's length then.
   */
  private pending: { judged: Promise<Truncation | null>; viewLength: number } | undefined;

  constructor(options: AiSdkRecoveryOptions) {
    const {
      computerTools = ["computer"],
      toActions = defaultToActions,
      telemetry,
      onRecovery,
      ...rest
    } = options ?? ({} as AiSdkRecoveryOptions);
    if (!Array.isArray(computerTools) || computerTools.some((n) => typeof n !== "string"))
      throw new ConfigError('createRecovery: option "computerTools" must be a list of tool names', {
        field: "computerTools",
      });
    this.o = resolveSdkOptions("createRecovery", rest);
    this.emitter = this.o.events ?? new EpisodeEvents();
    const spans = spanReporter(checkTelemetry("createRecovery", telemetry));
    const degraded = degradedSpanReporter(telemetry);
    if (degraded) this.emitter.on("degraded", (e) => void degraded(e).catch(() => undefined));
    this.reporters = [spans, onRecovery].filter(
      (r): r is (r: RecoveryReport) => void | Promise<void> => typeof r === "function",
    );
    this.isStep = (name) => computerTools.includes(name);
    // Nothing unjudged executes: retrace's computer tool refuses to act before retrace's prepareStep ran.
    this.o.meter.onAction = this.guard;
    this.toActions = toActions;
    this.view = new MessageView(this.isStep);
  }

  private readonly reporters: ((r: RecoveryReport) => void | Promise<void>)[];

  private readonly guard = (): void => {
    if (!this.loop) throw new ConfigError(NO_HOOK, { field: "prepareStep" });
  };

  /** The runtime's typed episode events (step, detection, selection, recovery-start/end, truncate). */
  get events(): EpisodeEvents {
    return this.emitter;
  }

  /**
   * The `prepareStep` hook: pass it as `prepareStep` of `generateText`, `streamText` or the agent.
   * Returns the messages this step sends (retrace's view).
   */
  readonly prepareStep = async <A extends PrepareStepArgs>(
    args: A,
  ): Promise<{ messages: A["messages"]; toolChoice?: "none"; activeTools?: [] }> => {
    this.o.meter.throwRefused(); // a screenshot retrace's computer tool refused: the call stops with its line
    if (!this.loop) {
      this.loop = new StepRecovery(
        { ...this.o, events: this.emitter, onRecovery: (r) => this.report(r) },
        this.o.task ?? ({ id: "sdk-task", instruction: instructionOf(args.messages) } satisfies TaskSpec),
      );
      this.started = Date.now();
      this.envMs0 = this.o.meter.ms;
      this.loop.start(await this.o.meter.observe()); // fresh: the environment may have been reset since the meter last saw it
      this.view.restart(args.messages);
    } else if (args.stepNumber === 0) {
      this.view.restart(args.messages); // a later call of the same run: its input is context, not new steps
    }
    // Overlapped detection: the verdict on the previous step(s), computed while the model produced
    // what is new now. When it fired, that output was never executed (retrace's computer tool held
    // it): it is discarded with its tool results (never sent again, never a step) and the context
    // is cut as the sequential flow cuts it.
    const heldFrom = this.pending?.viewLength;
    const verdict = await this.settle();
    let steps: CompletedStep[] = this.view.absorb(args.messages).map((calls) => ({
      actions: calls.flatMap((c) => this.toActions(c.input, c.toolName)),
      response: describeCalls(calls),
    }));
    if (verdict) {
      this.discard(verdict.truncation, verdict.viewLength);
      steps = [];
    } else if (heldFrom !== undefined && this.loop.state.stuck) {
      // Overlapped detection found the agent stuck: the output the model produced meanwhile was held and
      // dropped (never executed); it is discarded, and the call ends below (option onStuck "stop").
      this.view.dropAfter(heldFrom);
      this.loop.state.accounting = bump(this.loop.state.accounting, { discardedProposals: 1 });
      steps = [];
    }
    if (steps.length > 0) {
      // The screen after the last tool call, as the tool recorded it (observed only when it recorded none).
      const judged = this.loop.afterSteps(steps, await this.o.meter.current(), this.o.signal);
      if (this.overlaps()) {
        // The model's next call starts now; retrace's computer tool holds its action until the verdict.
        judged.catch(() => undefined); // taken in (and rethrown) by the next prepareStep or finish()
        this.pending = { judged, viewLength: this.view.length };
        this.o.meter.holdUntil(
          judged.then(
            (t) => t === null && !this.loop!.state.stuck,
            () => false,
          ),
        );
      } else {
        const outcome = await judged;
        if (outcome) this.view.apply(outcome);
      }
    }
    const messages = this.view.messages() as A["messages"];
    // Option onStuck "stop" (the production preset's recipe): the recovery attempts are spent and the
    // agent is stuck (the same actions 3 times on a screen they did not change): the model is asked once
    // more without tools, so its answer ends the call; finish() reports stop reason "stuck".
    return this.loop.state.stuck ? { messages, toolChoice: "none", activeTools: [] } : { messages };
  };

  /**
   * Detection overlaps the next model call when asked ("auto": a model-latency detector) and retrace's computer tool
   * holds actions.
   */
  private overlaps(): boolean {
    const mode = this.o.detection;
    if (mode === "sequential") return false;
    if (mode === "auto" && this.o.detector.latency !== "model") return false;
    return this.o.meter.holding;
  }

  /**
   * Wait for the pending verdict and stop holding actions; the truncation when it fired, else null. Rethrows its error.
   */
  private async settle(): Promise<{ truncation: Truncation; viewLength: number } | null> {
    const pending = this.pending;
    if (!pending) return null;
    this.pending = undefined;
    try {
      const truncation = await pending.judged;
      return truncation ? { truncation, viewLength: pending.viewLength } : null;
    } finally {
      this.o.meter.release();
    }
  }

  /** Drop what the model produced after the judged steps, count it discarded, apply the recovery's cut. */
  private discard(t: Truncation, viewLength: number): void {
    this.view.dropAfter(viewLength);
    this.view.apply(t);
    this.loop!.state.accounting = bump(this.loop!.state.accounting, { discardedProposals: 1 });
  }

  /**
   * Your `prepareStep` composed with retrace's: retrace's runs first; yours gets the messages it
   * decided on, and what yours returns wins (settings merged over `{ messages }`).
   */
  compose<A extends PrepareStepArgs, R extends object | undefined | void>(
    yours: ((args: A) => R | PromiseLike<R>) | undefined,
  ): (args: A) => Promise<Exclude<R, undefined | void> & { messages: A["messages"] }> {
    if (yours === undefined)
      return this.prepareStep as (args: A) => Promise<Exclude<R, undefined | void> & { messages: A["messages"] }>;
    if (typeof yours !== "function")
      throw new ConfigError("createRecovery: compose() takes your prepareStep function", { field: "prepareStep" });
    return async (args: A) => {
      const ours = await this.prepareStep(args);
      const theirs = (await yours({ ...args, messages: ours.messages })) as Record<string, unknown> | undefined;
      if (Array.isArray(theirs?.messages)) this.view.markSent(theirs.messages as ViewMessage[]);
      return { ...ours, ...(theirs ?? {}) } as Exclude<R, undefined | void> & { messages: A["messages"] };
    };
  }

  /** The conversation as retrace keeps it (cut steps left out, notices in), for the next call of a multi-turn run. */
  messages(): ViewMessage[] {
    return this.view.snapshot();
  }

  /** Evaluate (unless `evaluate: false`) and return the episode's result, with the SDK's own result as `sdkResult`. */
  async finish<T extends FinishInput>(result: T): Promise<SdkEpisodeResult<T>> {
    if (this.o.meter.onAction === this.guard) this.o.meter.onAction = undefined;
    this.o.meter.throwRefused();
    if (!this.loop)
      throw new ConfigError(
        "createRecovery: finish() before any step ran: pass recovery.prepareStep (or compose()) as prepareStep of the AI SDK call",
        { field: "prepareStep" },
      );
    const [finishReason, text, totalUsage, metadata] = await Promise.all([
      result.finishReason,
      result.text,
      result.totalUsage,
      (result as { providerMetadata?: unknown }).providerMetadata,
    ]);
    // A verdict still pending (the model answered with text after the last step): take it in;
    // when it fired, recovery has run and that answer is discarded from `messages()`.
    const late = await this.settle();
    if (late) this.discard(late.truncation, late.viewLength);
    // cache prices: Anthropic's when the provider says it is Anthropic (its metadata key), else OpenAI's
    const provider = metadata && typeof metadata === "object" && "anthropic" in metadata ? "anthropic" : "openai";
    const stopReason: StopReason = this.loop.state.stuck
      ? "stuck"
      : finishReason === "tool-calls"
        ? "max-steps"
        : "done";
    // The call ended on the model's final answer: a cascade that let the last step pass unasked is
    // asked again with `ending` (its before-done gate), as the graph does before DONE. When it
    // fires, recovery runs now and the answer is discarded from `messages()`.
    if (!late && stopReason === "done") {
      const ending = await this.loop.beforeDone(this.o.signal);
      if (ending) this.discard(ending, this.view.length);
    }
    // the SDK's own model calls of this call (cached prompt tokens included), summed over the episode's calls
    if (totalUsage && typeof totalUsage === "object")
      this.policyUsage = addUsage(
        this.policyUsage,
        [{ role: "policy", model: "sdk", ...withBilled(aiSdkUsage(totalUsage), provider), latencyMs: 0 }],
        "policy",
      );
    const policy = this.policyUsage.models.policy;
    return buildSdkResult(this.o, this.loop, {
      result,
      finalOutput: text,
      ...(policy && { policy }),
      stopReason,
      wallMs: Date.now() - this.started,
      envMs: this.o.meter.ms - this.envMs0,
    });
  }

  private async report(r: RecoveryReport): Promise<void> {
    for (const rep of this.reporters) await rep(r);
  }
}

/** Build the recovery of one AI SDK run (validates the options; a ConfigError names the first bad one). */
export function createRecovery(options: AiSdkRecoveryOptions): AiSdkRecovery {
  return new AiSdkRecovery(options);
}
