/**
 * "Do the paper's findings hold here?": the paper's qualitative findings checked against any run
 * folder's own numbers (simulated or model-backed), with the same noise language everywhere
 * (a two-proportion test: "p=0.012, beyond noise" / "p=0.41, within noise").
 *
 * - Finding 1 (Section 4, ideal recovery): restoring to a past state beats a full reset (R=0) at
 *   K=1 - needs an ideal-recovery run with R=0 and at least one past-state strategy.
 * - Findings 2-4 (Section 5.3, recovery evaluation): from a recovery-eval.json, see
 *   ./findings-recovery.ts (Finding 4 needs several forward models and says so).
 * - Finding 5 (Section 6, end to end): recovery improves over no recovery at every retry cap of a
 *   capable recoverer (pairs not named weak/flailing) - needs a no-recovery baseline.
 * - Finding 6 (Section 6, end to end): a capable recoverer gains from more recovery attempts; a
 *   weak one can lose against no recovery - needs an end-to-end run with a no-recovery baseline
 *   and retry caps. Pairs named like "weak"/"flailing" get the second claim, every other pair
 *   the first. A pair without its own baseline uses the run's first baseline (configs skip
 *   baselines for pairs that share a forward policy); the evidence says so.
 *
 * A finding that cannot be judged is still listed (`holds: null`) with the reason.
 */
import { readJsonFile } from "../../src/store/read-file.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { twoProportionPValue, type Proportion } from "../../src/metrics/wilson.ts";
import type { ConditionSummary, ExperimentSummary } from "../runner/summary.ts";
import type { RecoveryEvalReport } from "../recovery-eval/report-data.ts";
import type { Finding } from "./html.ts";
import { recoveryFindings } from "./findings-recovery.ts";
import { noiseText } from "./noise-text.ts";

/** What the findings are computed from. */
export interface FindingsInput {
  /** Summary of an ideal-recovery run (Finding 1). */
  ideal?: ExperimentSummary;
  /** Its frozen plan (how many failed runs the detector found no error in). */
  plan?: { instances: Array<{ fallback: boolean }> };
  /** Summary of an end-to-end run (Findings 5 and 6). */
  e2e?: ExperimentSummary;
  /** A recovery evaluation (Findings 2-4). */
  recovery?: RecoveryEvalReport;
}

const pct = (p: Proportion) => `${(100 * p.rate).toFixed(1)}%`;
const pv = (a: Proportion, b: Proportion) => twoProportionPValue(a, b);
export { noiseText };

const F1 = "Restoring to a past state beats a full reset at small K (Finding 1: every past-state strategy beats R=0 at K=1).";

/** Check the paper's findings against the given summaries. */
export function computeFindings(input: FindingsInput): Finding[] {
  return [finding1(input.ideal, input.plan), ...recoveryFindings(input.recovery), ...finding5(input.e2e), ...finding6(input.e2e)];
}

const F5 = "Recovery improves task success over no recovery at every retry cap (Finding 5).";

function finding5(e2e: ExperimentSummary | undefined): Finding[] {
  if (!e2e) return [{ claim: F5, holds: null, evidence: "cannot be judged: no end-to-end run in this folder (it needs a no-recovery baseline and recovery conditions)." }];
  const pairs = pairsOf(e2e);
  const shared = pairs.find((p) => p.baseline);
  const capable = pairs.filter((p) => !/weak|flail/i.test(p.name));
  const out: Finding[] = [];
  for (const p of capable) {
    const base = p.baseline ?? shared?.baseline;
    const who = capable.length > 1 || p.name !== "skilled" ? ` (recoverer "${p.name}")` : "";
    if (!base || p.caps.length === 0 || base.success.n === 0) {
      out.push({ claim: F5.replace(" (Finding 5)", `${who} (Finding 5)`), holds: null, evidence: `cannot be judged: pair "${p.name}" needs a no-recovery baseline and recovery conditions with finished episodes.` });
      continue;
    }
    const gains = p.caps.map((x) => x.c.success.rate - base.success.rate);
    const least = p.caps[gains.indexOf(Math.min(...gains))];
    const mean = gains.reduce((s, g) => s + g, 0) / gains.length;
    const pLeast = pv(least.c.success, base.success);
    out.push({
      claim: F5.replace(" (Finding 5)", `${who} (Finding 5)`),
      holds: gains.every((g) => g > 0),
      significant: pLeast < 0.05,
      evidence: `${p.name}${e2e.simulated ? " (SIMULATED)" : ""}: no recovery ${pct(base.success)}, ${p.caps.map((x) => `max-rec-${x.cap} ${pct(x.c.success)}`).join(", ")}; mean gain ${(100 * mean).toFixed(1)} points (the paper: 2.12); smallest gain, max-rec-${least.cap} vs none: ${noiseText(pLeast)}.`,
    });
  }
  if (out.length === 0) out.push({ claim: F5, holds: null, evidence: "cannot be judged: the end-to-end run has no <pair>.no-recovery / <pair>.max-rec-N conditions of a capable recoverer." });
  return out;
}

