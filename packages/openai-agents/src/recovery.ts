/**
 * `createAgentsRecovery(options)`: retrace's online recovery as a value that plugs into the
 * OpenAI Agents SDK's own loop. Spread `recovery.runConfig` into the options of your `run()`
 * (streamed or not) or into `new Runner(config)`; after the run, `await recovery.finish(result)`.
 *
 * The SDK calls `RunConfig.callModelInputFilter` before every model call with the whole turn
 * input (the run's input plus every generated item). Each new `computer_call` item is one agent
 * step: the step core (../shared/step-recovery.ts) records it, consults the detector outside the
 * freeze window, picks R, runs the restore routine on the environment and returns the cut. The
 * filter keeps its own view of the conversation: the items before step R's `computer_call` (and
 * the reasoning that led to it), the transition string as a user message, then whatever the run
 * generates afterwards. Cut items are never sent again, in this run or in a later run fed with
 * them. Each recovery is a custom span in the SDK's trace (./tracing.ts).
 *
 * Overlapped detection (`detection: "auto"` with a model-latency detector, or "overlapped"): the
 * filter starts the verdict on the new steps and returns at once, so the judge runs while the
 * model produces the next step; retrace's computer (`RetraceComputer`, through the environment's
 * meter) holds that step's action until the verdict. Off track: the action is not executed, the
 * recovery runs, and the next filter call discards the model's output (cut keys) and cuts as the
 * sequential flow does. A run whose filter was replaced by the user's own (in `run()`'s options)
 * is refused: the computer will not act and `finish()` throws a ConfigError.
 *
 * `finish(result)` waits for a streamed run to complete, makes `result.history` the history the
 * model saw (the SDK's own getter rebuilds it from every generated item, cut steps included), and
 * returns the episode result. The next run with the same `runConfig` continues the episode: the
 * SDK's multi-turn pattern (`run(agent, result.history.concat(message), recovery.runConfig)`) sends
 * no cut step. Server-kept conversations (`previousResponseId`, `conversationId`) send only the
 * new items each turn, so there is no history to cut: do not combine them with this config.
 */
