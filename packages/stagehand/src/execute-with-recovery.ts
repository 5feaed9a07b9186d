/**
 * `executeWithRecovery(agent, executeOptions, options)`: retrace's online recovery for a Stagehand
 * agent (`stagehand.agent({ mode: "hybrid" | "dom" })` of `@browserbasehq/stagehand` 3.x), the
 * agent left as it is: it calls the agent's own `execute()`, whose loop is `generateText` of the
 * Vercel AI SDK 5, and intercepts in the loop's per-step hook, the `callbacks.prepareStep` that
 * Stagehand passes through. Each new assistant message with an acting tool call (`click`,
 * `type`, `keys`, `act`, `goto`, ...; not `screenshot`, `ariaTree`, `extract`, `think`, `wait`)
 * is one agent step; the step core (../shared/step-recovery.ts) records it with the environment's
 * observation after it, consults the detector outside the freeze window, picks R, runs the
 * recovery sub-agent on the environment (the same page, through retrace's browser environment)
 * and returns the cut, which the shared message view (../shared/message-view.ts) applies: every
 * later model call of the loop gets the messages before step R's, then the transition string.
 *
 * Stagehand must share the environment's browser: launch it with `cdp: true` and construct
 * Stagehand with `localBrowserLaunchOptions: { cdpUrl: env.cdpUrl }` and `experimental: true`
 * (Stagehand 3.x accepts agent callbacks only then). The episode's page is passed as `page`.
 * Not covered: `mode: "cua"` agents (Stagehand's CUA clients run their own loop with no per-step
 * hook, and its OpenAI client chains `previous_response_id`, a server-kept history that cannot be
 * cut); and Stagehand's closing "done" call, which summarises the run from its own full message
 * list after the loop, the cut steps included (it takes no action).
 */
import type { AgentExecuteOptions, AgentResult } from "@browserbasehq/stagehand";
import type { Action } from "@retrace-cua/core/action";
import type { StopReason } from "@retrace-cua/core/episode";
import { ConfigError } from "@retrace-cua/core/errors";
import type { TaskSpec } from "@retrace-cua/core/task";
import { MessageView, describeCalls, type ViewMessage } from "@retrace-cua/sdk-shared/message-view";
import { resolveSdkOptions, type SdkRecoveryOptions } from "@retrace-cua/sdk-shared/options";
import { buildSdkResult, type SdkEpisodeResult } from "@retrace-cua/sdk-shared/result";
import { StepRecovery, type CompletedStep } from "@retrace-cua/core/runtime/step-recovery";
import { STAGEHAND_READ_ONLY_TOOLS, stagehandToolCallToActions } from "./convert.ts";

/** What {@link executeWithRecovery} needs of a Stagehand agent (what `stagehand.agent()` returns). */
export interface StagehandAgent {
  execute(options: AgentExecuteOptions): Promise<AgentResult>;
}

/** Options of {@link executeWithRecovery}: the shared SDK recovery options plus Stagehand's tools. */
export interface ExecuteWithRecoveryOptions extends SdkRecoveryOptions {
  /**
   * Tools whose calls are agent steps. @default every tool except Stagehand's read-only ones (screenshot, ariaTree,
   * extract, think, wait, search, done)
   */
  stepTools?: string[];
  /** Maps one tool call to Actions, for the detector's history. @default Stagehand's coordinate tools (./convert.ts) */
  toActions?: (toolName: string, input: unknown) => Action[];
}

type PrepareStep = NonNullable<NonNullable<AgentExecuteOptions["callbacks"]>["prepareStep"]>;

const WHERE = "executeWithRecovery";

/** How long Stagehand may take to attach to a page the environment just opened (a new context per episode). */
const PAGE_ATTACH_MS = 5_000;

/**
 * `agent.execute`, retried while Stagehand has not yet attached to the episode's page: it attaches
 * to new CDP targets asynchronously, and `execute` rejects a page it does not know yet before it
 * runs anything (seen once here for a page opened by `env.reset` a moment before; 1.5 s later
 * Stagehand knew it).
 */
