/**
 * Per-episode accounting of model calls by role: attempts, errors, tokens and cost. It wraps the
 * ChatModel each model agent talks to (outside the cache), so it sees every call the agent made,
 * including the ones that failed, which the episode's own accounting (built from successful
 * answers) cannot; agents with their own SDK clients (OpenAI and Anthropic computer use) report
 * their calls to it through {@link ModelMeter.observer} instead. Cost here is the list price of the tokens (so a cached
 * re-run writes the same
 * bytes); what was actually spent (cache misses only) goes to the run-wide {@link CostLedger},
 * which `--max-cost-usd` watches.
 */
import { describeError } from "@retrace-cua/core/errors";
import { cacheFields } from "@retrace-cua/core/runtime/accounting";
import type { ChatModel, ChatRequest, ChatResponse } from "@retrace-cua/core/model";
import type { ModelRole, ModelUsage } from "@retrace-cua/core/usage";
import { costUsd, type PriceTable } from "@retrace-cua/models/models/pricing";
import { callSiteOrdinal, currentCallSite, type CallSite } from "@retrace-cua/core/runtime/call-site";
import type { ModelCallObserver, ObservedCall, ObservedCallStart } from "@retrace-cua/models/models/call-observer";
import { loggedMessages, orderedCalls, siteFields, type CallRecord } from "./call-log.ts";

/** One role's model calls in one episode (a results.jsonl field). */
export interface RoleCalls {
  /** Calls made (answered, failed or served from the cache). */
  calls: number;
  /** Calls that failed after the backend's retries (unreachable, timeout, HTTP errors). */
  errors: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * Prompt tokens neither served from nor written to a prompt cache (inputTokens - cached - cache writes); in results
   * lines, with cachedInputTokens.
   */
  uncachedInputTokens?: number;
  /** Prompt tokens served from the provider's prompt cache (part of inputTokens), present once a call reported one. */
  cachedInputTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (part of inputTokens). */
  cacheWriteInputTokens?: number;
  /** Billed-equivalent tokens (packages/core/src/usage.ts billedTokens), present once a call reported a prompt cache. */
  billedTokens?: number;
  /** List price of the tokens in USD (cached calls included, so re-runs give the same bytes). */
  costUsd: number;
  /** Some call was answered by a server that declared itself a simulated stand-in. */
  simulated?: boolean;
}

/** Run-wide money actually spent (cache misses only); `--max-cost-usd` compares against it. */
export class CostLedger {
  /** USD spent so far in this process. */
  spentUsd = 0;
  /** Model calls that reached a server. */
  serverCalls = 0;
}

/** Per-episode model-call meter. */
export class ModelMeter {
  private readonly roles = new Map<ModelRole, RoleCalls>();
  /** The first error message per role (for the run's summary). */
  readonly firstError = new Map<ModelRole, string>();
  private readonly log: Array<Omit<CallRecord, "order"> & { order: [number, number]; site?: CallSite }> = [];
  /** Calls started so far in this episode. */
  private started = 0;
  constructor(readonly ledger?: CostLedger) {}

  private entry(role: ModelRole): RoleCalls {
    let e = this.roles.get(role);
    if (!e) this.roles.set(role, (e = { calls: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 }));
    return e;
  }

  /** Count one answered call (usage from the backend or the cache). */
  recordUsage(
    role: ModelRole,
    usage: Pick<
      ModelUsage,
      | "inputTokens"
      | "outputTokens"
      | "cached"
      | "model"
      | "simulated"
      | "cachedInputTokens"
      | "cacheWriteInputTokens"
      | "billedTokens"
      | "cacheProvider"
    >,
    prices?: PriceTable,
  ): void {
    const e = this.entry(role);
    e.calls++;
    if (usage.simulated === true) e.simulated = true;
    Object.assign(e, cacheFields(e, usage));
    e.inputTokens += usage.inputTokens || 0;
    e.outputTokens += usage.outputTokens || 0;
    const cost = costUsd(prices, usage.model, usage) ?? 0;
    e.costUsd += cost;
    if (this.ledger && !usage.cached) {
      this.ledger.spentUsd += cost;
      this.ledger.serverCalls++;
    }
  }

  /** Count one failed call. */
  recordError(role: ModelRole, err: unknown): void {
    const e = this.entry(role);
    e.calls++;
    e.errors++;
    if (this.ledger) this.ledger.serverCalls++;
    if (!this.firstError.has(role)) this.firstError.set(role, describeError(err).split("\n")[0].slice(0, 300));
  }

