/**
 * The one verdict rule of every finding (demo, CLI, report), on paired outcomes: conditions of a
 * run share tasks and seeds, so a claim "a beats b" is tested with McNemar's exact test on the
 * (task, seed) units both ran (packages/evaluation/src/metrics/paired.ts). HOLDS only at p < 0.05 in the paper's
 * direction; DOES NOT HOLD only when the opposite direction is significant; "direction only
 * (p = x)" or "not in the paper's direction (p = x)" otherwise; "cannot tell (n too small)" with
 * fewer than 6 discordant pairs, where no outcome could reach p < 0.05.
 */
import {
  MIN_DISCORDANT,
  clusterSignVerdict,
  mcnemarVerdict,
  pairedDifferences,
  pairOutcomes,
  type PairedVerdict,
  type VerdictKind,
} from "@retrace-cua/evaluation/metrics/paired";
import type { ResultLine } from "../runner/results-log.ts";

/** A claim checked against a run's numbers. */
export interface Finding {
  claim: string;
  /**
   * true = HOLDS (significant, paper's direction), false = DOES NOT HOLD (significant, opposite), null = neither or not
   * judgeable.
   */
  holds: boolean | null;
  /** Whether the deciding difference is beyond noise (p < 0.05). */
  significant?: boolean;
  /** The paired test behind the verdict (absent when the finding cannot be judged). */
  verdict?: PairedVerdict;
  evidence: string;
}

/**
 * Success per unit (`<task>/<seed>`, or `<task>/<seed>/k<k>`) of one condition's finished episodes (environment errors
 * left out).
 */
export function outcomesOf(
  lines: readonly ResultLine[],
  condition: string,
  unit: (l: ResultLine) => string = (l) => `${l.task}/${l.seed}`,
): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const l of lines) if (l.condition === condition && l.status === "ok") out.set(unit(l), l.success);
  return out;
}

/** McNemar verdict of "a beats b" on the units both ran. */
export function pairedVerdict(a: ReadonlyMap<string, boolean>, b: ReadonlyMap<string, boolean>): PairedVerdict {
  return mcnemarVerdict(pairOutcomes(a, b));
}

/** A unit's task: units are `<task>/<seed>...` keys. */
export const taskOf = (unit: string) => unit.split("/")[0];

/**
 * The cluster-level verdict that decides a finding: a sign test over clusters (tasks by default)
 * of the summed unit differences (packages/evaluation/src/metrics/paired.ts), with the unit-level test kept beside
 * (`unitLevel`, labelled). When every cluster holds one unit the two tests are the same test,
 * and the unit-level verdict is returned, marked as cluster level.
 */
export function clustered(
  unit: PairedVerdict,
  diffs: ReadonlyMap<string, number>,
  clusterOf: (unit: string) => string = taskOf,
  clusters = "tasks",
): PairedVerdict {
  const ids = new Set([...diffs.keys()].map(clusterOf));
  if (ids.size === diffs.size) return { ...unit, clusters };
  return { ...clusterSignVerdict(diffs, clusterOf, clusters), unitLevel: unit };
}

/** {@link pairedVerdict} decided at the cluster level (tasks by default), the unit-level test beside. */
export function clusteredPairedVerdict(
  a: ReadonlyMap<string, boolean>,
  b: ReadonlyMap<string, boolean>,
  clusterOf: (unit: string) => string = taskOf,
  clusters = "tasks",
): PairedVerdict {
  return clustered(pairedVerdict(a, b), pairedDifferences(a, b), clusterOf, clusters);
}

const RANK: Record<VerdictKind, number> = {
  "does-not-hold": 0,
  "not-in-direction": 1,
  "cannot-tell": 2,
  "direction-only": 3,
  holds: 4,
};

/** The weakest of several verdicts (a claim "at every cap" is as strong as its weakest comparison). */
export function weakest(verdicts: readonly PairedVerdict[]): PairedVerdict {
  return verdicts.reduce((w, v) =>
    RANK[v.kind] < RANK[w.kind] || (RANK[v.kind] === RANK[w.kind] && (v.p ?? 1) > (w.p ?? 1)) ? v : w,
  );
}

/** The finding fields a verdict implies. */
export function judged(claim: string, verdict: PairedVerdict, evidence: string): Finding {
  const holds = verdict.kind === "holds" ? true : verdict.kind === "does-not-hold" ? false : null;
  return { claim, holds, significant: verdict.p !== undefined && verdict.p < 0.05, verdict, evidence };
}