function finding1(ideal: ExperimentSummary | undefined, plan: FindingsInput["plan"]): Finding {
  if (!ideal) return { claim: F1, holds: null, evidence: "cannot be judged: no ideal-recovery run in this folder (it needs Success@K per recovery step)." };
  const curves = ideal.successAtK ?? [];
  const zero = curves.find((c) => c.strategy === "zero");
  const others = curves.filter((c) => c.strategy !== "zero");
  if (!zero || others.length === 0) return { claim: F1, holds: null, evidence: "cannot be judged: the ideal-recovery run needs R=0 and at least one past-state strategy." };
  if (zero.instances === 0) return { claim: F1, holds: null, evidence: "cannot be judged: no failed forward runs with a detected error to restore." };
  const em1 = others.find((c) => c.strategy === "error-minus-1") ?? others[0];
  const a = em1.curve[0], b = zero.curve[0];
  const last = Math.min(em1.curve.length, zero.curve.length) - 1;
  const gap1 = a.rate - b.rate, gapK = em1.curve[last].rate - zero.curve[last].rate;
  const trend = gap1 <= 0 ? "no lead to narrow" : gapK < 0 ? "full resets catch up and overtake it" : gapK < gap1 ? "the gap narrows" : "the gap does not narrow";
  const beating = others.filter((c) => c.curve[0].rate > b.rate).length;
  const fallback = plan ? plan.instances.filter((i) => i.fallback).length : 0;
  return {
    claim: F1,
    holds: beating === others.length,
    significant: pv(a, b) < 0.05,
    evidence: `Success@1: ${em1.condition} ${pct(a)} vs R=0 ${pct(b)} over ${em1.instances} failed runs (${noiseText(pv(a, b))}); ${beating} of ${others.length} past-state strategies beat R=0 at K=1 (${others.map((c) => `${c.condition} ${pct(c.curve[0])}`).join(", ")}). At K=${last + 1}: ${em1.condition} ${pct(em1.curve[last])} vs R=0 ${pct(zero.curve[last])} (${trend} as K grows).${plan ? ` E comes from the ${ideal.simulated ? "simulated " : ""}detector: ${fallback} of ${plan.instances.length} failed runs got no error from it and were left out of the continuations.` : ""}`,
  };
}

interface Pair {
  name: string;
  baseline?: ConditionSummary;
  caps: Array<{ cap: number; c: ConditionSummary }>;
}

function pairsOf(e2e: ExperimentSummary): Pair[] {
  const pairs = new Map<string, Pair>();
  const get = (name: string) => pairs.get(name) ?? pairs.set(name, { name, caps: [] }).get(name)!;
  for (const c of e2e.conditions) {
    const base = /^(.*)\.no-recovery$/.exec(c.condition);
    const cap = /^(.*)\.max-rec-(\d+)$/.exec(c.condition);
    if (base) get(base[1]).baseline = c;
    else if (cap) get(cap[1]).caps.push({ cap: Number(cap[2]), c });
  }
  for (const p of pairs.values()) p.caps.sort((x, y) => x.cap - y.cap);
  return [...pairs.values()];
}

