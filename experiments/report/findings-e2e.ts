/**
 * The paper's end-to-end findings (Section 6) on an end-to-end run's own episodes, paired by
 * (task, seed) (./findings-verdict.ts):
 *
 * - Finding 5: recovery improves over no recovery at every setting of max recovery iterations, for each capable
 * recoverer
 *   (the claim is as strong as its weakest cap);
 * - Finding 6: a capable recoverer gains from more recovery attempts (most attempts vs one); a
 *   weak one can lose against no recovery (its worst cap vs none).
 *
 * Which claim a pair gets comes from the config's structure, never from the pair's name: the
 * recoverer each pair resolves to (experiments/config/agents.ts), and its capability from what
 * the run measured: the recovery conditions' recovery ability (share of deviations a trajectory
 * came back from, packages/evaluation/src/metrics/stability.ts; weak below 0.5). Only when no trajectory deviated
 * does the configured recoverer decide (a simulated profile's skill below 0.5 is weak; a model
 * recoverer is judged capable), and the evidence says so. A pair without its own baseline uses the run's first
 * baseline (configs skip baselines for pairs that share a forward policy); the evidence says so.
 *
 * Multiple comparisons: the weak recoverer's claim ("can lose at some cap") searches the caps, so
 * its per-cap p-values are Holm-adjusted over the caps before the cap that loses most is picked.
 * Finding 5 "at every cap" is an intersection-union claim (every cap must hold, the weakest
 * decides), which needs no adjustment within a pair. Across pairs each finding gives one verdict
 * per pair, and those verdicts are Holm-adjusted over the pairs. The verdict line states the
 * adjustment ("Holm-adjusted over 2 pairs").
 */
