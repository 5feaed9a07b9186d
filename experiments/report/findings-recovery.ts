/**
 * The paper's recovery-evaluation findings (Section 5.3) checked against a `recovery-eval.json`
 * (simulated or model-backed), in the same noise language as ./findings.ts:
 *
 * - Finding 2: forward policies rarely restore a past state on their own and rarely even aim to -
 *   the implicit policy's rationales are less similar to the ground-truth recovery instruction
 *   than the explicit recoverer's (the paper's Figure 6), and its success is reported beside;
 * - Finding 3: explicit recovery beats implicit recovery - pooled over every (d, r) where both
 *   ran, the paper's average margin is 17.86 points;
 * - Finding 4: post-trained specialists gain less from explicit instructions than generalists -
 *   needs several forward models labelled by kind, which one evaluation never has: listed as not
 *   judgeable with that reason.
 *
 * The explicit side is the recoverer the report's implicit-vs-explicit table pairs with the
 * implicit one (context 0-E; the skilled simulated recoverer, else the first). Verdicts follow
 * the one rule of ./findings-verdict.ts, on per-sample outcomes from `runs.jsonl` (never on runs
 * pooled over budgets: one sample evaluated at r = 1, 3 and 10 is one unit, not three):
 *
 * - Finding 2 at the largest budget: McNemar's exact test over samples, each sample's implicit and
 *   explicit rationale intent paired;
 * - Finding 3 over every budget: a sign test over samples stratified by budget within each sample
 *   (each sample's explicit successes minus implicit successes over the budgets both were judged
 *   at; a sample favours whichever side won more budgets), which is McNemar's exact test when
 *   there is one budget. Per-budget McNemar tests are listed beside, Holm-adjusted over the budgets.
 *
 * Units are target states (a target state sampled at d=1 and d=5 is one unit), and the verdict is
 * decided at the cluster level: a sign test over trajectories of the summed target-state
 * differences (the target-state test beside it, labelled). Finding 2 also tests "rarely" itself:
 * implicit restoration and restorative implicit rationales in fewer than 20% of target states
 * (one-sided exact binomial); its verdict is the weakest of the three.
 *
 * The gate (fewer than 6 discordant units: cannot tell) therefore counts distinct units. Without
 * runs.jsonl the findings are not judged; the pooled rates are still shown.
 */