async function executeOnPage(agent: StagehandAgent, options: AgentExecuteOptions): Promise<AgentResult> {
  const deadline = Date.now() + PAGE_ATTACH_MS;
  for (;;) {
    try {
      return await agent.execute(options);
    } catch (err) {
      const unknownPage =
        (err as Error)?.name === "StagehandInitError" && /resolve V3 Page/.test((err as Error).message);
      if (!unknownPage || !options.page || Date.now() > deadline || options.signal?.aborted) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * Run `agent.execute(executeOptions)` with retrace's recovery. `options.env` must be the browser
 * environment whose Chromium the agent's Stagehand is connected to; its current page is passed
 * as `page` unless `executeOptions.page` is given. A `prepareStep` of the caller runs after
 * retrace's, on the cut messages.
 */
export async function executeWithRecovery(
  agent: StagehandAgent,
  executeOptions: AgentExecuteOptions | string,
  options: ExecuteWithRecoveryOptions,
): Promise<SdkEpisodeResult<AgentResult>> {
  const { stepTools, toActions = stagehandToolCallToActions, ...rest } = options ?? ({} as ExecuteWithRecoveryOptions);
  const o = resolveSdkOptions(WHERE, rest);
  if (typeof agent?.execute !== "function")
    throw new ConfigError(
      `${WHERE}: the first argument must be a Stagehand agent (stagehand.agent({ mode: "hybrid" }))`,
      { field: "agent" },
    );
  const exec: AgentExecuteOptions =
    typeof executeOptions === "string" ? { instruction: executeOptions } : { ...executeOptions };
  if (typeof exec.instruction !== "string")
    throw new ConfigError(`${WHERE}: executeOptions.instruction must be a string`, { field: "instruction" });
  const task: TaskSpec = o.task ?? { id: "sdk-task", instruction: exec.instruction };
  const isStep = stepTools
    ? (name: string) => stepTools.includes(name)
    : (name: string) => !STAGEHAND_READ_ONLY_TOOLS.includes(name);
  const recovery = new StepRecovery(o, task);
  const started = Date.now();
  const envMs0 = o.meter.ms;
  recovery.start(await o.meter.observe());

  const view = new MessageView<ViewMessage>(isStep);
  let modelCalls = 0;
  const userPrepare = exec.callbacks?.prepareStep;
  const prepareStep: PrepareStep = async (args) => {
    modelCalls++;
    const steps: CompletedStep[] = view.absorb(args.messages).map((calls) => ({
      actions: calls.flatMap((c) => toActions(c.toolName, c.input)),
      response: describeCalls(calls),
    }));
    if (steps.length > 0) {
      // Stagehand's tools act on the page themselves, so the screen after them is observed here (timed as env time).
      const cut = await recovery.afterSteps(steps, await o.meter.observe(), o.signal);
      if (cut) view.apply(cut);
    }
    const messages = view.messages() as typeof args.messages;
    // Option onStuck "stop": recovery attempts spent and the agent stuck (packages/core/src/runtime/stuck.ts):
    // the model is asked once more without tools, its answer ends the run (stop reason "stuck").
    if (recovery.state.stuck) return { messages, toolChoice: "none" as const, activeTools: [] };
    if (!userPrepare) return { messages };
    const theirs = await userPrepare({ ...args, messages });
    return { messages, ...(theirs ?? {}) };
  };

  const page = exec.page ?? (o.env as { currentPage?: AgentExecuteOptions["page"] }).currentPage;
  let result: AgentResult;
  try {
    result = await executeOnPage(agent, {
      ...exec,
      ...(page && { page }),
      ...(o.signal && !exec.signal && { signal: o.signal }),
      callbacks: { ...exec.callbacks, prepareStep },
    });
  } catch (err) {
    if ((err as Error)?.name === "ExperimentalNotConfiguredError")
      throw new ConfigError(
        `${WHERE}: construct Stagehand with experimental: true (Stagehand 3.x takes agent callbacks, where retrace hooks in, only then)`,
        { field: "experimental", cause: err },
      );
    throw err;
  }
  if (modelCalls === 0 && result.actions.length > 0)
    throw new ConfigError(
      `${WHERE}: the agent acted without calling prepareStep; a mode "cua" agent has no per-step hook, use mode "hybrid" or "dom"`,
      { field: "mode" },
    );
  const stopReason: StopReason = recovery.state.stuck
    ? "stuck"
    : result.completed
      ? "done"
      : modelCalls >= (exec.maxSteps ?? 20)
        ? "max-steps"
        : "fail";
  // The agent ended the run (its final answer or `done`): a cascade that let the last step pass
  // unasked is asked again with `ending` (its before-done gate), as the graph does before DONE. A
  // detection is recovered and reported like any other; Stagehand's run is over, so the episode
  // ends on the restored screen (docs/cost.md).
  if (stopReason === "done") {
    const ending = await recovery.beforeDone(o.signal);
    if (ending) view.apply(ending);
  }
  return buildSdkResult(o, recovery, {
    result,
    finalOutput: result.message,
    stopReason,
    wallMs: Date.now() - started,
    envMs: o.meter.ms - envMs0,
  });
}
