/**
 * Per-task views of a run: which tasks recovery fixed or broke (each condition paired with its
 * no-recovery baseline on the same task and seed: `no-recovery`, or with pairs `<pair>.no-recovery`), and success per
 * app (OSWorld: per domain).
 */
import { wilsonInterval, type Proportion } from "@retrace-cua/evaluation/metrics/wilson";
import type { ResultLine } from "../runner/results-log.ts";
import { COLORS, FLAT_X, proportionBars, wrapLabel, type ChartSpec } from "./charts.ts";
import { appOf, conditionLabel } from "./labels.ts";

/** One condition against its baseline, over (task, seed) pairs both scored. */
export interface PairedRow {
  condition: string;
  /** The no-recovery condition it was paired with (`no-recovery`, or its pair's `<pair>.no-recovery`). */
  baseline: string;
  pairs: number;
  /** Baseline failed, condition succeeded. */
  fixed: number;
  /** Baseline succeeded, condition failed. */
  broken: number;
  /** Per task: [fixed, broken, pairs]. */
  byTask: Map<string, [number, number, number]>;
}

export const BASELINE = "no-recovery";

/** Whether a condition id is a no-recovery baseline: `no-recovery`, or a pair's `<pair>.no-recovery`. */
export function isBaseline(condition: string): boolean {
  return condition === BASELINE || condition.endsWith(`.${BASELINE}`);
}

/**
 * The baseline a condition is paired with, among `baselines`: its own pair's (`<pair>.no-recovery`
 * for `<pair>.<variant>`), else plain `no-recovery`, else the one baseline the run has (the
 * end-to-end config runs one baseline for pairs that share a forward policy, as the findings
 * read it); undefined when the run has several and none is the condition's own.
 */
export function baselineOf(condition: string, baselines: readonly string[]): string | undefined {
  const dot = condition.lastIndexOf(".");
  const own = dot > 0 ? `${condition.slice(0, dot)}.${BASELINE}` : BASELINE;
  if (baselines.includes(own)) return own;
  if (baselines.includes(BASELINE)) return BASELINE;
  return baselines.length === 1 ? baselines[0] : undefined;
}

/**
 * Fixed / broken counts of every recovery condition against its no-recovery baseline (empty when
 * the run has none): with pairs, `<pair>.max-rec-N` against `<pair>.no-recovery` (or the shared one).
 */
export function pairedRows(lines: readonly ResultLine[]): PairedRow[] {
  const ok = lines.filter((l) => l.status === "ok");
  const baselines = [...new Set(ok.filter((l) => isBaseline(l.condition)).map((l) => l.condition))];
  if (baselines.length === 0) return [];
  const outcome = new Map(
    ok.filter((l) => isBaseline(l.condition)).map((l) => [`${l.condition}\u0000${l.task}\u0000${l.seed}`, l.success]),
  );
  const rows = new Map<string, PairedRow>();
  for (const l of ok) {
    if (isBaseline(l.condition)) continue;
    const baseline = baselineOf(l.condition, baselines);
    if (baseline === undefined) continue;
    const b = outcome.get(`${baseline}\u0000${l.task}\u0000${l.seed}`);
    if (b === undefined) continue;
    const r = rows.get(l.condition) ?? {
      condition: l.condition,
      baseline,
      pairs: 0,
      fixed: 0,
      broken: 0,
      byTask: new Map(),
    };
    rows.set(l.condition, r);
    const t = r.byTask.get(l.task) ?? [0, 0, 0];
    r.byTask.set(l.task, t);
    r.pairs++;
    t[2]++;
    if (!b && l.success) (r.fixed++, t[0]++);
    if (b && !l.success) (r.broken++, t[1]++);
  }
  return [...rows.values()];
}

/** Bars of tasks fixed (up) and broken (down) per condition. */
export function pairedChart(id: string, experiment: string, rows: readonly PairedRow[]): ChartSpec | undefined {
  if (rows.length === 0) return undefined;
  return {
    id,
    title: `${experiment}: episodes recovery fixed or broke (paired with no recovery)`,
    note: "Same task and seed with and without recovery: fixed = failed without recovery, solved with it; broken = solved without, failed with it. n = pairs.",
    config: {
      type: "bar",
      data: {
        labels: rows.map((r) => wrapLabel(`${conditionLabel(r.condition)} (n=${r.pairs})`)),
        datasets: [
          {
            label: "fixed by recovery (episodes)",
            data: rows.map((r) => r.fixed),
            backgroundColor: "#2e9d5b",
            tips: rows.map((r) => `fixed ${r.fixed} of ${r.pairs} pairs`),
          },
          {
            label: "broken by recovery (episodes)",
            data: rows.map((r) => -r.broken),
            backgroundColor: "#b3261e",
            tips: rows.map((r) => `broken ${r.broken} of ${r.pairs} pairs`),
          },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: { ...FLAT_X, stacked: true },
          y: { stacked: true, title: { display: true, text: "episodes (broken below 0)" } },
        },
      },
    },
  };
}

/** Success per app and condition. */
export interface AppBreakdown {
  apps: string[];
  conditions: string[];
  /** cells[app][condition]. */
  cells: Array<Array<Proportion | null>>;
}

/** Success per app (first word of the task id, or OSWorld's domain) and condition. */
export function appBreakdown(lines: readonly ResultLine[]): AppBreakdown {
  const ok = lines.filter((l) => l.status === "ok");
  const apps = [...new Set(ok.map((l) => appOf(l.task, l.extra as Record<string, unknown> | undefined)))].sort();
  const conditions = [...new Set(ok.map((l) => l.condition))];
  const cells = apps.map((a) =>
    conditions.map((c) => {
      const g = ok.filter(
        (l) => l.condition === c && appOf(l.task, l.extra as Record<string, unknown> | undefined) === a,
      );
      return g.length ? wilsonInterval(g.filter((l) => l.success).length, g.length) : null;
    }),
  );
  return { apps, conditions, cells };
}

/** Grouped bars: success per app, one bar per condition (at most 8), whiskers = 95% CI. */
export function appChart(id: string, experiment: string, b: AppBreakdown): ChartSpec | undefined {
  if (b.apps.length < 2) return undefined;
  const conds = b.conditions.slice(0, COLORS.length);
  return proportionBars({
    id,
    title: `${experiment}: success per app`,
    note: "App = the task's application (first word of its id; OSWorld: its domain). Whisker = 95% Wilson interval; hover for n.",
    labels: b.apps,
    series: conds.map((c, j) => ({ label: conditionLabel(c), values: b.cells.map((row) => row[j]) })),
  });
}