import type { Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import { SIM_PROFILES } from "@retrace-cua/simdesk/agents/profiles";
import { resolvePair } from "../config/agents.ts";
import type { EndToEndConfig } from "../config/schema.ts";
import type { ResultLine } from "../runner/results-log.ts";
import type { ConditionSummary, ExperimentSummary } from "../runner/summary.ts";
import { holmVerdicts, type PairedVerdict } from "@retrace-cua/evaluation/metrics/paired";
import {
  clusteredPairedVerdict,
  judged,
  outcomesOf,
  testText,
  verdictLabel,
  weakest,
  type Finding,
} from "./findings-verdict.ts";

const pct = (p: Proportion) => `${(100 * p.rate).toFixed(1)}%`;
const F5 = "Recovery improves task success over no recovery at every setting of max recovery iterations (Finding 5).";
const GAIN = "A capable recoverer gains from more recovery attempts (Finding 6).";

interface Pair {
  name: string;
  baseline?: ConditionSummary;
  caps: Array<{ cap: number; c: ConditionSummary }>;
}

/** Conditions grouped by pair from the runner's condition ids (`<pair>.no-recovery`, `<pair>.max-rec-N`). */
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

/**
 * Below this measured recovery ability (share of deviations the trajectory came back from) a recoverer gets the weak
 * claim of Finding 6.
 */
export const WEAK_ABILITY = 0.5;

/**
 * A pair's measured recovery ability over its recovery conditions (weighted by eligible trajectories), or null when
 * none deviated.
 */
function measuredAbility(caps: readonly ConditionSummary[]): { rate: number; n: number } | null {
  let n = 0,
    sum = 0;
  for (const c of caps) {
    const st = c.stability;
    if (st.recoveryAbility === null || !st.eligibleForRecovery) continue;
    n += st.eligibleForRecovery;
    sum += st.recoveryAbility * st.eligibleForRecovery;
  }
  return n === 0 ? null : { rate: sum / n, n };
}

/** The recoverer a pair resolves to in the config, and whether it is weak by construction. */
export function recovererOf(
  config: EndToEndConfig | undefined,
  pair: string,
): { label: string; weak: boolean; known: boolean } {
  const spec = config?.pairs.find((p) => p.name === pair);
  if (!spec)
    return {
      label: "recoverer not in a config (no manifest.json): judged as a capable one",
      weak: false,
      known: false,
    };
  const rec = resolvePair(spec).recovery as { kind?: string; profile?: string; model?: string; format?: string };
  if ((rec.kind ?? "sim") === "sim") {
    const profile = !rec.profile || rec.profile === "default" ? "skilled" : rec.profile;
    const skill = (SIM_PROFILES.recoverer as Record<string, { skill: number }>)[profile]?.skill;
    return {
      label: `simulated ${profile} recoverer${skill === undefined ? "" : ` (skill ${skill})`}`,
      weak: skill !== undefined && skill < 0.5,
      known: skill !== undefined,
    };
  }
  return {
    label: `${rec.kind} recoverer ${rec.model ?? "(--model)"}${rec.format ? ` (${rec.format})` : ""}`,
    weak: false,
    known: true,
  };
}

/** Findings 5 and 6 from an end-to-end run (summary, its results.jsonl and its config). */
export function endToEndFindings(
  e2e: ExperimentSummary | undefined,
  lines: readonly ResultLine[] | undefined,
  config: EndToEndConfig | undefined,
): Finding[] {
  if (!e2e) {
    const why =
      "cannot be judged: no end-to-end run in this folder (it needs a no-recovery baseline and recovery conditions).";
    return [
      { claim: F5, holds: null, evidence: why },
      { claim: GAIN, holds: null, evidence: why },
    ];
  }
  const pairs = pairsOf(e2e);
  const shared = pairs.find((p) => p.baseline);
  const sim = e2e.simulated ? " (SIMULATED)" : "";
  const from = `Computed from ${e2e.experiment}'s results.jsonl, paired by task and seed (draws: ${e2e.draws ?? "paired"}).`;
  const f5: Finding[] = [];
  const f6: Finding[] = [];
  for (const p of pairs) {
    const configured = recovererOf(config, p.name);
    const ability = measuredAbility(p.caps.map((x) => x.c));
    const rec = {
      ...configured,
      weak: ability ? ability.rate < WEAK_ABILITY : configured.weak,
      label: ability
        ? `${configured.label}; measured recovery ability ${ability.rate.toFixed(2)} over ${ability.n} trajectories with a deviation (${ability.rate < WEAK_ABILITY ? "weak" : "capable"}: weak below ${WEAK_ABILITY}), which decides the claim`
        : `${configured.label}; recovery ability not measured (no trajectory with a deviation): the claim follows the configured recoverer`,
    };
    const base = p.baseline ?? shared?.baseline;
    const baseNote =
      p.baseline || !shared
        ? ""
        : ` (baseline of pair "${shared.name}": the config runs one baseline for pairs that share a forward policy)`;
    const claim5 = F5.replace(" (Finding 5)", ` (recoverer "${p.name}") (Finding 5)`);
    const claim6 = rec.weak
      ? `Recoverer "${p.name}" (${configured.label}) can lose against no recovery (Finding 6).`
      : `Recoverer "${p.name}" gains from more recovery attempts (Finding 6).`;
    const missing = !base
      ? `no no-recovery baseline in this run for pair "${p.name}"`
      : p.caps.length === 0 || base.success.n === 0
        ? `pair "${p.name}" has no recovery conditions with finished episodes`
        : !lines
          ? "no results.jsonl to pair episodes by task and seed"
          : undefined;
    if (missing) {
      if (!rec.weak)
        f5.push({
          claim: claim5,
          holds: null,
          evidence: `cannot be judged: ${missing}${missing.startsWith("no no-recovery") ? `; pair "${p.name}" needs a no-recovery baseline and recovery conditions with finished episodes` : ""}.`,
        });
      f6.push({ claim: claim6, holds: null, evidence: `cannot be judged: ${missing}.` });
      continue;
    }
    const none = outcomesOf(lines!, base!.condition);
    const capOut = p.caps.map((x) => ({ ...x, out: outcomesOf(lines!, x.c.condition) }));
    const list = `${p.name}${sim}: no recovery ${pct(base!.success)}${baseNote}, ${p.caps.map((x) => `max-rec-${x.cap} ${pct(x.c.success)}`).join(", ")}`;
    if (!rec.weak) {
      const vs = capOut.map((x) => ({ cap: x.cap, v: clusteredPairedVerdict(x.out, none) }));
      const w = weakest(vs.map((x) => x.v));
      const at = vs.find((x) => x.v === w)!;
      const gains = p.caps.map((x) => x.c.success.rate - base!.success.rate);
      const mean = gains.reduce((s, g) => s + g, 0) / gains.length;
      f5.push(
        judged(
          claim5,
          w,
          `${list}; mean gain ${(100 * mean).toFixed(1)} points (the paper: 2.12). Weakest setting, max-rec-${at.cap} vs none: ${testText(w, `max-rec-${at.cap}`, "no recovery")}. ${rec.label}. ${from}`,
        ),
      );
    }
    if (rec.weak) {
      const raw = capOut.map((x) => clusteredPairedVerdict(none, x.out));
      const vs = holmVerdicts(raw, "settings of max recovery iterations").map((v, i) => ({ cap: capOut[i].cap, v }));
      // The cap that loses most: the smallest adjusted p among caps where no recovery is ahead, else the largest lead.
      const lead = (v: PairedVerdict) => (v.onlyA ?? 0) - (v.onlyB ?? 0);
      const best = vs.reduce((a, b) => {
        const la = lead(a.v) > 0,
          lb = lead(b.v) > 0;
        if (la !== lb) return lb ? b : a;
        if (la && a.v.p !== undefined && b.v.p !== undefined && a.v.p !== b.v.p) return b.v.p < a.v.p ? b : a;
        return lead(b.v) > lead(a.v) ? b : a;
      });
      f6.push(
        judged(
          claim6,
          best.v,
          `${list}; the setting that loses most, max-rec-${best.cap}: ${testText(best.v, "no recovery", `max-rec-${best.cap}`)}. ${rec.label}. ${from}`,
        ),
      );
      continue;
    }
    if (p.caps.length < 2) {
      f6.push({
        claim: claim6,
        holds: null,
        evidence: `cannot be judged: pair "${p.name}" has one setting of max recovery iterations (${p.caps[0].cap}); it needs two to see a gain from more attempts.`,
      });
      continue;
    }
    const first = capOut[0],
      most = capOut[capOut.length - 1];
    const v = clusteredPairedVerdict(most.out, first.out);
    const vNone = clusteredPairedVerdict(most.out, none);
    f6.push(
      judged(
        claim6,
        v,
        `${list}; ${most.cap} vs ${first.cap} attempt(s): ${testText(v, `max-rec-${most.cap}`, `max-rec-${first.cap}`)}; ${most.cap} vs none: ${testText(vNone, `max-rec-${most.cap}`, "no recovery")}. ${rec.label}. ${from}`,
      ),
    );
  }
  correctAcrossPairs(f5);
  correctAcrossPairs(f6);
  if (f5.length === 0)
    f5.push({
      claim: F5,
      holds: null,
      evidence:
        "cannot be judged: the end-to-end run has no <pair>.no-recovery / <pair>.max-rec-N conditions of a capable recoverer.",
    });
  if (f6.length === 0)
    f6.push({
      claim: GAIN,
      holds: null,
      evidence: "cannot be judged: the end-to-end run has no <pair>.no-recovery / <pair>.max-rec-N conditions.",
    });
  return [...f5, ...f6];
}

/** Holm-adjust the judged verdicts of one finding over its pairs (one verdict per pair), in place. */
function correctAcrossPairs(findings: Finding[]): void {
  const judgedOnes = findings.filter((f) => f.verdict);
  if (judgedOnes.length < 2) return;
  const adjusted = holmVerdicts(
    judgedOnes.map((f) => f.verdict!),
    "pairs",
  );
  judgedOnes.forEach((f, i) => {
    const v = adjusted[i];
    if (v === f.verdict) return;
    const before = verdictLabel(f);
    Object.assign(
      f,
      judged(
        f.claim,
        v,
        `${f.evidence} Across the ${judgedOnes.length} pairs of this finding the p-values are Holm-adjusted (${before} before the adjustment).`,
      ),
    );
  });
}