import { wilsonInterval, type Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import {
  binomialCdf,
  clusterSignVerdict,
  clusterSums,
  holmVerdicts,
  mcnemarVerdict,
  pairedDifferences,
  pairOutcomes,
  type PairedVerdict,
} from "@retrace-cua/evaluation/metrics/paired";
import type { RecoveryRun } from "@retrace-cua/evaluation/eval/run";
import type { RecoveryEvalReport, RecoveryTableJsonRow } from "../recovery-eval/report-data.ts";
import { clustered, judged, testText, weakest, type Finding } from "./findings-verdict.ts";

const F2 =
  "Forward policies rarely restore a past state on their own, and their rationales rarely aim at it (Finding 2).";
const F3 = "Explicit recovery instructions beat implicit recovery (Finding 3).";
const F4 = "Post-trained specialists gain less from explicit recovery than generalist agents (Finding 4).";

const pct = (p: Proportion) => `${(100 * p.rate).toFixed(1)}%`;
const nOf = (ci: string | undefined, fallback: number) => Number(/\(n=(\d+)\)\s*$/.exec(ci ?? "")?.[1] ?? fallback);

/** Pool rows: successes of `rate` over `n` (counts are recovered from the rounded rates). */
function pool(
  rows: readonly RecoveryTableJsonRow[],
  rate: (r: RecoveryTableJsonRow) => number,
  n: (r: RecoveryTableJsonRow) => number,
): Proportion {
  let s = 0,
    total = 0;
  for (const r of rows) {
    const k = n(r);
    s += Math.round(rate(r) * k);
    total += k;
  }
  return wilsonInterval(s, total);
}

/** Implicit rows and their explicit partners (same d and r). */
function pairedRows(report: RecoveryEvalReport): {
  implicit: RecoveryTableJsonRow[];
  explicit: RecoveryTableJsonRow[];
  variant?: string;
} {
  const implicit: RecoveryTableJsonRow[] = [];
  const explicit: RecoveryTableJsonRow[] = [];
  let variant: string | undefined;
  for (const imp of report.table.filter((r) => r.policy === "implicit" && r.n > 0)) {
    const same = report.table.filter(
      (r) => r.policy === "explicit" && r.context === "0-E" && r.r === imp.r && r.d === imp.d && r.n > 0,
    );
    const exp = same.find((r) => r.variant.includes("skilled")) ?? same[0];
    if (!exp) continue;
    implicit.push(imp);
    explicit.push(exp);
    variant ??= exp.variant;
  }
  return { implicit, explicit, variant };
}

/**
 * A run's sample key (distance and sample id). The unit of the tests is the target state the
 * sample restores (`<task>/r<rollout>/t<step>`: the sample id without its distance), so a target
 * state sampled at d=1 and d=5 is counted once; ids of another form are their own target state.
 */
const unitOf = (r: RecoveryRun) => `${r.distance}/${r.sampleId}`;
export const targetStateOf = (sampleKey: string) => sampleKey.replace(/^\d+\//, "").replace(/\/d\d+$/, "");
const judgedRun = (r: RecoveryRun) => r.status === "judged" && !!r.verdict;

/** The trajectory of a target state (`<task>/r<rollout>`), else its task: the cluster of the cluster-level tests. */
function trajectoryOf(runs: readonly RecoveryRun[]): (targetState: string) => string {
  const task = new Map(runs.map((r) => [targetStateOf(unitOf(r)), r.taskId]));
  return (u) => /^(.*\/r\d+)\/t\d+$/.exec(u)?.[1] ?? task.get(u) ?? u;
}

/** Outcome per sample of one variant at one budget (judged runs only). */
function outcomesAt(
  runs: readonly RecoveryRun[],
  variant: string,
  budget: number,
  value: (r: RecoveryRun) => boolean | null,
): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const r of runs) {
    if (r.variant !== variant || r.budget !== budget || !judgedRun(r)) continue;
    const v = value(r);
    if (v !== null) out.set(unitOf(r), v);
  }
  return out;
}

/**
 * Sign test over target states, stratified by budget: {@link clusterSignVerdict} on the
 * (budget, sample) differences explicit - implicit, a target state's samples and budgets summed;
 * target states with a positive sum favour explicit (`onlyA`), negative ones implicit (`onlyB`),
 * zero ones are ties. Exact binomial (McNemar's exact test when each target state has one sample
 * and one budget). `n` counts distinct target states; `diffs` are the per-target-state sums (for
 * the cluster level above it, trajectories).
 */
export function stratifiedSampleVerdict(
  perBudget: ReadonlyArray<{ a: ReadonlyMap<string, boolean>; b: ReadonlyMap<string, boolean> }>,
): PairedVerdict & { budgetsPaired: number; diffs: Map<string, number> } {
  const units = new Map<string, number>();
  perBudget.forEach(({ a, b }, i) => {
    for (const [sample, d] of pairedDifferences(a, b)) units.set(`${i}\u0000${sample}`, d);
  });
  const stateOf = (unit: string) => targetStateOf(unit.slice(unit.indexOf("\u0000") + 1));
  const { clusters: _c, ...v } = clusterSignVerdict(units, stateOf, "target states");
  return {
    ...v,
    test: perBudget.length > 1 ? "sign test over target states, stratified by budget" : "sign test over target states",
    budgetsPaired: units.size,
    diffs: clusterSums(units, stateOf),
  };
}

/** "Rarely": at most this share of implicit target states, tested one-sided (Finding 2). */
export const RARELY_THRESHOLD = 0.2;

/**
 * "Rarely" as a test: the share of target states with the property is below {@link RARELY_THRESHOLD},
 * one-sided exact binomial (a target state has the property when any of its samples has it).
 * HOLDS at p < 0.05; DOES NOT HOLD when the share is significantly above the threshold.
 */