function finding6(e2e: ExperimentSummary | undefined): Finding[] {
  const gainClaim = "A capable recoverer gains from more recovery attempts (Finding 6).";
  if (!e2e) return [{ claim: gainClaim, holds: null, evidence: "cannot be judged: no end-to-end run in this folder (it needs a no-recovery baseline and retry caps)." }];
  const pairs = pairsOf(e2e);
  const shared = pairs.find((p) => p.baseline);
  const out: Finding[] = [];
  for (const p of pairs) {
    const weak = /weak|flail/i.test(p.name);
    const who = p.name === "skilled" ? "A skilled recoverer" : p.name === "weak" ? "A weak recoverer" : `Recoverer "${p.name}"`;
    const claim = weak ? `${who} can lose against no recovery (Finding 6).` : `${who} gains from more recovery attempts (Finding 6).`;
    const base = p.baseline ?? shared?.baseline;
    const baseNote = p.baseline || !shared ? "" : ` (baseline of pair "${shared.name}": the config runs one baseline for pairs that share a forward policy)`;
    if (!base) {
      out.push({ claim, holds: null, evidence: `cannot be judged: no no-recovery baseline in this run for pair "${p.name}".` });
      continue;
    }
    if (p.caps.length === 0 || base.success.n === 0) {
      out.push({ claim, holds: null, evidence: `cannot be judged: pair "${p.name}" has no recovery conditions with finished episodes.` });
      continue;
    }
    if (weak) {
      const worst = p.caps.reduce((a, b) => (b.c.success.rate < a.c.success.rate ? b : a));
      out.push({
        claim,
        holds: worst.c.success.rate < base.success.rate,
        significant: pv(worst.c.success, base.success) < 0.05,
        evidence: `${p.name}: no recovery ${pct(base.success)}${baseNote}, ${p.caps.map((x) => `max-rec-${x.cap} ${pct(x.c.success)}`).join(", ")}; worst ${worst.c.condition} vs none: ${noiseText(pv(worst.c.success, base.success))}.`,
      });
      continue;
    }
    const first = p.caps[0], most = p.caps[p.caps.length - 1];
    if (p.caps.length < 2) {
      out.push({ claim, holds: null, evidence: `cannot be judged: pair "${p.name}" has one retry cap (${first.cap}); it needs two to see a gain from more attempts.` });
      continue;
    }
    out.push({
      claim,
      holds: most.c.success.rate > first.c.success.rate && most.c.success.rate > base.success.rate,
      significant: pv(most.c.success, base.success) < 0.05,
      evidence: `${p.name}: no recovery ${pct(base.success)}${baseNote}, ${p.caps.map((x) => `${x.cap === first.cap ? `${x.cap} attempt` : x.cap} ${pct(x.c.success)}`).join(", ")} (${most.cap} vs ${first.cap}: ${noiseText(pv(most.c.success, first.c.success))}; ${most.cap} vs none: ${noiseText(pv(most.c.success, base.success))}).`,
    });
  }
  if (out.length === 0) out.push({ claim: gainClaim, holds: null, evidence: "cannot be judged: the end-to-end run has no <pair>.no-recovery / <pair>.max-rec-N conditions." });
  return out;
}

/** A run folder's summary and its directory. */
export interface RunSummaryRef {
  dir: string;
  summary: ExperimentSummary;
}

/**
 * Findings for the runs of a folder: the first ideal-recovery run (with its plan.json), the first
 * end-to-end run and the first recovery evaluation (`recovery-eval.json` among `extras`).
 * Undefined when the folder has none of them (nothing to judge).
 */
export function findingsForRuns(runs: readonly RunSummaryRef[], extras: ReadonlyArray<{ name: string; data: unknown }> = []): { simulated: boolean; findings: Finding[] } | undefined {
  const ideal = runs.find((r) => r.summary.kind === "ideal-recovery");
  const e2e = runs.find((r) => r.summary.kind === "end-to-end");
  const recovery = extras.map((e) => e.data as Partial<RecoveryEvalReport>).find((d) => d?.kind === "recovery-eval" && Array.isArray(d.table)) as RecoveryEvalReport | undefined;
  if (!ideal && !e2e && !recovery) return undefined;
  const planFile = ideal ? join(ideal.dir, "plan.json") : undefined;
  const plan = planFile && existsSync(planFile) ? readJsonFile<FindingsInput["plan"]>(planFile, { what: "plan.json", prefix: "report: " }) : undefined;
  return {
    simulated: [ideal, e2e].some((r) => r?.summary.simulated) || recovery?.simulated === true,
    findings: computeFindings({ ideal: ideal?.summary, plan, e2e: e2e?.summary, recovery }),
  };
}
