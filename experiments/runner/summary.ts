/**
 * Aggregation of results.jsonl into summary.json / summary.csv: per condition the success rate
 * with its Wilson interval (environment errors excluded and counted), recovery attempts and
 * steps, cost per episode and per success, stability metrics; Success@K curves for the
 * ideal-recovery experiment; a recommendation for sweeps.
 */
import { recommend, type Recommendation } from "@retrace-cua/evaluation/metrics/compare";
import {
  summarizeStability,
  type StabilityMetrics,
  type StabilitySummary,
} from "@retrace-cua/evaluation/metrics/stability";
import { successAtKCurve, type IncompleteInstances } from "@retrace-cua/evaluation/metrics/success-at-k";
import { continuationOutcomes, scoredInstances } from "./scored-instances.ts";
import { wilsonInterval, type Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import { tokenSplit, type ModelRole, type TokenSplit } from "@retrace-cua/core/usage";
import { cacheFields } from "@retrace-cua/core/runtime/accounting";
import { round, type RoleCalls } from "../agents/meter.ts";
import type { ParamValue } from "./conditions.ts";
import type { ResultLine } from "./results-log.ts";
import type { IdealRunFacts } from "../ideal/facts.ts";

/** One condition's numbers. */
export interface ConditionSummary {
  condition: string;
  params: Record<string, ParamValue>;
  /** Lines in results.jsonl for this condition. */
  episodes: number;
  /** Environment failures after every retry: excluded from `success`. */
  envErrors: number;
  success: Proportion;
  meanRecoveryAttempts: number;
  meanRecoverySteps: number;
  meanForwardSteps: number;
  meanReplaySteps: number;
  /** Executed steps of every role per episode (the cost proxy for simulated runs). */
  stepsPerEpisode: number;
  /** Steps per successful episode (null without a success). */
  stepsPerSuccess: number | null;
  costPerEpisode: number;
  costPerSuccess: number | null;
  tokensPerEpisode: number;
  /**
   * Billed-equivalent tokens per episode (packages/core/src/usage.ts tokenSplit; = tokensPerEpisode where no server reported a prompt
   * cache).
   */
  billedTokensPerEpisode?: number;
  stability: StabilitySummary;
  simulated: boolean;
  /** Model calls per role over the condition's episodes (absent when no model was called). */
  models?: Partial<Record<ModelRole, RoleCalls>>;
  /** Tokens per role, as the model servers reported them (absent when no model was called). */
  tokens?: TokenTable;
  /** Action-replay desyncs of the condition's episodes (absent when none replayed). */
  replay?: ReplayCounts;
  /**
   * Selector failures that fell back to R = E-1 over the condition's episodes, and the recoveries they were among
   * (absent when no recovery ran).
   */
  selectorFallbacks?: SelectorFallbacks;
  /** Episodes whose recovery became degraded (the detector kept failing); absent = none. */
  degraded?: DegradedCounts;
  /** Episodes ended as stuck (option `onStuck: "stop"`), and the successes among them; absent = none. */
  stuck?: StuckCounts;
}

/** Degraded recovery: episodes in which the detector failed `degradedAfter` times in a row, and how often. */
export interface DegradedCounts {
  /** Episodes that became degraded at least once. */
  episodes: number;
  /** Times recovery became degraded, over those episodes. */
  times: number;
}

/**
 * Episodes that ended with stop reason "stuck" (option `onStuck: "stop"`: the agent repeated one step on an unchanged
 * screen after the recovery attempts were spent), and how many of them the task's checker still scored a success.
 */
export interface StuckCounts {
  episodes: number;
  successes: number;
}

/** Stuck counts of some lines, or undefined when none ended stuck. */
export function stuckOf(lines: readonly ResultLine[]): StuckCounts | undefined {
  const hit = lines.filter((l) => l.status === "ok" && l.stopReason === "stuck");
  return hit.length === 0 ? undefined : { episodes: hit.length, successes: hit.filter((l) => l.success).length };
}

/** Degraded counts of some lines, or undefined when none degraded. */
export function degradedOf(lines: readonly ResultLine[]): DegradedCounts | undefined {
  const hit = lines.filter((l) => (l.degraded ?? 0) > 0);
  return hit.length === 0 ? undefined : { episodes: hit.length, times: hit.reduce((n, l) => n + (l.degraded ?? 0), 0) };
}

/** Selector failures that fell back to R = E-1: how many, out of how many recovery attempts. */
export interface SelectorFallbacks {
  fallbacks: number;
  attempts: number;
}

/** Fallback counts of some lines, or undefined when none recovered. */
export function selectorFallbacksOf(lines: readonly ResultLine[]): SelectorFallbacks | undefined {
  const attempts = lines.reduce((n, l) => n + l.recoveryAttempts, 0);
  if (attempts === 0) return undefined;
  return { fallbacks: lines.reduce((n, l) => n + (l.selectorFallbacks ?? 0), 0), attempts };
}

/**
 * Tokens of one role in one condition: totals over its scored episodes and the mean per episode,
 * split the way providers bill them (packages/core/src/usage.ts tokenSplit). Where no server reported a prompt
 * cache, cached and cache-write tokens are 0 and billed = total (see {@link TokenTable.promptCache}).
 */
export interface RoleTokens {
  calls: number;
  /** Prompt tokens, all of them (cached ones included). */
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** totalTokens / scored episodes of the condition. */
  perEpisode: number;
  /** Prompt tokens billed at the full input price: inputTokens - cachedInputTokens - cacheWriteInputTokens. */
  uncachedInputTokens: number;
  /** Prompt tokens served from the provider's prompt cache (part of inputTokens). */
  cachedInputTokens: number;
  /** Prompt tokens written to the provider's prompt cache (part of inputTokens; Anthropic). */
  cacheWriteInputTokens: number;
  /**
   * Billed-equivalent tokens: uncached + cached x read factor + cache writes x write factor + output (packages/core/src/usage.ts).
   */
  billedTokens: number;
  /** billedTokens / scored episodes. */
  billedPerEpisode: number;
}

/** A condition's token table: per role, and all roles together. */
export interface TokenTable {
  /** Scored episodes the means are over. */
  episodes: number;
  /**
   * Some call of the condition reported a prompt cache; false: cached 0 and billed = tokens, as reported (nothing
   * assumed).
   */
  promptCache: boolean;
  roles: Partial<Record<ModelRole, RoleTokens>>;
  total: RoleTokens;
}

/** The token table of some result lines (scored ones only), or undefined when none called a model. */
export function tokenTable(lines: readonly ResultLine[]): TokenTable | undefined {
  const ok = lines.filter((l) => l.status === "ok");
  const models = sumModels(ok);
  if (!models) return undefined;
  const per = (n: number) => (ok.length === 0 ? 0 : Math.round((100 * n) / ok.length) / 100);
  const row = (calls: number, t: TokenSplit): RoleTokens => ({
    calls,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    totalTokens: t.inputTokens + t.outputTokens,
    perEpisode: per(t.inputTokens + t.outputTokens),
    uncachedInputTokens: t.uncachedInputTokens,
    cachedInputTokens: t.cachedInputTokens,
    cacheWriteInputTokens: t.cacheWriteInputTokens,
    billedTokens: t.billedTokens,
    billedPerEpisode: per(t.billedTokens),
  });
  const roles: Partial<Record<ModelRole, RoleTokens>> = {};
  let calls = 0;
  const total: TokenSplit = {
    inputTokens: 0,
    uncachedInputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: 0,
    billedTokens: 0,
  };
  for (const [role, m] of Object.entries(models) as Array<[ModelRole, RoleCalls]>) {
    const t = tokenSplit(m);
    roles[role] = row(m.calls, t);
    calls += m.calls;
    for (const k of Object.keys(total) as Array<keyof TokenSplit>) total[k] += t[k];
  }
  const promptCache = Object.values(models).some((m) => m?.billedTokens !== undefined);
  return { episodes: ok.length, promptCache, roles, total: row(calls, total) };
}

/**
 * Action-replay desyncs (paper App. B.1: a replay that does not reproduce the saved state is
 * retried from reset, up to three attempts): episodes that replayed, replays that desynced (each
 * retry counts), and episodes whose replay never reproduced the state (env errors, excluded).
 */
export interface ReplayCounts {
  episodes: number;
  desyncs: number;
  failed: number;
}

/** Replay counts of some lines, or undefined when none replayed. */
export function replayCounts(lines: readonly ResultLine[]): ReplayCounts | undefined {
  const replayed = lines.filter((l) => l.replaySteps > 0 || (l.replayDesyncs ?? 0) > 0);
  if (replayed.length === 0) return undefined;
  return {
    episodes: replayed.length,
    desyncs: replayed.reduce((n, l) => n + (l.replayDesyncs ?? 0), 0),
    failed: replayed.filter((l) => l.status === "env-error").length,
  };
}

/** A Success@K curve of one recovery-step strategy. */
export interface SuccessAtKSummary {
  condition: string;
  strategy: string;
  instances: number;
  /**
   * Failed runs this strategy continued but the curve leaves out: under the paper's rule
   * (`incompleteInstances: exclude`) every failed run with fewer than K usable continuations in
   * any strategy (a failed action replay), so all curves share one denominator; under
   * `score-available`, only runs without any usable continuation.
   */
  excluded?: number;
  /** Index i = Success@(i+1). */
  curve: Proportion[];
  meanRecoveryStep: number;
}

/** The whole summary.json. */
export interface ExperimentSummary {
  experiment: string;
  kind: string;
  /** True when any component was simulated; every report then says so. */
  simulated: boolean;
  note: string;
  episodes: number;
  envErrors: number;
  conditions: ConditionSummary[];
  successAtK?: SuccessAtKSummary[];
  recommendation?: Recommendation;
  /** Model calls per role over the whole run (absent when no model was called). */
  models?: Partial<Record<ModelRole, RoleCalls>>;
  /** True when the run called models and every call failed: the results say nothing about the agents. */
  allModelCallsFailed?: boolean;
  /** Why the run stopped scheduling episodes early (e.g. the --max-cost-usd cap), and how many it did not run. */
  stopped?: { reason: string; notRun: number };
  /** Tasks left out because they cannot run here (e.g. need OSWorld's Python evaluators), with the reason. */
  skipped?: Array<{ task: string; reason: string }>;
  /**
   * How model agents of different conditions drew (config `draws`); paired conditions are compared with paired tests.
   */
  draws?: "paired" | "independent";
  /** Action-replay desyncs over the run (absent when nothing was replayed). */
  replay?: ReplayCounts;
  /** Selector failures that fell back to R = E-1 over the run (absent when no recovery ran). */
  selectorFallbacks?: SelectorFallbacks;
  /** Episodes whose recovery became degraded over the run (absent = none): alert on it. */
  degraded?: DegradedCounts;
  /** Episodes ended as stuck over the run (option `onStuck: "stop"`; absent = none). */
  stuck?: StuckCounts;
  /**
   * Ideal recovery: the exclusion rule, the continuation budget and the excluded runs by reason
   * (experiments/ideal/run.ts).
   */
  ideal?: IdealRunFacts;
  /** The settle wait after each action and where it comes from (config or the environment's default). */
  settle?: { settleMs: number; source: "config" | "environment default"; env: string };
}

export const SIMULATED_NOTE =
  "SIMULATED: these results come from simulated components (seeded simulated policies, or a model server that declared itself a stand-in), not from models.";

/** Summarise lines; `params` gives each condition's distinguishing values. */
export function summarize(input: {
  experiment: string;
  kind: string;
  lines: readonly ResultLine[];
  params?: Record<string, Record<string, ParamValue>>;
  maxK?: number;
  incompleteInstances?: IncompleteInstances;
  stopped?: { reason: string; notRun: number };
  skipped?: Array<{ task: string; reason: string }>;
}): ExperimentSummary {
  const groups = new Map<string, ResultLine[]>();
  for (const l of [...input.lines].sort((a, b) => a.index - b.index)) {
    const g = groups.get(l.condition) ?? [];
    g.push(l);
    groups.set(l.condition, g);
  }
  const conditions = [...groups.entries()].map(([condition, lines]) =>
    conditionSummary(condition, lines, input.params?.[condition] ?? {}),
  );
  const simulated = input.lines.some((l) => l.simulated);
  const summary: ExperimentSummary = {
    experiment: input.experiment,
    kind: input.kind,
    simulated,
    note: simulated ? SIMULATED_NOTE : "Results from the configured (non-simulated) components.",
    episodes: input.lines.length,
    envErrors: input.lines.filter((l) => l.status === "env-error").length,
    conditions,
  };
  const models = sumModels(input.lines);
  if (models) {
    summary.models = models;
    const all = Object.values(models);
    summary.allModelCallsFailed = all.reduce((n, m) => n + m.calls, 0) > 0 && all.every((m) => m.errors === m.calls);
  }
  const replay = replayCounts(input.lines);
  if (replay) summary.replay = replay;
  const fallbacks = selectorFallbacksOf(input.lines);
  if (fallbacks) summary.selectorFallbacks = fallbacks;
  const degraded = degradedOf(input.lines);
  if (degraded) summary.degraded = degraded;
  const stuck = stuckOf(input.lines);
  if (stuck) summary.stuck = stuck;
  if (input.stopped) summary.stopped = input.stopped;
  if (input.skipped?.length) summary.skipped = input.skipped;
  if (input.kind === "ideal-recovery")
    summary.successAtK = successAtKSummaries(input.lines, input.maxK ?? 5, input.incompleteInstances ?? "exclude");
  if (input.kind === "sweep") {
    const candidates = conditions
      .filter((c) => c.condition !== "no-recovery" && c.success.n > 0)
      .map((c) => ({ label: c.condition, rate: c.success, cost: c.stepsPerEpisode }));
    if (candidates.length > 0) summary.recommendation = recommend(candidates);
  }
  return summary;
}

function conditionSummary(
  condition: string,
  lines: ResultLine[],
  params: Record<string, ParamValue>,
): ConditionSummary {
  const ok = lines.filter((l) => l.status === "ok");
  const success = wilsonInterval(ok.filter((l) => l.success).length, ok.length);
  const mean = (f: (l: ResultLine) => number) => (ok.length === 0 ? 0 : ok.reduce((s, l) => s + f(l), 0) / ok.length);
  const steps = (l: ResultLine) => l.forwardSteps + l.recoverySteps + l.replaySteps;
  const totalSteps = ok.reduce((s, l) => s + steps(l), 0);
  const totalCost = ok.reduce((s, l) => s + l.costUsd, 0);
  return {
    condition,
    params,
    episodes: lines.length,
    envErrors: lines.length - ok.length,
    success,
    meanRecoveryAttempts: mean((l) => l.recoveryAttempts),
    meanRecoverySteps: mean((l) => l.recoverySteps),
    meanForwardSteps: mean((l) => l.forwardSteps),
    meanReplaySteps: mean((l) => l.replaySteps),
    stepsPerEpisode: mean(steps),
    stepsPerSuccess: success.successes === 0 ? null : totalSteps / success.successes,
    costPerEpisode: mean((l) => l.costUsd),
    costPerSuccess: success.successes === 0 ? null : totalCost / success.successes,
    tokensPerEpisode: mean((l) => l.tokens),
    billedTokensPerEpisode: mean((l) => l.billedTokens ?? l.tokens),
    stability: summarizeStability(ok.map((l) => l.stability).filter((s): s is StabilityMetrics => s !== null)),
    simulated: lines.some((l) => l.simulated),
    ...(sumModels(lines) ? { models: sumModels(lines) } : {}),
    ...(tokenTable(lines) ? { tokens: tokenTable(lines) } : {}),
    ...(replayCounts(lines) ? { replay: replayCounts(lines) } : {}),
    ...(selectorFallbacksOf(lines) ? { selectorFallbacks: selectorFallbacksOf(lines) } : {}),
    ...(degradedOf(lines) ? { degraded: degradedOf(lines) } : {}),
    ...(stuckOf(lines) ? { stuck: stuckOf(lines) } : {}),
  };
}

/** Per-role totals of the lines' model calls, or undefined when none called a model. */
export function sumModels(lines: readonly ResultLine[]): Partial<Record<ModelRole, RoleCalls>> | undefined {
  const out: Partial<Record<ModelRole, RoleCalls>> = {};
  for (const l of lines)
    for (const [role, m] of Object.entries(l.models ?? {}) as Array<[ModelRole, RoleCalls]>) {
      const t = (out[role] ??= { calls: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });
      t.calls += m.calls;
      t.errors += m.errors;
      Object.assign(t, cacheFields(t, m));
      t.inputTokens += m.inputTokens;
      t.outputTokens += m.outputTokens;
      t.costUsd = round(t.costUsd + m.costUsd);
      if (m.simulated) t.simulated = true;
    }
  return Object.keys(out).length
    ? Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)))
    : undefined;
}