export function rarelyVerdict(values: ReadonlyMap<string, boolean>, what: string): PairedVerdict & { k: number } {
  const byState = new Map<string, boolean>();
  for (const [sample, v] of values)
    byState.set(targetStateOf(sample), (byState.get(targetStateOf(sample)) ?? false) || v);
  const n = byState.size,
    k = [...byState.values()].filter(Boolean).length;
  const test = `one-sided binomial test of ${what} in < ${100 * RARELY_THRESHOLD}% of target states`;
  if (n < 10) return { kind: "cannot-tell", test, n, k };
  const below = binomialCdf(k, n, RARELY_THRESHOLD);
  const above = k === 0 ? 1 : 1 - binomialCdf(k - 1, n, RARELY_THRESHOLD);
  const kind =
    below < 0.05
      ? "holds"
      : above < 0.05
        ? "does-not-hold"
        : k / n < RARELY_THRESHOLD
          ? "direction-only"
          : "not-in-direction";
  return { kind, p: kind === "does-not-hold" ? above : below, test, n, k };
}

/**
 * Findings 2-4 for one recovery evaluation and its per-sample runs (runs.jsonl); without them, 2 and 3 are not judged.
 */
export function recoveryFindings(report: RecoveryEvalReport | undefined, runs?: readonly RecoveryRun[]): Finding[] {
  if (!report) {
    const why =
      "cannot be judged: no recovery evaluation (recovery-eval.json) in this folder; run `retrace eval-recovery`.";
    return [
      { claim: F2, holds: null, evidence: why },
      { claim: F3, holds: null, evidence: why },
      {
        claim: F4,
        holds: null,
        evidence:
          "cannot be judged: it needs recovery evaluations of several forward models labelled generalist or post-trained.",
      },
    ];
  }
  const { implicit, explicit, variant } = pairedRows(report);
  const sim = report.simulated ? " (SIMULATED policies)" : "";
  const out: Finding[] = [];
  if (implicit.length === 0) {
    const why =
      "cannot be judged: the evaluation has no implicit variant with an explicit 0-E recoverer at the same d and r.";
    out.push({ claim: F2, holds: null, evidence: why }, { claim: F3, holds: null, evidence: why });
  } else {
    const a = pool(
        implicit,
        (r) => r.success,
        (r) => r.n,
      ),
      b = pool(
        explicit,
        (r) => r.success,
        (r) => r.n,
      );
    const gains = implicit.map((imp, i) => explicit[i].success - imp.success);
    const mean = gains.reduce((s, g) => s + g, 0) / gains.length;
    const rates = `explicit ${variant} ${pct(b)} vs implicit ${pct(a)} (pooled rates over ${implicit.length} (d, r) settings, shown only; mean margin ${(100 * mean).toFixed(1)} points, the paper: 17.86; ${gains.filter((g) => g > 0).length} of ${gains.length} settings favour explicit)`;
    if (!runs || runs.length === 0) {
      const why = `cannot be judged: no per-sample outcomes (runs.jsonl beside recovery-eval.json), and runs pooled over budgets are not independent units${sim}. ${rates}.`;
      out.push({ claim: F2, holds: null, evidence: why }, { claim: F3, holds: null, evidence: why });
    } else {
      const implicitVariant = implicit[0].variant;
      const rMax = Math.max(...implicit.map((r) => r.r));
      const scored =
        !/keyword classifier only/.test(report.rationaleMethod) && implicit.some((r) => r.rationaleSimilarity !== null);
      const intent = scored
        ? (r: RecoveryRun) =>
            r.rationale && r.rationale.maxSimilarity !== null ? r.rationale.restorative === true : null
        : (r: RecoveryRun) => r.intent.intent;
      const how = scored
        ? `rationales similar to the ground-truth recovery instruction (${report.rationaleMethod.split(";")[0]})`
        : "restorative rationales by the keyword classifier (no similarity scoring in this run)";
      const success = (r: RecoveryRun) => r.verdict!.success;
      // Finding 2 at the largest budget (the policy's best chance), one unit per sample.
      const ei = outcomesAt(runs, variant!, rMax, intent),
        ii = outcomesAt(runs, implicitVariant, rMax, intent);
      const is = outcomesAt(runs, implicitVariant, rMax, success);
      const isRate = wilsonInterval([...is.values()].filter(Boolean).length, is.size);
      const u2 = stratifiedSampleVerdict([{ a: ei, b: ii }]);
      const traj = trajectoryOf(runs);
      if (u2.n === 0)
        out.push({
          claim: F2,
          holds: null,
          evidence: `cannot be judged: no sample has scored rationales of both policies at r=${rMax}${sim}.`,
        });
      else {
        const { budgetsPaired: _b, diffs: d2, ...unit2 } = u2;
        const v2 = clustered(unit2, d2, traj, "trajectories");
        // "Rarely" itself, against a stated threshold: implicit restorative intent and implicit success.
        const rareIntent = rarelyVerdict(ii, "restorative implicit rationales");
        const rareSuccess = rarelyVerdict(is, "implicit restoration");
        const w = weakest([v2, rareIntent, rareSuccess]);
        const share = (m: Map<string, boolean>) =>
          `${(100 * ([...m.values()].filter(Boolean).length / Math.max(1, m.size))).toFixed(1)}%`;
        const rare = (v: typeof rareIntent) =>
          `${v.k} of ${v.n} target states, ${v.kind === "cannot-tell" ? "cannot tell (fewer than 10)" : `${v.kind === "holds" ? "below" : v.kind === "does-not-hold" ? "above" : "not shown below"} ${100 * RARELY_THRESHOLD}%, p=${v.p! < 0.001 ? v.p!.toExponential(1) : v.p!.toFixed(3)}`}`;
        out.push(
          judged(
            F2,
            w,
            `At r=${rMax}${sim}: "rarely" tested as < ${100 * RARELY_THRESHOLD}% of implicit target states (one-sided exact binomial; the verdict is the weakest of the three tests): implicit restoration ${rare(rareSuccess)}; restorative implicit rationales ${rare(rareIntent)}. Implicit recovery succeeded in ${pct(isRate)} of ${isRate.n} samples; ${how}: implicit ${share(ii)} vs explicit ${variant} ${share(ei)}; ${testText(v2, `explicit ${variant}`, "implicit", "target states")}.`,
          ),
        );
      }
      // Finding 3 over every budget both ran, one unit per sample.
      const budgets = [...new Set(implicit.map((r) => r.r))].sort((x, y) => x - y);
      const perBudget = budgets.map((r) => ({
        r,
        a: outcomesAt(runs, variant!, r, success),
        b: outcomesAt(runs, implicitVariant, r, success),
      }));
      const u3 = stratifiedSampleVerdict(perBudget);
      const { diffs: d3, budgetsPaired: bp3, ...unit3 } = u3;
      const v3 = { ...clustered(unit3, d3, traj, "trajectories"), budgetsPaired: bp3 };
      const each = holmVerdicts(
        perBudget.map((x) => mcnemarVerdict(pairOutcomes(x.a, x.b))),
        "budgets",
      );
      const eachText = perBudget
        .map(
          (x, i) =>
            `r=${x.r}: ${each[i].onlyA} vs ${each[i].onlyB}${each[i].p === undefined ? " (cannot tell)" : `, p=${each[i].p! < 0.001 ? each[i].p!.toExponential(1) : each[i].p!.toFixed(3)}`}`,
        )
        .join("; ");
      out.push(
        judged(
          F3,
          v3,
          `${sim ? `${sim.trim()} ` : ""}${testText(v3, `explicit ${variant}`, "implicit", "target states")} (${v3.budgetsPaired} sample-budget pairs over r=${budgets.join(",")}; a target state favours the side that succeeded at more of its samples and budgets). Per budget, McNemar exact over samples (unit level, shown only: explicit-only vs implicit-only successes, Holm-adjusted over ${budgets.length} budgets): ${eachText}. ${rates}.`,
        ),
      );
    }
  }
  out.push({
    claim: F4,
    holds: null,
    evidence: `cannot be judged from one evaluation: it compares forward models labelled generalist vs post-trained (this one evaluates "${report.label || "one policy"}").`,
  });
  return out;
}