const fmtP = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

/** "p=0.012", or with a correction "p=0.024, Holm-adjusted over 2 pairs (unadjusted 0.012)". */
export function pText(v: PairedVerdict): string {
  if (v.p === undefined) return "";
  if (!v.correction) return `p=${fmtP(v.p)}`;
  return `p=${fmtP(v.p)}, ${v.correction.method}-adjusted over ${v.correction.family} (unadjusted ${fmtP(v.correction.rawP)})`;
}

/** "McNemar exact over 12 paired (task, seed) units: 5 won only by a, 1 only by b, p=0.22". */
export function testText(v: PairedVerdict, a: string, b: string, units = "(task, seed) units"): string {
  const p = v.p === undefined ? "" : `, ${pText(v)}`;
  if (v.unitLevel) {
    const u = v.unitLevel;
    const up = u.p === undefined ? " (cannot tell)" : `, p=${fmtP(u.p)}`;
    return `${v.test} over ${v.n} ${v.clusters}: ${v.onlyA} favour ${a}, ${v.onlyB} favour ${b}, ${v.n - (v.onlyA ?? 0) - (v.onlyB ?? 0)} tied${p}; unit level (labelled, not independent: units share ${v.clusters}), ${u.test} over ${u.n} paired ${units}: ${u.onlyA} won only by ${a}, ${u.onlyB} only by ${b}${up}`;
  }
  const split = v.onlyA === undefined ? "" : `: ${v.onlyA} won only by ${a}, ${v.onlyB} only by ${b}`;
  const level = v.clusters
    ? ` (each of the ${v.n} units is its own ${v.clusters === "trajectories" ? "trajectory" : v.clusters.replace(/s$/, "")}: this is the cluster-level test)`
    : "";
  return `${v.test} over ${v.n} paired ${units}${split}${p}${level}`;
}

/**
 * The printed verdict: "HOLDS (p=0.003)", "direction only (p=0.24)", "cannot tell (n too small: ...)", "DOES NOT HOLD
 * (p=0.01)".
 */
export function verdictLabel(f: Pick<Finding, "holds" | "significant" | "verdict">): string {
  const v = f.verdict;
  if (!v)
    return f.holds === null
      ? "UNDECIDED"
      : f.holds
        ? f.significant === false
          ? "direction only"
          : "HOLDS"
        : "DOES NOT HOLD";
  const p = pText(v);
  switch (v.kind) {
    case "holds":
      return `HOLDS (${p})`;
    case "does-not-hold":
      return `DOES NOT HOLD (${p})`;
    case "direction-only":
      return `direction only (${p})`;
    case "not-in-direction":
      return `not in the paper's direction (${p})`;
    case "cannot-tell":
      if (v.onlyA !== undefined) {
        const d = v.onlyA + (v.onlyB ?? 0);
        if (v.unitLevel) return `cannot tell (n too small: ${d} deciding ${v.clusters}, fewer than ${MIN_DISCORDANT})`;
        return `cannot tell (n too small: ${d} discordant pair${d === 1 ? "" : "s"}, fewer than ${MIN_DISCORDANT})`;
      }
      return v.test.startsWith("two-proportion")
        ? `cannot tell (n too small: ${v.n} run${v.n === 1 ? "" : "s"} a side, fewer than ${MIN_UNPAIRED_N})`
        : `cannot tell (n too small: ${v.n} paired units)`;
  }
}

/** Fewest runs per side for an unpaired comparison to be judged. */
export const MIN_UNPAIRED_N = 10;

/**
 * The same rule on an unpaired two-proportion test, for results that keep no per-unit outcomes
 * (recovery-eval.json pools its runs): "a beats b"; cannot tell below {@link MIN_UNPAIRED_N} runs a side.
 */
export function unpairedVerdict(
  a: { successes: number; n: number },
  b: { successes: number; n: number },
  p: number,
): PairedVerdict {
  const test = "two-proportion z test (unpaired: the file keeps no per-sample outcomes)";
  const n = Math.min(a.n, b.n);
  if (n < MIN_UNPAIRED_N) return { kind: "cannot-tell", test, n };
  const lead = a.successes / a.n - b.successes / b.n;
  const kind: VerdictKind =
    p < 0.05 ? (lead > 0 ? "holds" : "does-not-hold") : lead > 0 ? "direction-only" : "not-in-direction";
  return { kind, p, test, n };
}