  /**
   * Start logging one call under `role`: the call site is read now (the runtime set it around the
   * component's call); the returned functions count and log the call when it ends.
   */
  private begin(role: ModelRole, prices: PriceTable | undefined, start: ObservedCallStart): ObservedCall {
    const at = currentCallSite();
    const site = { ...siteFields(at), ...(at ? { site: at } : {}) };
    // The call's place in time: its call site's entry order, then the order calls under that site started (see
    // CallRecord.order).
    const order: [number, number] = [
      at ? (callSiteOrdinal(at) ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER,
      this.started++,
    ];
    const started = performance.now();
    const base = () => {
      const { requestSeed: _s, ...draw } = start.draw ?? ({} as Partial<NonNullable<ChatRequest["draw"]>>);
      return {
        ...site,
        role,
        model: start.model,
        ...(start.prompt ? { prompt: start.prompt } : {}),
        ...(start.draw ? { draw: draw as CallRecord["draw"] } : {}),
        messages: loggedMessages(start.messages),
      };
    };
    let ended = false;
    return {
      done: (reply, usage) => {
        if (ended) return;
        ended = true;
        this.recordUsage(role, usage, prices);
        const cost = costUsd(prices, usage.model, usage);
        this.log.push({
          order,
          ...base(),
          reply,
          inputTokens: usage.inputTokens || 0,
          outputTokens: usage.outputTokens || 0,
          ...(usage.cachedInputTokens ? { cachedInputTokens: usage.cachedInputTokens } : {}),
          ...(usage.cacheWriteInputTokens ? { cacheWriteInputTokens: usage.cacheWriteInputTokens } : {}),
          latencyMs: Math.round(usage.latencyMs ?? performance.now() - started),
          ...(cost !== undefined ? { costUsd: cost } : {}),
          ...(usage.cached ? { cached: true } : {}),
        });
      },
      failed: (err) => {
        if (ended) return;
        ended = true;
        this.recordError(role, err);
        this.log.push({
          order,
          ...base(),
          reply: "",
          inputTokens: 0,
          outputTokens: 0,
          latencyMs: Math.round(performance.now() - started),
          error: describeError(err).split("\n")[0].slice(0, 300),
        });
      },
    };
  }

  /**
   * A call observer (packages/models/src/models/call-observer.ts) that counts and logs under `role` the calls
   * of agents with their own SDK clients (OpenAI and Anthropic computer use), like {@link wrap}.
   */
  observer(role: ModelRole, prices?: PriceTable): ModelCallObserver {
    return (start) => this.begin(role, prices, start);
  }

  /** Wrap a chat model so its calls are counted under `role`. */
  wrap(model: ChatModel, role: ModelRole, prices?: PriceTable): ChatModel {
    const meter = this;
    const wrapped: ChatModel & { requestParams?: unknown } = {
      model: model.model,
      async complete(request: ChatRequest): Promise<ChatResponse> {
        // The step is read when the call starts: the runtime set it around the component's call.
        const call = meter.begin(role, prices, {
          model: model.model,
          ...(request.prompt ? { prompt: request.prompt } : {}),
          ...(request.draw ? { draw: request.draw } : {}),
          messages: request.messages,
        });
        try {
          const res = await model.complete(request);
          call.done(res.text, res.usage);
          return res;
        } catch (err) {
          call.failed(err);
          throw err;
        }
      },
    };
    const params = (model as { requestParams?: unknown }).requestParams;
    if (params !== undefined) wrapped.requestParams = params;
    return wrapped;
  }

  /** Role -> calls, in a stable role order (a results.jsonl field). */
  snapshot(): Partial<Record<ModelRole, RoleCalls>> {
    const out: Partial<Record<ModelRole, RoleCalls>> = {};
    for (const role of [...this.roles.keys()].sort()) {
      const e = this.roles.get(role)!;
      out[role] = { ...e, costUsd: round(e.costUsd) };
    }
    return out;
  }

  /** Every call of the episode with the step it belongs to (see call-log.ts), in a stable order. */
  callLog(): CallRecord[] {
    return orderedCalls(this.log);
  }

  /** True when any model call was made. */
  get used(): boolean {
    return this.roles.size > 0;
  }
}

/** Round a dollar amount to 1e-9 so float summation order never changes the bytes. */
export function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}