function successAtKSummaries(
  lines: readonly ResultLine[],
  maxK: number,
  rule: IncompleteInstances,
): SuccessAtKSummary[] {
  const byCondition = continuationOutcomes(lines);
  const scored = scoredInstances(lines, maxK, rule, byCondition);
  return [...byCondition.entries()].map(([condition, inst]) => {
    const entries = [...inst.entries()];
    const groups = entries
      .filter(([key]) => !scored || scored.has(key))
      .map(([, g]) => g.filter((l) => l.status === "ok").sort((a, b) => Number(a.extra?.k) - Number(b.extra?.k)));
    const outcomes = groups.map((g) => g.map((l) => l.success));
    const rs = entries.map(([, g]) => Number(g[0].extra?.recoveryStep ?? 0));
    const instances =
      rule === "exclude"
        ? outcomes.filter((o) => o.length >= maxK).length
        : outcomes.filter((o) => o.length > 0).length;
    return {
      condition,
      strategy: String(entries[0][1][0].extra?.strategy ?? condition),
      instances,
      excluded: entries.length - instances,
      curve: successAtKCurve(outcomes, maxK, { incomplete: rule }),
      meanRecoveryStep: rs.reduce((a, b) => a + b, 0) / Math.max(1, rs.length),
    };
  });
}