import { EpisodeStuckError } from "@retrace-cua/core/runtime/stuck";
import {
  MaxTurnsExceededError,
  type AgentInputItem,
  type CallModelInputFilter,
  type CallModelInputFilterArgs,
  type ModelInputData,
  type RunResult,
  type StreamedRunResult,
} from "@openai/agents";
import type { Action } from "@retrace-cua/core/action";
import type { StopReason } from "@retrace-cua/core/episode";
import { EpisodeEvents } from "@retrace-cua/core/runtime/events";
import type { TaskSpec } from "@retrace-cua/core/task";
import { ConfigError } from "@retrace-cua/core/errors";
import {
  openAIComputerActionToActions,
  type OpenAIComputerAction,
} from "@retrace-cua/models/actions/openai-cua/convert";
import {
  resolveSdkOptions,
  type ResolvedSdkRecoveryOptions,
  type SdkRecoveryOptions,
} from "@retrace-cua/sdk-shared/options";
import {
  StepRecovery,
  type CompletedStep,
  type StepRecoveryState,
  type Truncation,
} from "@retrace-cua/core/runtime/step-recovery";
import { bump } from "@retrace-cua/core/runtime/accounting";
import { buildSdkResult, type SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
import { addUsage, emptyAccounting } from "@retrace-cua/core/runtime/accounting";
import { agentsUsage, withBilled } from "@retrace-cua/models/models/provider-usage";
import { RecoverySpans } from "./tracing.ts";

/** Options of {@link createAgentsRecovery}: the shared SDK options plus a filter of your own. */
export interface AgentsRecoveryOptions extends SdkRecoveryOptions {
  /** A `callModelInputFilter` of your own; it runs on retrace's output (the cut input). @default none */
  callModelInputFilter?: CallModelInputFilter;
}

/** A run's result as `run()` or `Runner.run()` returns it, streamed or not. */
export type AgentsRunResult = RunResult<any, any> | StreamedRunResult<any, any>;

/** What to spread into `run()`'s options or `new Runner(...)`'s config. */
export interface AgentsRecoveryRunConfig {
  callModelInputFilter: CallModelInputFilter;
}

type Item = AgentInputItem & {
  type?: string;
  role?: string;
  id?: string;
  callId?: string;
  action?: OpenAIComputerAction;
  actions?: OpenAIComputerAction[];
};

/** The actions of one `computer_call` item (unusable model output maps to none: a recorded, counted mistake). */
function itemActions(item: Item): Action[] {
  const raw = Array.isArray(item.actions) && item.actions.length > 0 ? item.actions : item.action ? [item.action] : [];
  return raw.flatMap((a) => {
    try {
      return openAIComputerActionToActions(a);
    } catch {
      return [];
    }
  });
}

const isCall = (item: Item): boolean => item.type === "computer_call";
/** The identity of an item across runs (tool calls and their outputs share the call id). */
const itemKey = (item: Item): string | undefined => item.callId ?? item.id;

/** The task text of a run input: its first user message. */
function taskText(items: readonly Item[]): string {
  const first = items.find((i) => i.role === "user") as { content?: unknown } | undefined;
  if (typeof first?.content === "string") return first.content;
  return first?.content !== undefined ? JSON.stringify(first.content) : "";
}

const OVERRIDDEN =
  "createAgentsRecovery: retrace's callModelInputFilter never ran in this run: a callModelInputFilter in run()'s options replaced it (`{ ...recovery.runConfig, callModelInputFilter: mine }`); pass yours as createAgentsRecovery({ callModelInputFilter: mine }) (it then runs on retrace's output), or spread recovery.runConfig last";

/** The recovery of one episode, plugged into the SDK's loop through {@link runConfig}. */
export class AgentsRecovery {
  /** Spread into `run(agent, input, { ...recovery.runConfig, ... })` or `new Runner({ ...recovery.runConfig })`. */
  readonly runConfig: AgentsRecoveryRunConfig;
  private readonly o: ResolvedSdkRecoveryOptions;
  private readonly userFilter: CallModelInputFilter | undefined;
  private core: StepRecovery | undefined;
  private spans: RecoverySpans | undefined;
  private readonly started = Date.now();
  private readonly envMs0: number;
  /** Retrace's view of the current run's conversation (what the model is sent). */
  private view: Item[] = [];
  /** How many items of the SDK's turn input the view has taken in. */
  private consumed = 0;
  private firstItem: string | undefined;
  private runOver = false;
  /** The call id of each step in the core's history (cut with it). */
  private stepCalls: string[] = [];
  /** The SDK's own model calls (policy) of the finished runs, summed (finish() results' tokens.roles.policy). */
  private policyUsage = emptyAccounting();
  private readonly recorded = new Set<string>();
  private readonly cutKeys = new Set<string>();
  /** The verdict (and recovery) on the last steps, computed while the model answers (overlapped detection). */
  private pending: Promise<Truncation | null> | undefined;
  /** Whether retrace's filter ran in the current run (a filter of the user's own in `run()`'s options replaces it). */
  private filterRan = false;
  /** Set when retrace's computer was asked to act but the filter never ran: finish() throws it. */
  private overridden: ConfigError | undefined;

  constructor(options: AgentsRecoveryOptions) {
    const { callModelInputFilter, ...rest } = options ?? ({} as AgentsRecoveryOptions);
    if (callModelInputFilter !== undefined && typeof callModelInputFilter !== "function")
      throw new ConfigError('createAgentsRecovery: option "callModelInputFilter" must be a function', {
        field: "callModelInputFilter",
      });
    // Sessions store the cut items without the transition notice, so a resumed session would resend cut steps
    // (docs/openai-agents.md).
    if ((rest as Record<string, unknown>).session !== undefined)
      throw new ConfigError(
        'createAgentsRecovery: option "session" is not supported: a session keeps the steps recovery cuts and would resend them when resumed; pass the whole history as input each run instead',
        { field: "session" },
      );
    const resolved = resolveSdkOptions("createAgentsRecovery", rest);
    this.o = { ...resolved, events: resolved.events ?? new EpisodeEvents() };
    this.userFilter = callModelInputFilter;
    this.envMs0 = this.o.meter.ms;
    this.runConfig = { callModelInputFilter: (args) => this.filter(args) };
    // Nothing unjudged executes: retrace's computer refuses to act in a run where this filter never
    // ran (until finish(); a later run's override is caught by finish(), from the run's model calls).
    this.o.meter.onAction = this.guard;
  }

  private readonly guard = (): void => {
    if (this.filterRan) return;
    throw (this.overridden ??= new ConfigError(OVERRIDDEN, { field: "callModelInputFilter" }));
  };

  /** The episode's events (the `events` option, or the emitter created for it). */
  get events(): EpisodeEvents {
    return this.o.events!;
  }

  /** The recovery loop's state so far (history, accounting, trajectory), once the first run has started. */
  get state(): Readonly<StepRecoveryState> | undefined {
    return this.core?.state as StepRecoveryState | undefined;
  }

  /** The history the model saw in the current (or last) run: retrace's view, before a filter of your own. */
  history(): AgentInputItem[] {
    return structuredClone(this.view) as AgentInputItem[];
  }

  private ensureCore(items: readonly Item[] | undefined): StepRecovery {
    if (!this.core) {
      const task: TaskSpec = this.o.task ?? { id: "sdk-task", instruction: taskText(items ?? []) };
      this.core = new StepRecovery(this.o, task);
      this.spans = new RecoverySpans(this.core.events);
    }
    return this.core;
  }

  private async filter(args: CallModelInputFilterArgs<any>): Promise<ModelInputData> {
    this.filterRan = true;
    this.o.meter.throwRefused(); // a screenshot retrace's computer refused: the run stops with its line
    const all = args.modelData.input as Item[];
    const first = all.length > 0 ? JSON.stringify(all[0]) : "";
    if (this.runOver || all.length < this.consumed || (this.consumed > 0 && first !== this.firstItem)) {
      // A new run (after finish(), or its input is not this run's): start a new view, the episode continues.
      this.view = [];
      this.consumed = 0;
      this.runOver = false;
    }
    if (this.consumed === 0) this.firstItem = first;
    const fresh = this.core === undefined;
    const core = this.ensureCore(all);
    // The screen the first step acts on: the computer's look at run start (RetraceComputer.initRun), else a fresh one.
    if (fresh) core.start(await this.o.meter.current());

    // Overlapped detection: the verdict on the previous step(s), computed while the model produced
    // what is new now. When it fired, that output was never executed (the computer held it) and
    // is discarded: never sent again, never a step; the context is cut as the sequential flow cuts it.
    const held = this.pending !== undefined;
    const verdict = await this.settle();
    if (!verdict && held && core.state.stuck) {
      // Overlapped detection found the agent stuck: the output the model produced meanwhile was held and
      // dropped (never executed); the run ends here (option onStuck "stop").
      core.state.accounting = bump(core.state.accounting, { discardedProposals: 1 });
      throw new EpisodeStuckError(core.state.stuck);
    }
    if (verdict) {
      for (const i of all.slice(this.consumed)) {
        const key = itemKey(i);
        if (key !== undefined) this.cutKeys.add(key);
      }
      this.consumed = all.length;
      core.state.accounting = bump(core.state.accounting, { discardedProposals: 1 });
      this.apply(verdict);
    }

    const added = all.slice(this.consumed).filter((i) => {
      const key = itemKey(i);
      return key === undefined || !this.cutKeys.has(key);
    });
    this.consumed = all.length;
    this.view = this.view.concat(added);
    const calls = added.filter((i) => isCall(i) && !this.recorded.has(itemKey(i) ?? ""));
    if (calls.length > 0) {
      const steps: CompletedStep[] = calls.map((item) => ({
        actions: itemActions(item),
        response: `computer_call(${JSON.stringify(item.actions ?? item.action ?? {})})`,
      }));
      for (const c of calls) {
        const key = itemKey(c) ?? `step_${this.stepCalls.length}`;
        this.recorded.add(key);
        this.stepCalls.push(key);
      }
      // The screen after the last action, as the computer recorded it (observed only when it recorded none).
      const current = await this.o.meter.current();
      this.spans!.begin(core.state.accounting);
      const judged = core.afterSteps(steps, current, this.o.signal);
      if (this.overlaps()) {
        // The model's next call starts now; retrace's computer holds its action until the verdict.
        judged.catch(() => undefined); // taken in (and rethrown) by the next filter call or finish()
        this.pending = judged;
        this.o.meter.holdUntil(
          judged.then(
            (t) => t === null && !core.state.stuck,
            () => false,
          ),
        );
      } else {
        try {
          const cut = await judged;
          if (cut) this.apply(cut);
        } finally {
          this.spans!.end(core.state.accounting);
        }
      }
    }
    // Option onStuck "stop" (the production preset's recipe): the recovery attempts are spent and the
    // agent is stuck (the same actions 3 times on a screen they did not change): the run ends here, run()
    // rejects with EpisodeStuckError and finish(err) reports stop reason "stuck".
    if (core.state.stuck) throw new EpisodeStuckError(core.state.stuck);
    const out: ModelInputData = {
      input: structuredClone(this.view) as AgentInputItem[],
      ...(args.modelData.instructions !== undefined && { instructions: args.modelData.instructions }),
    };
    return this.userFilter ? this.userFilter({ ...args, modelData: out }) : out;
  }

  /**
   * Detection overlaps the next model call when asked ("auto": a model-latency detector) and retrace's computer holds
   * actions.
   */
  private overlaps(): boolean {
    const mode = this.o.detection;
    if (mode === "sequential") return false;
    if (mode === "auto" && this.o.detector.latency !== "model") return false;
    return this.o.meter.holding;
  }

  /**
   * Wait for the pending verdict (overlapped detection), stop holding actions; its truncation, or null. Rethrows its
   * error.
   */
  private async settle(): Promise<Truncation | null> {
    const pending = this.pending;
    if (!pending) return null;
    this.pending = undefined;
    try {
      return await pending;
    } finally {
      this.o.meter.release();
      this.spans!.end(this.core!.state.accounting);
    }
  }

  /**
   * Apply a recovery's outcome to the view: cut to R with the notice, or (unconfirmed, history kept) append the notice.
   */
  private apply(t: Truncation): void {
    if (t.cut) this.cutAt(t.step, t.notice);
    else this.view = [...this.view, { role: "user", content: t.notice } as Item];
  }

  /** Cut the view before step `step`'s call (and the reasoning that led to it), append the notice. */
  private cutAt(step: number, notice: string): void {
    const key = this.stepCalls[step];
    let at = key === undefined ? -1 : this.view.findIndex((i) => isCall(i) && itemKey(i) === key);
    if (at < 0) at = this.view.length;
    while (at > 0 && this.view[at - 1].type === "reasoning") at--;
    for (const i of this.view.slice(at)) {
      const k = itemKey(i);
      if (k !== undefined) this.cutKeys.add(k);
    }
    this.view = [...this.view.slice(0, at), { role: "user", content: notice } as Item];
    this.stepCalls = this.stepCalls.slice(0, step);
  }

  /**
   * End the current run: pass what `run()` returned (streamed or not), or the error it threw. A
   * streamed run is awaited to completion. `result.history` becomes the history the model saw
   * (history before R, the transition string, what followed), so feeding it into the next run is
   * safe. Evaluates the environment's task (option `evaluate`) and returns the episode so far.
   * `MaxTurnsExceededError`, an abort and a stuck stop (option `onStuck`) end the episode ("max-steps", "aborted",
   * "stuck"); any other
   * error is rethrown.
   */
  async finish<R extends AgentsRunResult>(outcome: R | Error): Promise<SdkEpisodeResult<R | undefined>> {
    let stopReason: StopReason = "done";
    let result: R | undefined;
    const classify = (err: unknown): StopReason => {
      if (err instanceof MaxTurnsExceededError) return "max-steps";
      if (
        err instanceof EpisodeStuckError ||
        (err as { cause?: unknown } | undefined)?.cause instanceof EpisodeStuckError
      )
        return "stuck";
      if (this.o.signal?.aborted || (err as { name?: string } | undefined)?.name === "AbortError") return "aborted";
      throw err;
    };
    if (outcome instanceof Error) stopReason = classify(outcome);
    else result = outcome;
    if (result && "completed" in result) {
      try {
        await result.completed; // rejects with the run's error
      } catch (err) {
        stopReason = classify(err);
      }
    }
    // A verdict still pending (the run ended on the model's answer after the last step): take it
    // in. When it fired, recovery has run; the answer is discarded like any output after an off-track step.
    let late = await this.settle();
    // The run ended on the model's final answer: a cascade that let the last step pass unasked is
    // asked again with `ending` (its before-done gate), as the graph does before DONE. When it
    // fires, recovery runs now and the answer is discarded, as with a late verdict above.
    if (!late && stopReason === "done" && this.core && !this.overridden) {
      this.spans!.begin(this.core.state.accounting);
      try {
        late = await this.core.beforeDone(this.o.signal);
      } finally {
        this.spans!.end(this.core.state.accounting);
      }
    }
    if (late) {
      this.ensureCore([]).state.accounting = bump(this.core!.state.accounting, { discardedProposals: 1 });
      this.apply(late);
      if (result) this.consumed = (result.history as Item[]).length;
    }
    const ran = this.filterRan;
    this.filterRan = false;
    if (this.o.meter.onAction === this.guard) this.o.meter.onAction = undefined;
    this.runOver = true;
    if (this.overridden) throw this.overridden;
    this.o.meter.throwRefused();
    if (!ran && result && ((result as { rawResponses?: unknown[] }).rawResponses?.length ?? 0) > 0)
      throw new ConfigError(OVERRIDDEN, { field: "callModelInputFilter" });
    if (result && this.consumed > 0) {
      const seen = [...this.view, ...(result.history as Item[]).slice(this.consumed)];
      Object.defineProperty(result, "history", {
        configurable: true,
        enumerable: false,
        get: () => structuredClone(seen) as AgentInputItem[],
      });
    }
    const core = this.ensureCore([]);
    let finalOutput: string | undefined;
    if (result && stopReason === "done") {
      const out = result.finalOutput as unknown;
      if (typeof out === "string") finalOutput = out;
    }
    // the SDK's own model calls of this run (its usage, cached prompt tokens included), summed over the episode's runs
    for (const r of (result?.rawResponses ?? []) as Array<{ usage?: unknown }>)
      this.policyUsage = addUsage(
        this.policyUsage,
        [{ role: "policy", model: "sdk", ...withBilled(agentsUsage(r?.usage)), latencyMs: 0 }],
        "policy",
      );
    const policy = this.policyUsage.models.policy;
    return buildSdkResult(this.o, core, {
      result,
      ...(finalOutput !== undefined && { finalOutput }),
      ...(policy && { policy }),
      stopReason,
      wallMs: Date.now() - this.started,
      envMs: this.o.meter.ms - this.envMs0,
    });
  }
}

/**
 * Recovery for an Agents SDK agent run by your own `run()` or `Runner`. The agent's computer tool
 * must act on `options.env` (e.g. `computerTool({ computer: retraceComputer({ env, blobs }) })`).
 * One value per episode; a bad option throws a ConfigError naming it.
 */
export function createAgentsRecovery(options: AgentsRecoveryOptions): AgentsRecovery {
  return new AgentsRecovery(options);
}