/** summary.csv: one row per condition. */
export function summaryCsv(summary: ExperimentSummary): string {
  const head = [
    "experiment",
    "condition",
    "params",
    "episodes",
    "env_errors",
    "valid",
    "successes",
    "success_rate",
    "ci_lo",
    "ci_hi",
    "mean_recovery_attempts",
    "mean_recovery_steps",
    "mean_forward_steps",
    "steps_per_episode",
    "cost_per_episode_usd",
    "cost_per_success_usd",
    "deviation_rate",
    "loop_incidence",
    "recovery_ability",
    "avg_recovery_length",
    "stability_source",
    "simulated",
  ];
  const q = (v: unknown) => {
    const s = v === null || v === undefined ? "" : typeof v === "number" ? String(Number(v.toFixed(6))) : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const rows = summary.conditions.map((c) =>
    [
      summary.experiment,
      c.condition,
      Object.entries(c.params)
        .map(([k, v]) => `${k}=${v}`)
        .join(" "),
      c.episodes,
      c.envErrors,
      c.success.n,
      c.success.successes,
      c.success.rate,
      c.success.lo,
      c.success.hi,
      c.meanRecoveryAttempts,
      c.meanRecoverySteps,
      c.meanForwardSteps,
      c.stepsPerEpisode,
      c.costPerEpisode,
      c.costPerSuccess,
      c.stability.deviationRate,
      c.stability.loopIncidence,
      c.stability.recoveryAbility,
      c.stability.avgRecoveryLength,
      c.stability.sources.join("+"),
      c.simulated,
    ]
      .map(q)
      .join(","),
  );
  return [head.join(","), ...rows].join("\n") + "\n";
}
